package cache

import (
	"context"
	"fmt"

	"github.com/typedinformer/typedinformer/runtime/cache/internal/store"
)

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
	// LastStoreSyncResourceVersion returns the latest resourceVersion the
	// store has seen: of the last object added, updated or deleted, of the
	// last Replace, or of the last Bookmark ("" before any). An informer's
	// store reaches a watch event's version once it applied that event
	// (and every change before it), a list's once it applied the whole
	// list, a bookmark's once it applied every change queued before it.
	LastStoreSyncResourceVersion() string
	// Bookmark records that the store reached resourceVersion without a
	// change to its objects.
	Bookmark(resourceVersion string)
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
	return indexer[T]{Indexer: store.New(indexFuncs(indexers))}
}

// NewStore returns an empty thread-safe Store (an Indexer with only the
// NamespaceIndex).
func NewStore[T Object]() Store[T] {
	return indexer[T]{Indexer: store.New[T](nil)}
}

// indexer is the Indexer every constructor and informer hands out: the
// store's implementation, with the index functions typed as this package's.
// An informer's also has its write gate (see WriteWaiter); a standalone
// store's gate is nil and never waits.
type indexer[T Object] struct {
	*store.Indexer[T]
	gate *writeGate[T]
}

// WaitForWritesTo implements WriteWaiter.
func (i indexer[T]) WaitForWritesTo(ctx context.Context, key string) error {
	return i.gate.waitKey(ctx, key)
}

// WaitForWrites implements WriteWaiter.
func (i indexer[T]) WaitForWrites(ctx context.Context) error {
	return i.gate.waitAll(ctx)
}

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

// AnyIndexers is an Indexers[T] of some T, for option structs that serve
// every type of a package and so cannot be generic, such as a generated
// InformerOptions, whose Indexers field code written for client-go sets
// with TypedIndexersToIndexers. Only Indexers[T] implements it.
type AnyIndexers interface {
	anyIndexers()
}

func (Indexers[T]) anyIndexers() {}

// mergeAnyIndexers returns indexers with the functions of extra added;
// extra must be an Indexers[T] whose names indexers does not have.
func mergeAnyIndexers[T Object](indexers Indexers[T], extra AnyIndexers) (Indexers[T], error) {
	if extra == nil {
		return indexers, nil
	}
	more, ok := extra.(Indexers[T])
	if !ok {
		return indexers, fmt.Errorf("AnyIndexers holds %T, want %T", extra, Indexers[T]{})
	}
	if len(more) == 0 {
		return indexers, nil
	}
	out := make(Indexers[T], len(indexers)+len(more))
	for name, fn := range indexers {
		out[name] = fn
	}
	for name, fn := range more {
		if _, dup := out[name]; dup {
			return indexers, fmt.Errorf("index %q given in both Indexers and AnyIndexers", name)
		}
		out[name] = fn
	}
	return out, nil
}
