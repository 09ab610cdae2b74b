package informers

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/typedinformer/typedinformer/runtime/cache"
)

// multiNamespaceIndexer is the cache of a multi-namespace informer: reads
// merge the namespaces' indexers, and writes go to the indexer of the
// object's namespace (an object of an unwatched namespace is an error).
// Locking is per namespace: a List sees each namespace at a consistent
// point, not all of them at one instant. The set of namespaces may change
// at run time (Factory.SetNamespaces): mu guards it, and every read works
// on the set as it was when the read began.
type multiNamespaceIndexer[T cache.Object] struct {
	mu         sync.RWMutex
	namespaces []string
	byNS       map[string]cache.Indexer[T]
	all        []cache.Indexer[T]
	// added are the indexers AddIndexers added, in order, for namespaces
	// that join later.
	added []cache.Indexers[T]
}

// view returns the current namespaces and their indexers.
func (m *multiNamespaceIndexer[T]) view() ([]string, []cache.Indexer[T]) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.namespaces, m.all
}

// lookup returns the indexer of namespace ns, if watched.
func (m *multiNamespaceIndexer[T]) lookup(ns string) (cache.Indexer[T], bool) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	idx, ok := m.byNS[ns]
	return idx, ok
}

// addNamespace adds ns's indexer (after giving it every indexer added so
// far) and keeps the namespaces sorted.
func (m *multiNamespaceIndexer[T]) addNamespace(ns string, idx cache.Indexer[T]) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, ix := range m.added {
		if err := idx.AddIndexers(ix); err != nil {
			return fmt.Errorf("namespace %q: %w", ns, err)
		}
	}
	byNS := make(map[string]cache.Indexer[T], len(m.byNS)+1)
	for k, v := range m.byNS {
		byNS[k] = v
	}
	byNS[ns] = idx
	namespaces := append(slices.Clone(m.namespaces), ns)
	slices.Sort(namespaces)
	all := make([]cache.Indexer[T], len(namespaces))
	for i, n := range namespaces {
		all[i] = byNS[n]
	}
	m.namespaces, m.byNS, m.all = namespaces, byNS, all
	return nil
}

// removeNamespace drops ns's indexer from the merged view.
func (m *multiNamespaceIndexer[T]) removeNamespace(ns string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	byNS := make(map[string]cache.Indexer[T], len(m.byNS))
	for k, v := range m.byNS {
		if k != ns {
			byNS[k] = v
		}
	}
	namespaces := slices.DeleteFunc(slices.Clone(m.namespaces), func(n string) bool { return n == ns })
	all := make([]cache.Indexer[T], len(namespaces))
	for i, n := range namespaces {
		all[i] = byNS[n]
	}
	m.namespaces, m.byNS, m.all = namespaces, byNS, all
}

var (
	_ cache.Indexer[*metav1.PartialObjectMetadata] = (*multiNamespaceIndexer[*metav1.PartialObjectMetadata])(nil)
	_ cache.WriteWaiter                            = (*multiNamespaceIndexer[*metav1.PartialObjectMetadata])(nil)
)

func (m *multiNamespaceIndexer[T]) forNamespace(ns string) (cache.Indexer[T], error) {
	if idx, ok := m.lookup(ns); ok {
		return idx, nil
	}
	namespaces, _ := m.view()
	return nil, fmt.Errorf("informers: namespace %q is not one of the watched namespaces %v", ns, namespaces)
}

func (m *multiNamespaceIndexer[T]) forObject(obj T) (cache.Indexer[T], error) {
	return m.forNamespace(obj.GetNamespace())
}

func (m *multiNamespaceIndexer[T]) Add(obj T) error {
	idx, err := m.forObject(obj)
	if err != nil {
		return err
	}
	return idx.Add(obj)
}

func (m *multiNamespaceIndexer[T]) Update(obj T) error {
	idx, err := m.forObject(obj)
	if err != nil {
		return err
	}
	return idx.Update(obj)
}

func (m *multiNamespaceIndexer[T]) Delete(obj T) error {
	idx, err := m.forObject(obj)
	if err != nil {
		return err
	}
	return idx.Delete(obj)
}

func (m *multiNamespaceIndexer[T]) Get(obj T) (T, bool, error) {
	idx, ok := m.lookup(obj.GetNamespace())
	if !ok {
		var zero T
		return zero, false, nil
	}
	return idx.Get(obj)
}

func (m *multiNamespaceIndexer[T]) GetByKey(key string) (T, bool, error) {
	var zero T
	ns, _, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return zero, false, err
	}
	idx, ok := m.lookup(ns)
	if !ok {
		return zero, false, nil
	}
	return idx.GetByKey(key)
}

func (m *multiNamespaceIndexer[T]) List() []T {
	var out []T
	_, all := m.view()
	for _, idx := range all {
		out = append(out, idx.List()...)
	}
	return out
}

func (m *multiNamespaceIndexer[T]) ListKeys() []string {
	var out []string
	_, all := m.view()
	for _, idx := range all {
		out = append(out, idx.ListKeys()...)
	}
	return out
}

// LastStoreSyncResourceVersion returns the lowest of the namespaces'
// stores' resourceVersions: every namespace's store reached it. It is ""
// while some namespace's store has none (or one that is not a number).
func (m *multiNamespaceIndexer[T]) LastStoreSyncResourceVersion() string {
	_, all := m.view()
	lowest, out := int64(-1), ""
	for _, idx := range all {
		rv := idx.LastStoreSyncResourceVersion()
		n, err := strconv.ParseInt(rv, 10, 64)
		if err != nil {
			return ""
		}
		if lowest < 0 || n < lowest {
			lowest, out = n, rv
		}
	}
	return out
}

// Bookmark does nothing: each namespace's informer records its own
// bookmarks in its store.
func (m *multiNamespaceIndexer[T]) Bookmark(string) {}

// WaitForWritesTo implements cache.WriteWaiter through the indexer of key's
// namespace.
func (m *multiNamespaceIndexer[T]) WaitForWritesTo(ctx context.Context, key string) error {
	ns, _, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil // the read itself reports the malformed key
	}
	if idx, ok := m.lookup(ns); ok {
		if w, ok := idx.(cache.WriteWaiter); ok {
			return w.WaitForWritesTo(ctx, key)
		}
	}
	return nil
}

// WaitForWrites implements cache.WriteWaiter through every namespace's
// indexer.
func (m *multiNamespaceIndexer[T]) WaitForWrites(ctx context.Context) error {
	_, all := m.view()
	for _, idx := range all {
		if w, ok := idx.(cache.WriteWaiter); ok {
			if err := w.WaitForWrites(ctx); err != nil {
				return err
			}
		}
	}
	return nil
}

func (m *multiNamespaceIndexer[T]) Len() int {
	n := 0
	_, all := m.view()
	for _, idx := range all {
		n += idx.Len()
	}
	return n
}

// Replace splits items by namespace and replaces each namespace's contents;
// an item of an unwatched namespace fails the call before anything changes.
func (m *multiNamespaceIndexer[T]) Replace(items []T, resourceVersion string) error {
	namespaces, all := m.view()
	split := make(map[string][]T, len(all))
	for _, obj := range items {
		if _, err := m.forObject(obj); err != nil {
			return err
		}
		split[obj.GetNamespace()] = append(split[obj.GetNamespace()], obj)
	}
	var errs []error
	for i, ns := range namespaces {
		if err := all[i].Replace(split[ns], resourceVersion); err != nil {
			errs = append(errs, fmt.Errorf("namespace %q: %w", ns, err))
		}
	}
	return errors.Join(errs...)
}

func (m *multiNamespaceIndexer[T]) Index(indexName string, obj T) ([]T, error) {
	var out []T
	_, all := m.view()
	for _, idx := range all {
		objs, err := idx.Index(indexName, obj)
		if err != nil {
			return nil, err
		}
		out = append(out, objs...)
	}
	return out, nil
}

func (m *multiNamespaceIndexer[T]) ByIndex(indexName, indexedValue string) ([]T, error) {
	if indexName == cache.NamespaceIndex {
		idx, ok := m.lookup(indexedValue)
		if !ok {
			return nil, nil
		}
		return idx.ByIndex(indexName, indexedValue)
	}
	var out []T
	_, all := m.view()
	for _, idx := range all {
		objs, err := idx.ByIndex(indexName, indexedValue)
		if err != nil {
			return nil, err
		}
		out = append(out, objs...)
	}
	return out, nil
}

func (m *multiNamespaceIndexer[T]) AppendByIndex(dst []T, indexName, indexedValue string) ([]T, error) {
	if indexName == cache.NamespaceIndex {
		idx, ok := m.lookup(indexedValue)
		if !ok {
			return dst, nil
		}
		return idx.AppendByIndex(dst, indexName, indexedValue)
	}
	start := len(dst)
	_, all := m.view()
	for _, idx := range all {
		var err error
		if dst, err = idx.AppendByIndex(dst, indexName, indexedValue); err != nil {
			return dst[:start], err
		}
	}
	return dst, nil
}

func (m *multiNamespaceIndexer[T]) IndexKeys(indexName, indexedValue string) ([]string, error) {
	var out []string
	_, all := m.view()
	for _, idx := range all {
		keys, err := idx.IndexKeys(indexName, indexedValue)
		if err != nil {
			return nil, err
		}
		out = append(out, keys...)
	}
	return out, nil
}

func (m *multiNamespaceIndexer[T]) ListIndexFuncValues(indexName string) []string {
	var out []string
	_, all := m.view()
	for _, idx := range all {
		out = append(out, idx.ListIndexFuncValues(indexName)...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func (m *multiNamespaceIndexer[T]) GetIndexers() cache.Indexers[T] {
	_, all := m.view()
	return all[0].GetIndexers()
}

// AddIndexers adds indexers to every namespace. Indexers every namespace
// would refuse (a nil function, an empty or clashing name) are refused
// before any namespace changes; objects an index function fails on are
// reported per namespace after the indexes were added everywhere.
func (m *multiNamespaceIndexer[T]) AddIndexers(indexers cache.Indexers[T]) error {
	// The write lock keeps a namespace from joining half-way; it only
	// excludes changes of the namespace set, not reads of the namespaces.
	m.mu.Lock()
	defer m.mu.Unlock()
	existing := m.all[0].GetIndexers()
	for name, fn := range indexers {
		switch _, clash := existing[name]; {
		case name == "":
			return errors.New("AddIndexers: an index needs a name")
		case fn == nil:
			return fmt.Errorf("AddIndexers: index %q: nil IndexFunc", name)
		case clash:
			return fmt.Errorf("AddIndexers: index %q already exists", name)
		}
	}
	var errs []error
	for i, idx := range m.all {
		if err := idx.AddIndexers(indexers); err != nil {
			errs = append(errs, fmt.Errorf("namespace %q: %w", m.namespaces[i], err))
		}
	}
	m.added = append(m.added, indexers)
	return errors.Join(errs...)
}
