package clientgo

import (
	"fmt"
	"maps"
	"sync"

	toolscache "k8s.io/client-go/tools/cache"

	"github.com/typedinformer/typedinformer/runtime/cache"
)

// indexer is client-go's Indexer over the runtime informer's typed cache.
// It stores the objects it is given (no copies), as client-go's does, and
// takes anything that is a runtime.Object with object metadata.
//
// Index functions are client-go's; each becomes a runtime index function.
// The runtime always maintains cache.NamespaceIndex, so passing
// toolscache.NamespaceIndex registers nothing new: it only makes
// GetIndexers report it, as client-go's indexer does for what it was given.
type indexer struct {
	inner cache.Indexer[cache.Object]
	// lastRV reports the informer's last synced resourceVersion.
	lastRV func() string

	mu sync.Mutex
	// funcs are the index functions given (what GetIndexers returns).
	funcs toolscache.Indexers
}

var _ toolscache.Indexer = (*indexer)(nil)

func newIndexer(inner cache.Indexer[cache.Object], lastRV func() string) *indexer {
	return &indexer{inner: inner, lastRV: lastRV, funcs: toolscache.Indexers{}}
}

// typedIndexers converts client-go index functions to the runtime's,
// leaving out the namespace index, which the runtime has built in. A nil
// function is kept as nil so that the runtime rejects it, naming it.
func typedIndexers(in toolscache.Indexers) cache.Indexers[cache.Object] {
	out := make(cache.Indexers[cache.Object], len(in))
	for name, f := range in {
		if name == toolscache.NamespaceIndex {
			continue
		}
		if f == nil {
			out[name] = nil
			continue
		}
		out[name] = func(obj cache.Object) ([]string, error) { return f(obj) }
	}
	return out
}

func asObject(obj any) (cache.Object, error) {
	o, ok := obj.(cache.Object)
	if !ok {
		return nil, fmt.Errorf("object of type %T has no object metadata", obj)
	}
	return o, nil
}

func asObjects(list []any) ([]cache.Object, error) {
	out := make([]cache.Object, 0, len(list))
	for i, obj := range list {
		o, err := asObject(obj)
		if err != nil {
			return nil, fmt.Errorf("item %d: %w", i, err)
		}
		out = append(out, o)
	}
	return out, nil
}

func untyped(list []cache.Object) []any {
	out := make([]any, len(list))
	for i, o := range list {
		out[i] = o
	}
	return out
}

// Add inserts obj, or replaces the object stored under its key.
func (x *indexer) Add(obj any) error {
	o, err := asObject(obj)
	if err != nil {
		return toolscache.KeyError{Obj: obj, Err: err}
	}
	return x.inner.Add(o)
}

// Update is Add.
func (x *indexer) Update(obj any) error {
	o, err := asObject(obj)
	if err != nil {
		return toolscache.KeyError{Obj: obj, Err: err}
	}
	return x.inner.Update(o)
}

// Delete removes the object stored under obj's key; obj may also be a
// DeletedFinalStateUnknown or an ExplicitKey.
func (x *indexer) Delete(obj any) error {
	key, err := toolscache.DeletionHandlingMetaNamespaceKeyFunc(obj)
	if err != nil {
		return toolscache.KeyError{Obj: obj, Err: err}
	}
	old, ok, err := x.inner.GetByKey(key)
	if err != nil || !ok {
		return err
	}
	return x.inner.Delete(old)
}

// List returns every stored object, in no particular order.
func (x *indexer) List() []any { return untyped(x.inner.List()) }

// ListKeys returns every key, in no particular order.
func (x *indexer) ListKeys() []string { return x.inner.ListKeys() }

// Get returns the object stored under obj's key.
func (x *indexer) Get(obj any) (any, bool, error) {
	key, err := toolscache.DeletionHandlingMetaNamespaceKeyFunc(obj)
	if err != nil {
		return nil, false, toolscache.KeyError{Obj: obj, Err: err}
	}
	return x.GetByKey(key)
}

// GetByKey returns the object stored under key; a missing key gives
// (nil, false, nil).
func (x *indexer) GetByKey(key string) (any, bool, error) {
	o, ok, err := x.inner.GetByKey(key)
	if err != nil || !ok {
		return nil, ok, err
	}
	return o, true, nil
}

// Replace swaps the whole content for list. An item without object metadata
// is an error naming it, and nothing is replaced.
func (x *indexer) Replace(list []any, resourceVersion string) error {
	objs, err := asObjects(list)
	if err != nil {
		return fmt.Errorf("replace: %w", err)
	}
	return x.inner.Replace(objs, resourceVersion)
}

// Resync does nothing: a thread-safe store has nothing to resync.
func (x *indexer) Resync() error { return nil }

// LastStoreSyncResourceVersion returns the resourceVersion the informer last
// synced to ("" before its first list).
func (x *indexer) LastStoreSyncResourceVersion() string { return x.lastRV() }

// Bookmark does nothing: the informer records bookmarks itself, and
// LastStoreSyncResourceVersion reports them.
func (x *indexer) Bookmark(string) {}

// Index returns the stored objects that share a value of indexName with obj.
func (x *indexer) Index(indexName string, obj any) ([]any, error) {
	o, err := asObject(obj)
	if err != nil {
		return nil, err
	}
	list, err := x.inner.Index(indexName, o)
	if err != nil {
		return nil, err
	}
	return untyped(list), nil
}

// IndexKeys returns the keys of the stored objects whose indexName values
// include indexedValue.
func (x *indexer) IndexKeys(indexName, indexedValue string) ([]string, error) {
	return x.inner.IndexKeys(indexName, indexedValue)
}

// ListIndexFuncValues returns every value indexName currently has.
func (x *indexer) ListIndexFuncValues(indexName string) []string {
	return x.inner.ListIndexFuncValues(indexName)
}

// ByIndex returns the stored objects whose indexName values include
// indexedValue.
func (x *indexer) ByIndex(indexName, indexedValue string) ([]any, error) {
	list, err := x.inner.ByIndex(indexName, indexedValue)
	if err != nil {
		return nil, err
	}
	return untyped(list), nil
}

// GetIndexers returns a copy of the index functions given to the informer
// and to AddIndexers.
func (x *indexer) GetIndexers() toolscache.Indexers {
	x.mu.Lock()
	defer x.mu.Unlock()
	return maps.Clone(x.funcs)
}

// AddIndexers adds index functions and indexes the stored objects with
// them. A name that exists is an error, and nothing is added.
func (x *indexer) AddIndexers(newIndexers toolscache.Indexers) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	for name := range newIndexers {
		if _, ok := x.funcs[name]; ok {
			return fmt.Errorf("indexer conflict: index %q exists", name)
		}
	}
	if err := x.inner.AddIndexers(typedIndexers(newIndexers)); err != nil {
		return err
	}
	maps.Copy(x.funcs, newIndexers)
	return nil
}
