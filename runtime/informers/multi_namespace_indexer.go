package informers

import (
	"errors"
	"fmt"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/typedinformer/typedinformer/runtime/cache"
)

// multiNamespaceIndexer is the cache of a multi-namespace informer: reads
// merge the namespaces' indexers, and writes go to the indexer of the
// object's namespace (an object of an unwatched namespace is an error).
// Locking is per namespace: a List sees each namespace at a consistent
// point, not all of them at one instant.
type multiNamespaceIndexer[T cache.Object] struct {
	namespaces []string
	byNS       map[string]cache.Indexer[T]
	all        []cache.Indexer[T]
}

var _ cache.Indexer[*metav1.PartialObjectMetadata] = (*multiNamespaceIndexer[*metav1.PartialObjectMetadata])(nil)

func (m *multiNamespaceIndexer[T]) forNamespace(ns string) (cache.Indexer[T], error) {
	if idx, ok := m.byNS[ns]; ok {
		return idx, nil
	}
	return nil, fmt.Errorf("informers: namespace %q is not one of the watched namespaces %v", ns, m.namespaces)
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
	idx, ok := m.byNS[obj.GetNamespace()]
	if !ok {
		var zero T
		return zero, false, nil
	}
	return idx.Get(obj)
}

func (m *multiNamespaceIndexer[T]) GetByKey(key string) (T, bool, error) {
	var zero T
	ns, _, err := cache.SplitKey(key)
	if err != nil {
		return zero, false, err
	}
	idx, ok := m.byNS[ns]
	if !ok {
		return zero, false, nil
	}
	return idx.GetByKey(key)
}

func (m *multiNamespaceIndexer[T]) List() []T {
	var out []T
	for _, idx := range m.all {
		out = append(out, idx.List()...)
	}
	return out
}

func (m *multiNamespaceIndexer[T]) ListKeys() []string {
	var out []string
	for _, idx := range m.all {
		out = append(out, idx.ListKeys()...)
	}
	return out
}

func (m *multiNamespaceIndexer[T]) Len() int {
	n := 0
	for _, idx := range m.all {
		n += idx.Len()
	}
	return n
}

// Replace splits items by namespace and replaces each namespace's contents;
// an item of an unwatched namespace fails the call before anything changes.
func (m *multiNamespaceIndexer[T]) Replace(items []T, resourceVersion string) error {
	split := make(map[string][]T, len(m.all))
	for _, obj := range items {
		if _, err := m.forObject(obj); err != nil {
			return err
		}
		split[obj.GetNamespace()] = append(split[obj.GetNamespace()], obj)
	}
	var errs []error
	for _, ns := range m.namespaces {
		if err := m.byNS[ns].Replace(split[ns], resourceVersion); err != nil {
			errs = append(errs, fmt.Errorf("namespace %q: %w", ns, err))
		}
	}
	return errors.Join(errs...)
}

func (m *multiNamespaceIndexer[T]) Index(indexName string, obj T) ([]T, error) {
	var out []T
	for _, idx := range m.all {
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
		idx, ok := m.byNS[indexedValue]
		if !ok {
			return nil, nil
		}
		return idx.ByIndex(indexName, indexedValue)
	}
	var out []T
	for _, idx := range m.all {
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
		idx, ok := m.byNS[indexedValue]
		if !ok {
			return dst, nil
		}
		return idx.AppendByIndex(dst, indexName, indexedValue)
	}
	start := len(dst)
	for _, idx := range m.all {
		var err error
		if dst, err = idx.AppendByIndex(dst, indexName, indexedValue); err != nil {
			return dst[:start], err
		}
	}
	return dst, nil
}

func (m *multiNamespaceIndexer[T]) IndexKeys(indexName, indexedValue string) ([]string, error) {
	var out []string
	for _, idx := range m.all {
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
	for _, idx := range m.all {
		out = append(out, idx.ListIndexFuncValues(indexName)...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func (m *multiNamespaceIndexer[T]) GetIndexers() cache.Indexers[T] {
	return m.all[0].GetIndexers()
}

// AddIndexers adds indexers to every namespace. Indexers every namespace
// would refuse (a nil function, an empty or clashing name) are refused
// before any namespace changes; objects an index function fails on are
// reported per namespace after the indexes were added everywhere.
func (m *multiNamespaceIndexer[T]) AddIndexers(indexers cache.Indexers[T]) error {
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
	return errors.Join(errs...)
}
