package store

import (
	"errors"
	"fmt"
	"hash/maphash"
	"slices"
	"sync"

	"github.com/typedinformer/typedinformer/runtime/internal/keys"
)

// Indexer is the thread-safe store and indexes behind runtime/cache's
// Indexer and every informer; layout.go describes how objects and index
// postings are laid out. One RWMutex guards everything. The namespace index costs nothing extra: an object's namespace
// is part of its key, and its namespace's bucket is its posting.
type Indexer[T keys.Object] struct {
	mu      sync.RWMutex
	buckets map[string]*nsBucket[T]
	count   int
	// custom holds the index functions other than NamespaceIndex, in name
	// order; byName maps a name to its position in custom.
	custom []*customIndex[T]
	byName map[string]int
	// errs holds, per key, the error of the index functions that failed on
	// its stored object (which is left out of those indexes).
	errs map[keys.Key]error
	// sizeHints maps namespaces without a bucket to how many objects a
	// list queued for the store holds in them (see ReserveFor); nil when
	// there are none. A bucket created for a hinted namespace is sized
	// from its hint, which it consumes.
	sizeHints map[string]int
	// seed seeds the name hashing of every bucket's nameTable, fixed at
	// construction: each indexer has its own, so no state is shared
	// between indexers.
	seed maphash.Seed
	// rv is the resourceVersion the store last reached (see
	// LastStoreSyncResourceVersion).
	rv string
}

// IndexFunc is runtime/cache's IndexFunc: the values an object has in one
// index, or an error.
type IndexFunc[T keys.Object] = func(obj T) ([]string, error)

// Indexers maps index names to index functions (runtime/cache converts its
// Indexers into one).
type Indexers[T keys.Object] = map[string]IndexFunc[T]

// NamespaceIndex is the name of the index every Indexer has: objects by
// namespace ("" for cluster-scoped objects). It costs nothing: an object's
// namespace is part of its key.
const NamespaceIndex = "namespace"

// namespaceOf is the NamespaceIndex function GetIndexers reports.
func namespaceOf[T keys.Object](obj T) ([]string, error) {
	return []string{obj.GetNamespace()}, nil
}

// New returns an empty Indexer with the NamespaceIndex and the given extra
// index functions. Passing NamespaceIndex in indexers is allowed and
// ignored in favour of the built-in one; a nil function is kept, and every
// object then fails that index with an error naming it.
func New[T keys.Object](indexers Indexers[T]) *Indexer[T] {
	s := &Indexer[T]{
		buckets: map[string]*nsBucket[T]{},
		byName:  map[string]int{},
		errs:    map[keys.Key]error{},
		seed:    maphash.MakeSeed(),
	}
	names := make([]string, 0, len(indexers))
	for name := range indexers {
		if name != NamespaceIndex {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	for _, name := range names {
		// A nil function is kept: every object then fails that index
		// with an error naming it, instead of a panic.
		s.addIndexLocked(name, indexers[name])
	}
	return s
}

// addIndexLocked registers an empty custom index; the caller indexes the
// stored objects (see AddIndexers) and holds mu for writing.
func (s *Indexer[T]) addIndexLocked(name string, fn IndexFunc[T]) *customIndex[T] {
	ci := &customIndex[T]{name: name, fn: fn, values: map[string]*posting[T]{}}
	s.byName[name] = len(s.custom)
	s.custom = append(s.custom, ci)
	for _, b := range s.buckets {
		mem := make([]member, len(b.objs))
		for i := range mem {
			mem[i] = member{pos: noPos}
		}
		b.mem = append(b.mem, mem)
	}
	return ci
}

// callIndex runs one index function, turning a nil function or a panic into
// an error naming the index and the object.
func callIndex[T keys.Object](name string, fn IndexFunc[T], obj T) (vals []string, err error) {
	if fn == nil {
		return nil, fmt.Errorf("index %q on %s: %w", name, keys.StringOf(obj), errNilIndexFunc)
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("index %q on %s: index function panicked: %v", name, keys.StringOf(obj), r)
		}
	}()
	vals, err = fn(obj)
	if err != nil {
		return nil, fmt.Errorf("index %q on %s: %w", name, keys.StringOf(obj), err)
	}
	return vals, nil
}

// errNilIndexFunc is wrapped by errors about nil index functions.
var errNilIndexFunc = errors.New("nil IndexFunc")

// newBucket returns an empty bucket with room for n objects.
func (s *Indexer[T]) newBucket(n int) *nsBucket[T] {
	b := &nsBucket[T]{objs: make([]T, 0, n)}
	b.names.seed = s.seed
	if n > 0 {
		b.names.slots = make([]uint64, nameTableSize(n))
	}
	if len(s.custom) > 0 {
		b.mem = make([][]member, len(s.custom))
		for j := range b.mem {
			b.mem[j] = make([]member, 0, n)
		}
	}
	return b
}

// locateLocked returns k's bucket and position; the caller holds mu.
func (s *Indexer[T]) locateLocked(k keys.Key) (*nsBucket[T], int32, bool) {
	b := s.buckets[k.Namespace]
	if b == nil {
		return nil, 0, false
	}
	_, i, ok := nameFind(&b.names, b.objs, k.Name)
	return b, i, ok
}

// memberOf returns the membership in custom index j of obj, which is
// stored. The caller holds mu for writing.
func (s *Indexer[T]) memberOf(j int, obj T) *member {
	b := s.buckets[obj.GetNamespace()]
	_, i, _ := nameFind(&b.names, b.objs, obj.GetName())
	return &b.mem[j][i]
}

// removeMember takes the object whose membership in custom index j is m out
// of every posting of that index, and clears m. The caller holds mu for
// writing.
func (s *Indexer[T]) removeMember(j int, m *member) {
	if m.pos < 0 {
		return
	}
	ci := s.custom[j]
	s.removeFromPosting(j, ci, m.val, m.pos)
	for _, vp := range m.more {
		s.removeFromPosting(j, ci, vp.val, vp.pos)
	}
	*m = member{pos: noPos}
}

// removeFromPosting swap-deletes position i of value's posting in custom
// index j, updating the recorded position of the element moved into i.
func (s *Indexer[T]) removeFromPosting(j int, ci *customIndex[T], value string, i int32) {
	p := ci.values[value]
	var moved bool
	p.objs, moved = removeAt(p.objs, i)
	if moved {
		s.memberOf(j, p.objs[i]).setPos(value, i)
	}
	if len(p.objs) == 0 {
		delete(ci.values, value)
		return
	}
	p.objs = shrinkSlice(p.objs)
}

// addMember appends obj to the postings of vals (distinct values) in ci and
// records where in m, which is clear.
func addMember[T keys.Object](ci *customIndex[T], m *member, vals []string, obj T) {
	for n, v := range vals {
		p := ci.values[v]
		if p == nil {
			p = &posting[T]{}
			ci.values[v] = p
		}
		p.objs = append(p.objs, obj)
		pos := int32(len(p.objs) - 1)
		if n == 0 {
			m.val, m.pos = v, pos
			continue
		}
		if m.more == nil {
			m.more = make([]valPos, 0, len(vals)-1)
		}
		m.more = append(m.more, valPos{val: v, pos: pos})
	}
}

// refreshMember writes obj, the new object of a key whose values in ci did
// not change, into each posting the key is in.
func refreshMember[T keys.Object](ci *customIndex[T], m *member, obj T) {
	if m.pos < 0 {
		return
	}
	ci.values[m.val].objs[m.pos] = obj
	for _, vp := range m.more {
		ci.values[vp.val].objs[vp.pos] = obj
	}
}

// putLocked stores obj under k, keeping the indexes in step. An index
// function that fails on obj leaves obj out of that index only; the error is
// remembered for k (see ObjectErrors) until a later put of k indexes cleanly
// or k is deleted, and returned. The caller holds mu for writing.
func (s *Indexer[T]) putLocked(k keys.Key, obj T) error {
	_, _, err := s.upsertLocked(k, obj)
	return err
}

// upsertLocked is putLocked also returning the object k held before, if
// it existed, from the same lookup.
func (s *Indexer[T]) upsertLocked(k keys.Key, obj T) (old T, existed bool, err error) {
	b := s.buckets[k.Namespace]
	if b == nil {
		b = s.newBucket(s.takeSizeHint(k.Namespace))
		s.buckets[k.Namespace] = b
	}
	_, i, existed := nameFind(&b.names, b.objs, k.Name)
	if existed {
		old = b.objs[i]
		b.objs[i] = obj
	} else {
		i = int32(len(b.objs))
		b.objs = append(b.objs, obj)
		nameInsert(&b.names, k.Name, i)
		for j := range b.mem {
			b.mem[j] = append(b.mem[j], member{pos: noPos})
		}
		s.count++
	}
	var errs []error
	for j, ci := range s.custom {
		m := &b.mem[j][i]
		vals, err := callIndex(ci.name, ci.fn, obj)
		if err != nil {
			s.removeMember(j, m)
			errs = append(errs, err)
			continue
		}
		vals = dedupValues(vals)
		if m.sameAs(vals) {
			refreshMember(ci, m, obj)
			continue
		}
		s.removeMember(j, m)
		addMember(ci, m, vals, obj)
	}
	if errs != nil {
		err = errors.Join(errs...)
		s.errs[k] = err
		return old, existed, err
	}
	if len(s.errs) > 0 {
		delete(s.errs, k)
	}
	return old, existed, nil
}

// deleteLocked removes k. The caller holds mu for writing.
func (s *Indexer[T]) deleteLocked(k keys.Key) {
	b, i, ok := s.locateLocked(k)
	if !ok {
		return
	}
	for j := range s.custom {
		s.removeMember(j, &b.mem[j][i])
	}
	// The name table is fixed up while objs still holds both the removed
	// object and the last one, which moves into its place.
	slot, _, _ := nameFind(&b.names, b.objs, k.Name)
	b.names.remove(slot)
	if last := int32(len(b.objs) - 1); i != last {
		ms, _, _ := nameFind(&b.names, b.objs, b.objs[last].GetName())
		b.names.setPos(ms, i)
	}
	b.objs, _ = removeAt(b.objs, i)
	for j := range b.mem {
		b.mem[j], _ = removeAt(b.mem[j], i)
	}
	s.count--
	if len(b.objs) == 0 {
		delete(s.buckets, k.Namespace)
	} else {
		b.objs = shrinkSlice(b.objs)
		b.names.shrink()
		for j := range b.mem {
			b.mem[j] = shrinkSlice(b.mem[j])
		}
	}
	if len(s.errs) > 0 {
		delete(s.errs, k)
	}
}

// ObjectErrors summarises the objects some index function failed on, nil
// when there are none. It names the first such key in key order.
func (s *Indexer[T]) ObjectErrors() error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if len(s.errs) == 0 {
		return nil
	}
	var first keys.Key
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

// Add stores obj, replacing the object of its key (runtime/cache's Store.Add).
func (s *Indexer[T]) Add(obj T) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rv = obj.GetResourceVersion()
	return s.putLocked(keys.Of(obj), obj)
}

// Update is Add.
func (s *Indexer[T]) Update(obj T) error { return s.Add(obj) }

// Delete removes the object of obj's key, if any.
func (s *Indexer[T]) Delete(obj T) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rv = obj.GetResourceVersion()
	s.deleteLocked(keys.Of(obj))
	return nil
}

// Get returns the stored object with obj's key.
func (s *Indexer[T]) Get(obj T) (T, bool, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	item, ok := s.getLocked(keys.Of(obj))
	return item, ok, nil
}

// GetByKey returns the stored object with the store key key; a malformed
// key is an error naming it.
func (s *Indexer[T]) GetByKey(key string) (T, bool, error) {
	k, err := keys.Parse(key)
	if err != nil {
		var zero T
		return zero, false, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	item, ok := s.getLocked(k)
	return item, ok, nil
}

// LastStoreSyncResourceVersion returns the resourceVersion the store last
// reached: that of the last object added, updated or deleted directly, of
// the last list Replace, of the last watch event ApplyDeltas applied, or of
// the last Bookmark, whichever came last ("" before any).
func (s *Indexer[T]) LastStoreSyncResourceVersion() string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.rv
}

// Bookmark records that the store reached resourceVersion without a change
// of its objects (a watch bookmark, or a list whose objects were applied
// as deltas).
func (s *Indexer[T]) Bookmark(resourceVersion string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rv = resourceVersion
}

// GetKey returns the object stored under k.
func (s *Indexer[T]) GetKey(k keys.Key) (T, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.getLocked(k)
}

// hasKey reports whether k is stored (for DeltaFIFO's known objects).
func (s *Indexer[T]) hasKey(k keys.Key) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	_, _, ok := s.locateLocked(k)
	return ok
}

// getLocked looks k up; the caller holds mu.
func (s *Indexer[T]) getLocked(k keys.Key) (T, bool) {
	b, i, ok := s.locateLocked(k)
	if !ok {
		var zero T
		return zero, false
	}
	return b.objs[i], true
}

// List returns every stored object, in a new slice.
func (s *Indexer[T]) List() []T {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]T, 0, s.count)
	for _, b := range s.buckets {
		out = append(out, b.objs...)
	}
	return out
}

// ListKeys returns the key of every stored object.
func (s *Indexer[T]) ListKeys() []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]string, 0, s.count)
	for ns, b := range s.buckets {
		for _, o := range b.objs {
			out = append(out, keys.Join(ns, o.GetName()))
		}
	}
	return out
}

// Len returns how many objects are stored.
func (s *Indexer[T]) Len() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.count
}

// Replace swaps the whole content for items. Objects an index function
// fails on are stored and left out of that index; the errors are returned.
// Each namespace's storage is sized for its objects up front.
func (s *Indexer[T]) Replace(items []T, resourceVersion string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	fresh := &Indexer[T]{
		buckets: map[string]*nsBucket[T]{},
		byName:  map[string]int{},
		errs:    map[keys.Key]error{},
		seed:    s.seed,
	}
	for _, ci := range s.custom {
		fresh.addIndexLocked(ci.name, ci.fn)
	}
	perNS := map[string]int{}
	for _, obj := range items {
		perNS[obj.GetNamespace()]++
	}
	for ns, n := range perNS {
		fresh.buckets[ns] = fresh.newBucket(n)
	}
	var errs []error
	for _, obj := range items {
		if err := fresh.putLocked(keys.Of(obj), obj); err != nil && len(errs) < 10 {
			errs = append(errs, err)
		}
	}
	s.buckets, s.count, s.custom, s.byName, s.errs = fresh.buckets, fresh.count, fresh.custom, fresh.byName, fresh.errs
	s.sizeHints = nil
	s.rv = resourceVersion
	if n := len(s.errs); n > len(errs) {
		errs = append(errs, fmt.Errorf("and %d more objects failing an index", n-len(errs)))
	}
	return errors.Join(errs...)
}

// postingLocked returns the stored objects having value in indexName, in
// the posting's own order; the caller holds mu and must not keep or modify
// the slice.
func (s *Indexer[T]) postingLocked(indexName, value string) ([]T, error) {
	if indexName == NamespaceIndex {
		if b := s.buckets[value]; b != nil {
			return b.objs, nil
		}
		return nil, nil
	}
	j, ok := s.byName[indexName]
	if !ok {
		return nil, fmt.Errorf("index %q does not exist", indexName)
	}
	if p := s.custom[j].values[value]; p != nil {
		return p.objs, nil
	}
	return nil, nil
}

// Index returns the stored objects that share at least one value of
// indexName with obj.
func (s *Indexer[T]) Index(indexName string, obj T) ([]T, error) {
	var values []string
	if indexName == NamespaceIndex {
		values = []string{obj.GetNamespace()}
	} else {
		s.mu.RLock()
		j, ok := s.byName[indexName]
		var ci *customIndex[T]
		if ok {
			ci = s.custom[j]
		}
		s.mu.RUnlock()
		if !ok {
			return nil, fmt.Errorf("index %q does not exist", indexName)
		}
		v, err := callIndex(indexName, ci.fn, obj)
		if err != nil {
			return nil, err
		}
		values = dedupValues(v)
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if len(values) == 1 {
		objs, err := s.postingLocked(indexName, values[0])
		if err != nil {
			return nil, err
		}
		return append(make([]T, 0, len(objs)), objs...), nil
	}
	seen := map[keys.Key]struct{}{}
	var out []T
	for _, v := range values {
		objs, err := s.postingLocked(indexName, v)
		if err != nil {
			return nil, err
		}
		for _, o := range objs {
			k := keys.Of(o)
			if _, dup := seen[k]; dup {
				continue
			}
			seen[k] = struct{}{}
			out = append(out, o)
		}
	}
	return out, nil
}

// ByIndex returns the stored objects whose indexName values include
// indexedValue, in a new slice.
func (s *Indexer[T]) ByIndex(indexName, indexedValue string) ([]T, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	objs, err := s.postingLocked(indexName, indexedValue)
	if err != nil {
		return nil, err
	}
	return append(make([]T, 0, len(objs)), objs...), nil
}

// AppendByIndex appends what ByIndex would return to dst.
func (s *Indexer[T]) AppendByIndex(dst []T, indexName, indexedValue string) ([]T, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	objs, err := s.postingLocked(indexName, indexedValue)
	if err != nil {
		return dst, err
	}
	return append(dst, objs...), nil
}

// IndexKeys is ByIndex returning keys.
func (s *Indexer[T]) IndexKeys(indexName, indexedValue string) ([]string, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	objs, err := s.postingLocked(indexName, indexedValue)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(objs))
	for _, o := range objs {
		out = append(out, keys.StringOf(o))
	}
	return out, nil
}

// ListIndexFuncValues returns every value indexName currently has.
func (s *Indexer[T]) ListIndexFuncValues(indexName string) []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []string
	if indexName == NamespaceIndex {
		out = make([]string, 0, len(s.buckets))
		for v := range s.buckets {
			out = append(out, v)
		}
	} else if j, ok := s.byName[indexName]; ok {
		out = make([]string, 0, len(s.custom[j].values))
		for v := range s.custom[j].values {
			out = append(out, v)
		}
	} else {
		out = []string{}
	}
	slices.Sort(out)
	return out
}

// GetIndexers returns a copy of the index functions, NamespaceIndex's
// included.
func (s *Indexer[T]) GetIndexers() Indexers[T] {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make(Indexers[T], len(s.custom)+1)
	for _, ci := range s.custom {
		out[ci.name] = ci.fn
	}
	out[NamespaceIndex] = namespaceOf[T]
	return out
}

// AddIndexers adds index functions and indexes the stored objects with
// them (see runtime/cache's Indexer.AddIndexers for the rules).
func (s *Indexer[T]) AddIndexers(newIndexers Indexers[T]) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	names := make([]string, 0, len(newIndexers))
	for name, fn := range newIndexers {
		switch _, exists := s.byName[name]; {
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
		ci := s.addIndexLocked(name, fn)
		j := len(s.custom) - 1
		for _, b := range s.buckets {
			for i, obj := range b.objs {
				vals, err := callIndex(name, fn, obj)
				if err != nil {
					k := keys.Of(obj)
					s.errs[k] = errors.Join(s.errs[k], err)
					if len(errs) < 10 {
						errs = append(errs, err)
					}
					continue
				}
				addMember(ci, &b.mem[j][i], dedupValues(vals), obj)
			}
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("AddIndexers: the indexes were added, leaving out objects their functions failed on: %w", errors.Join(errs...))
	}
	return nil
}

// HasKey reports whether the object with key k is stored. It makes the store
// the informer's queue feeds a deltafifo.KeyIndex, so that a watch delete is
// checked against the store without building the key's string. It takes the
// read lock.
func (s *Indexer[T]) HasKey(k keys.Key) bool {
	return s.hasKey(k)
}
