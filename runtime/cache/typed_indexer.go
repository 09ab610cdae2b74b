package cache

// TypedIndexFunc is client-go v0.37's name for IndexFunc: the index values
// of one object.
type TypedIndexFunc[T Object] = IndexFunc[T]

// TypedIndexers is client-go v0.37's name for Indexers: index names to
// index functions.
type TypedIndexers[T Object] = Indexers[T]

// TypedIndexer is client-go v0.37's typed indexer view: an Indexer with the
// typed method names client-go added beside its untyped ones. Here Indexer
// is already typed, so each Typed method is its plain counterpart.
type TypedIndexer[T Object] interface {
	Indexer[T]
	// TypedIndex is Index.
	TypedIndex(indexName string, obj T) ([]T, error)
	// ByTypedIndex is ByIndex.
	ByTypedIndex(indexName, indexedValue string) ([]T, error)
	// AddTypedIndexers is AddIndexers.
	AddTypedIndexers(newIndexers TypedIndexers[T]) error
}

// TypedIndexersToIndexers returns indexers as Indexers, for
// SharedIndexInformerOptions.Indexers. The two types are the same here; the
// function exists so that code written for client-go compiles. It returns
// a copy.
func TypedIndexersToIndexers[T Object](indexers TypedIndexers[T]) Indexers[T] {
	if indexers == nil {
		return nil
	}
	out := make(Indexers[T], len(indexers))
	for name, fn := range indexers {
		out[name] = fn
	}
	return out
}

// TypedIndexerFuncToIndexerFunc returns fn as an IndexFunc (the same type
// here), for code written for client-go.
func TypedIndexerFuncToIndexerFunc[T Object](fn TypedIndexFunc[T]) IndexFunc[T] { return fn }

// NewTypedIndexer returns indexer as a TypedIndexer. An indexer that
// already is one is returned as is.
func NewTypedIndexer[T Object](indexer Indexer[T]) TypedIndexer[T] {
	if t, ok := indexer.(TypedIndexer[T]); ok {
		return t
	}
	return typedIndexer[T]{indexer}
}

// typedIndexer adds the Typed method names to an Indexer.
type typedIndexer[T Object] struct{ Indexer[T] }

func (i typedIndexer[T]) TypedIndex(indexName string, obj T) ([]T, error) {
	return i.Index(indexName, obj)
}

func (i typedIndexer[T]) ByTypedIndex(indexName, indexedValue string) ([]T, error) {
	return i.ByIndex(indexName, indexedValue)
}

func (i typedIndexer[T]) AddTypedIndexers(newIndexers TypedIndexers[T]) error {
	return i.AddIndexers(newIndexers)
}
