package cache

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"sync"
)

// objKey is the internal form of a store key. It is built from an object's
// namespace and name without allocating, unlike the "namespace/name" string.
type objKey struct {
	namespace, name string
}

func keyOfObj[T Object](obj T) objKey {
	return objKey{namespace: obj.GetNamespace(), name: obj.GetName()}
}

func (k objKey) String() string { return KeyFor(k.namespace, k.name) }

func parseKey(key string) (objKey, error) {
	ns, name, err := SplitKey(key)
	if err != nil {
		return objKey{}, err
	}
	return objKey{namespace: ns, name: name}, nil
}

// keySet is a set of store keys sharing one index value.
type keySet map[objKey]struct{}

// threadSafeIndexer is the Indexer implementation. One RWMutex guards items
// and every index. The namespace index is maintained without calling an index
// function: an object's namespace is part of its key and never changes for a
// key, so updates skip it entirely.
type threadSafeIndexer[T Object] struct {
	mu       sync.RWMutex
	items    map[objKey]T
	byNS     map[string]keySet
	indexers Indexers[T]                  // custom index functions (never NamespaceIndex)
	indices  map[string]map[string]keySet // index name -> value -> keys
	// errs holds, per key, the error of the index functions that failed on
	// its stored object (which is left out of those indexes).
	errs map[objKey]error
}

// NewIndexer returns an empty thread-safe Indexer with the NamespaceIndex and
// the given extra index functions. Passing NamespaceIndex in indexers is
// allowed and ignored in favour of the built-in one.
func NewIndexer[T Object](indexers Indexers[T]) Indexer[T] {
	return newThreadSafeIndexer[T](indexers)
}

// NewStore returns an empty thread-safe Store (an Indexer with only the
// NamespaceIndex).
func NewStore[T Object]() Store[T] {
	return newThreadSafeIndexer[T](nil)
}

func newThreadSafeIndexer[T Object](indexers Indexers[T]) *threadSafeIndexer[T] {
	s := &threadSafeIndexer[T]{
		items:    map[objKey]T{},
		byNS:     map[string]keySet{},
		indexers: Indexers[T]{},
		indices:  map[string]map[string]keySet{},
		errs:     map[objKey]error{},
	}
	for name, fn := range indexers {
		if name == NamespaceIndex {
			continue
		}
		// A nil function is kept: every object then fails that index
		// with an error naming it, instead of a panic.
		s.indexers[name] = fn
		s.indices[name] = map[string]keySet{}
	}
	return s
}

// callIndex runs one index function, turning a nil function or a panic into
// an error naming the index and the object.
func callIndex[T Object](name string, fn IndexFunc[T], obj T) (vals []string, err error) {
	if fn == nil {
		return nil, fmt.Errorf("index %q on %s: %w", name, keyOf(obj), errNilIndexFunc)
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("index %q on %s: index function panicked: %v", name, keyOf(obj), r)
		}
	}()
	vals, err = fn(obj)
	if err != nil {
		return nil, fmt.Errorf("index %q on %s: %w", name, keyOf(obj), err)
	}
	return vals, nil
}

// errNilIndexFunc is wrapped by errors about nil index functions.
var errNilIndexFunc = errors.New("nil IndexFunc")

func addToIndex(idx map[string]keySet, value string, k objKey) {
	set := idx[value]
	if set == nil {
		set = keySet{}
		idx[value] = set
	}
	set[k] = struct{}{}
}

func removeFromIndex(idx map[string]keySet, value string, k objKey) {
	set := idx[value]
	if set == nil {
		return
	}
	delete(set, k)
	if len(set) == 0 {
		delete(idx, value)
	}
}

func sameValues(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// putLocked stores obj under k, keeping the indexes in step. An index
// function that fails on obj leaves obj out of that index only; the error is
// remembered for k (see objectErrors) until a later put of k indexes cleanly
// or k is deleted, and returned. The caller holds mu for writing.
func (s *threadSafeIndexer[T]) putLocked(k objKey, obj T) error {
	old, existed := s.items[k]
	return s.replaceLocked(k, obj, old, existed)
}

// replaceLocked is putLocked for a caller that already looked k up: old is
// its stored object, if existed.
func (s *threadSafeIndexer[T]) replaceLocked(k objKey, obj, old T, existed bool) error {
	var errs []error
	for name, fn := range s.indexers {
		nv, nerr := callIndex(name, fn, obj)
		var ov []string
		if existed {
			// A failure here means old was not in this index.
			ov, _ = callIndex(name, fn, old)
		}
		if nerr == nil && existed && sameValues(ov, nv) {
			continue
		}
		idx := s.indices[name]
		for _, v := range ov {
			removeFromIndex(idx, v, k)
		}
		if nerr != nil {
			errs = append(errs, nerr)
			continue
		}
		for _, v := range nv {
			addToIndex(idx, v, k)
		}
	}
	s.items[k] = obj
	if !existed {
		addToIndex(s.byNS, k.namespace, k)
	}
	if errs != nil {
		err := errors.Join(errs...)
		s.errs[k] = err
		return err
	}
	if len(s.errs) > 0 {
		delete(s.errs, k)
	}
	return nil
}

// deleteLocked removes k. The caller holds mu for writing.
func (s *threadSafeIndexer[T]) deleteLocked(k objKey) {
	old, existed := s.items[k]
	if !existed {
		return
	}
	for name, fn := range s.indexers {
		idx := s.indices[name]
		ov, err := callIndex(name, fn, old)
		if err != nil {
			// Normally old is not in this index; make sure.
			purgeKey(idx, k)
			continue
		}
		for _, v := range ov {
			removeFromIndex(idx, v, k)
		}
	}
	delete(s.items, k)
	removeFromIndex(s.byNS, k.namespace, k)
	if len(s.errs) > 0 {
		delete(s.errs, k)
	}
}

// purgeKey removes k from every value of one index by scanning it; used only
// when an index function cannot recompute an object's old values.
func purgeKey(idx map[string]keySet, k objKey) {
	for v, set := range idx {
		delete(set, k)
		if len(set) == 0 {
			delete(idx, v)
		}
	}
}

// objectErrors summarises the objects some index function failed on, nil
// when there are none. It names the first such key in key order.
func (s *threadSafeIndexer[T]) objectErrors() error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if len(s.errs) == 0 {
		return nil
	}
	var first objKey
	var firstErr error
	for k, err := range s.errs {
		if firstErr == nil || k.String() < first.String() {
			first, firstErr = k, err
		}
	}
	if len(s.errs) == 1 {
		return firstErr
	}
	return fmt.Errorf("%w (and %d more objects left out of an index)", firstErr, len(s.errs)-1)
}

func (s *threadSafeIndexer[T]) Add(obj T) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.putLocked(keyOfObj(obj), obj)
}

func (s *threadSafeIndexer[T]) Update(obj T) error { return s.Add(obj) }

func (s *threadSafeIndexer[T]) Delete(obj T) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.deleteLocked(keyOfObj(obj))
	return nil
}

func (s *threadSafeIndexer[T]) Get(obj T) (T, bool, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	item, ok := s.items[keyOfObj(obj)]
	return item, ok, nil
}

func (s *threadSafeIndexer[T]) GetByKey(key string) (T, bool, error) {
	k, err := parseKey(key)
	if err != nil {
		var zero T
		return zero, false, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	item, ok := s.items[k]
	return item, ok, nil
}

// hasKey reports whether k is stored (for DeltaFIFO's known objects).
func (s *threadSafeIndexer[T]) hasKey(k objKey) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	_, ok := s.items[k]
	return ok
}

// getLocked looks k up; the caller holds mu.
func (s *threadSafeIndexer[T]) getLocked(k objKey) (T, bool) {
	item, ok := s.items[k]
	return item, ok
}

func (s *threadSafeIndexer[T]) List() []T {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]T, 0, len(s.items))
	for _, item := range s.items {
		out = append(out, item)
	}
	return out
}

func (s *threadSafeIndexer[T]) ListKeys() []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]string, 0, len(s.items))
	for k := range s.items {
		out = append(out, k.String())
	}
	return out
}

func (s *threadSafeIndexer[T]) Len() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.items)
}

// Replace swaps the whole content for items. Objects an index function
// fails on are stored and left out of that index; the errors are returned.
func (s *threadSafeIndexer[T]) Replace(items []T, _ string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	fresh := newThreadSafeIndexer[T](s.indexers)
	fresh.items = make(map[objKey]T, len(items))
	var errs []error
	for _, obj := range items {
		if err := fresh.putLocked(keyOfObj(obj), obj); err != nil && len(errs) < 10 {
			errs = append(errs, err)
		}
	}
	s.items, s.byNS, s.indices, s.errs = fresh.items, fresh.byNS, fresh.indices, fresh.errs
	if n := len(s.errs); n > len(errs) {
		errs = append(errs, fmt.Errorf("and %d more objects failing an index", n-len(errs)))
	}
	return errors.Join(errs...)
}

// lookupLocked returns the key set of one index value; the caller holds mu.
func (s *threadSafeIndexer[T]) lookupLocked(indexName, value string) (keySet, error) {
	if indexName == NamespaceIndex {
		return s.byNS[value], nil
	}
	idx, ok := s.indices[indexName]
	if !ok {
		return nil, fmt.Errorf("index %q does not exist", indexName)
	}
	return idx[value], nil
}

func (s *threadSafeIndexer[T]) Index(indexName string, obj T) ([]T, error) {
	var values []string
	if indexName == NamespaceIndex {
		values = []string{obj.GetNamespace()}
	} else {
		s.mu.RLock()
		fn, ok := s.indexers[indexName]
		s.mu.RUnlock()
		if !ok {
			return nil, fmt.Errorf("index %q does not exist", indexName)
		}
		v, err := callIndex(indexName, fn, obj)
		if err != nil {
			return nil, err
		}
		values = v
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if len(values) == 1 {
		set, err := s.lookupLocked(indexName, values[0])
		if err != nil {
			return nil, err
		}
		out := make([]T, 0, len(set))
		for k := range set {
			out = append(out, s.items[k])
		}
		return out, nil
	}
	seen := keySet{}
	var out []T
	for _, v := range values {
		set, err := s.lookupLocked(indexName, v)
		if err != nil {
			return nil, err
		}
		for k := range set {
			if _, dup := seen[k]; dup {
				continue
			}
			seen[k] = struct{}{}
			out = append(out, s.items[k])
		}
	}
	return out, nil
}

func (s *threadSafeIndexer[T]) ByIndex(indexName, indexedValue string) ([]T, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	set, err := s.lookupLocked(indexName, indexedValue)
	if err != nil {
		return nil, err
	}
	out := make([]T, 0, len(set))
	for k := range set {
		out = append(out, s.items[k])
	}
	return out, nil
}

func (s *threadSafeIndexer[T]) IndexKeys(indexName, indexedValue string) ([]string, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	set, err := s.lookupLocked(indexName, indexedValue)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k.String())
	}
	return out, nil
}

func (s *threadSafeIndexer[T]) ListIndexFuncValues(indexName string) []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var idx map[string]keySet
	if indexName == NamespaceIndex {
		idx = s.byNS
	} else {
		idx = s.indices[indexName]
	}
	out := make([]string, 0, len(idx))
	for v := range idx {
		out = append(out, v)
	}
	sort.Strings(out)
	return out
}

func (s *threadSafeIndexer[T]) GetIndexers() Indexers[T] {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make(Indexers[T], len(s.indexers)+1)
	for name, fn := range s.indexers {
		out[name] = fn
	}
	out[NamespaceIndex] = NamespaceIndexFunc[T]
	return out
}

func (s *threadSafeIndexer[T]) AddIndexers(newIndexers Indexers[T]) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	names := make([]string, 0, len(newIndexers))
	for name, fn := range newIndexers {
		switch _, exists := s.indexers[name]; {
		case name == "":
			return errors.New("AddIndexers: an index needs a name")
		case fn == nil:
			return fmt.Errorf("AddIndexers: index %q: %w", name, errNilIndexFunc)
		case exists || name == NamespaceIndex:
			return fmt.Errorf("AddIndexers: index %q already exists", name)
		}
		names = append(names, name)
	}
	slices.Sort(names)
	var errs []error
	for _, name := range names {
		fn := newIndexers[name]
		idx := map[string]keySet{}
		for k, obj := range s.items {
			vals, err := callIndex(name, fn, obj)
			if err != nil {
				s.errs[k] = errors.Join(s.errs[k], err)
				if len(errs) < 10 {
					errs = append(errs, err)
				}
				continue
			}
			for _, v := range vals {
				addToIndex(idx, v, k)
			}
		}
		s.indexers[name] = fn
		s.indices[name] = idx
	}
	if len(errs) > 0 {
		return fmt.Errorf("AddIndexers: the indexes were added, leaving out objects their functions failed on: %w", errors.Join(errs...))
	}
	return nil
}
