package cache

import "github.com/typedinformer/typedinformer/runtime/cache/internal/store"

// Store is a thread-safe, keyed collection of objects of type T. Keys are
// "namespace/name" or "name" (see KeyFor). Every method may be called from any
// goroutine.
//
// The store keeps the pointers it is given: callers hand over ownership and
// must not mutate an object after adding it, nor mutate what Get or List
// return.
type Store[T Object] interface {
	// Add inserts obj, or replaces the object stored under its key.
	Add(obj T) error
	// Update is Add: it inserts or replaces obj.
	Update(obj T) error
	// Delete removes the object stored under obj's key; deleting a missing
	// key is not an error.
	Delete(obj T) error
	// Get returns the stored object with obj's key.
	Get(obj T) (item T, exists bool, err error)
	// GetByKey returns the object stored under key.
	GetByKey(key string) (item T, exists bool, err error)
	// List returns every stored object, in no particular order.
	List() []T
	// ListKeys returns every key, in no particular order.
	ListKeys() []string
	// Replace atomically swaps the whole content for items. resourceVersion
	// is the list's version; stores that do not track it ignore it.
	Replace(items []T, resourceVersion string) error
	// Len returns the number of stored objects.
	Len() int
}

// IndexFunc computes the index values of obj for one named index. An object
// may have zero, one or several values. When it fails (or panics, or is nil)
// the store operation is still applied: the object is stored and left out of
// that index only, and the error, naming the index and the object, is
// returned to the caller of the operation. Inside an informer the error is
// also reported (LastError, SyncError, a log line) until the object is fixed
// or deleted.
type IndexFunc[T Object] func(obj T) ([]string, error)

// Indexers maps index names to index functions.
type Indexers[T Object] map[string]IndexFunc[T]

// NamespaceIndex is the name of the index every Indexer has: objects by
// namespace ("" for cluster-scoped objects).
const NamespaceIndex = store.NamespaceIndex

// Indexer is a Store that also maintains named secondary indexes. Every
// Indexer has the NamespaceIndex. Index functions may be added at any time;
// AddIndexers indexes what is already stored.
type Indexer[T Object] interface {
	Store[T]
	// Index returns the stored objects that share at least one value of
	// indexName with obj.
	Index(indexName string, obj T) ([]T, error)
	// ByIndex returns the stored objects whose indexName values include
	// indexedValue, in no particular order (the order may change whenever
	// the store changes), in a new slice the caller owns.
	ByIndex(indexName, indexedValue string) ([]T, error)
	// AppendByIndex appends what ByIndex would return to dst and returns
	// the extended slice; it allocates only when dst lacks the capacity, so
	// a caller reusing one buffer (dst[:0]) looks up without allocating.
	// The appended objects are in no particular order. On error (an index
	// that does not exist) dst is returned unchanged.
	AppendByIndex(dst []T, indexName, indexedValue string) ([]T, error)
	// IndexKeys is ByIndex returning keys.
	IndexKeys(indexName, indexedValue string) ([]string, error)
	// ListIndexFuncValues returns every value indexName currently has.
	ListIndexFuncValues(indexName string) []string
	// GetIndexers returns a copy of the index functions.
	GetIndexers() Indexers[T]
	// AddIndexers adds index functions and indexes the stored objects with
	// them. A nil function, an empty name or a name that exists is an error
	// naming it, and nothing is added; AddIndexers(nil) does nothing. Objects
	// a new function fails on are left out of its index and named in the
	// returned error (the index is added regardless).
	AddIndexers(newIndexers Indexers[T]) error
}

// NewIndexer returns an empty thread-safe Indexer with the NamespaceIndex and
// the given extra index functions. Passing NamespaceIndex in indexers is
// allowed and ignored in favour of the built-in one.
func NewIndexer[T Object](indexers Indexers[T]) Indexer[T] {
	return indexer[T]{store.New(indexFuncs(indexers))}
}

// NewStore returns an empty thread-safe Store (an Indexer with only the
// NamespaceIndex).
func NewStore[T Object]() Store[T] {
	return indexer[T]{store.New[T](nil)}
}

// indexer is the Indexer every constructor and informer hands out: the
// store's implementation, with the index functions typed as this package's.
type indexer[T Object] struct{ *store.Indexer[T] }

// GetIndexers returns a copy of the index functions.
func (i indexer[T]) GetIndexers() Indexers[T] {
	fns := i.Indexer.GetIndexers()
	out := make(Indexers[T], len(fns))
	for name, fn := range fns {
		out[name] = fn
	}
	return out
}

// AddIndexers adds index functions and indexes the stored objects with them
// (see Indexer).
func (i indexer[T]) AddIndexers(newIndexers Indexers[T]) error {
	return i.Indexer.AddIndexers(indexFuncs(newIndexers))
}

// indexFuncs returns indexers as the store takes them.
func indexFuncs[T Object](indexers Indexers[T]) store.Indexers[T] {
	if indexers == nil {
		return nil
	}
	out := make(store.Indexers[T], len(indexers))
	for name, fn := range indexers {
		out[name] = fn
	}
	return out
}
