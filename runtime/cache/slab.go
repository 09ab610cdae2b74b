package cache

import (
	"reflect"
	"slices"
	"unsafe"
)

// Zero-copy lists with bounded pinning.
//
// A list whose Items is []X is decoded into one array, called a slab here.
// The reflector hands the store &Items[i] rather than a copy of each item
// (see extractList): a sync then allocates and copies nothing per object.
// The price is that one stored object keeps its whole slab alive, and with
// it the top-level structs of every other item of the list. To bound that,
// the store counts, per registered slab, how many of its current objects
// (map and indexes: they hold the same pointers) live in the slab, and once
// a slab holds fewer current objects than half of its elements (its
// capacity: the whole array is what stays allocated) it compacts the slab:
// each of those objects is replaced, in the store and in every index
// posting, by a shallow copy in an allocation of its own, and the slab is
// forgotten. The store then no longer reaches it.
//
// So, once a list's deltas have been applied, the store keeps at most twice
// the top-level structs of the listed objects it holds; strings, maps and
// slices inside them are shared between an object and its copy, as they
// always were. What handlers or other callers keep of the objects they were
// given is theirs: it may keep a slab alive, outside this bound.
//
// Counting:
//   - live: current store objects inside the slab. Every store write looks up
//     the address of the object it stores and of the one it drops; with no
//     slab registered (the steady state of a watch-only informer) that is
//     one length check.
//   - pending: listed objects handed to the DeltaFIFO and not yet applied
//     (their Replaced delta not yet popped). A slab is left alone while
//     any registered slab has pending objects: during a sync live grows from
//     0, and during a relist the old slabs' objects are about to be
//     replaced by the new list's, which would make a copy now wasted work.
//     Once nothing is pending, every slab is settled: dropped from the table
//     when it holds no current object, compacted when it holds fewer than
//     half.
//
// Slabs are used only when T is a pointer to a struct type (so that an
// object's pointer is its address); otherwise the reflector copies every
// item, as it always did. All of it runs under the indexer's mutex.

// slab is one registered list array.
type slab struct {
	// base is element 0. It keeps the array alive while the slab is
	// registered, so that no other allocation can reuse its addresses.
	base       unsafe.Pointer
	start, end uintptr // [start, end) spans all cap elements
	size       uintptr // element size
	elem       reflect.Type
	len, cap   int
	// live counts the store's current objects inside the slab; pending
	// the listed objects inside it whose Replaced delta was not applied
	// yet. The reflector sets pending when it registers the slab.
	live, pending int
}

// contains reports whether address a lies in the slab's array.
func (sl *slab) contains(a uintptr) bool { return a >= sl.start && a < sl.end }

// at returns element i of the slab's array as a T, which is *elem.
func slabItem[T Object](sl *slab, i int) T {
	p := unsafe.Add(sl.base, uintptr(i)*sl.size)
	return *(*T)(unsafe.Pointer(&p))
}

// newSlab describes the array holding items, whose element type is elem and
// whose first element is at base; it spans capacity elements.
func newSlab(base unsafe.Pointer, elem reflect.Type, length, capacity int) *slab {
	start := uintptr(base)
	return &slab{base: base, start: start, end: start + uintptr(capacity)*elem.Size(), size: elem.Size(), elem: elem, len: length, cap: capacity}
}

// slabTable is a store's registered slabs, guarded by the store's mutex.
type slabTable struct {
	// on is set when T is a pointer to a struct: only then can objects
	// point into slabs.
	on bool
	// slabs is sorted by start; pending sums their pending counts.
	slabs   []*slab
	pending int
}

// slabsUsable reports whether T is a pointer to a struct type, the shape
// whose objects can be handed out as pointers into a list's Items array.
func slabsUsable[T Object]() bool {
	t := reflect.TypeFor[T]()
	return t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Struct && t.Elem().Size() > 0
}

// ptrOf returns the pointer obj is; T must be a pointer type (see
// slabsUsable).
func ptrOf[T Object](obj T) unsafe.Pointer {
	return *(*unsafe.Pointer)(unsafe.Pointer(&obj))
}

// addrOf returns the address obj points to; T must be a pointer type.
func addrOf[T Object](obj T) uintptr { return uintptr(ptrOf(obj)) }

// find returns the registered slab containing address a, or nil.
func (t *slabTable) find(a uintptr) *slab {
	i, found := slices.BinarySearchFunc(t.slabs, a, func(sl *slab, a uintptr) int {
		switch {
		case sl.end <= a:
			return -1
		case sl.start > a:
			return 1
		}
		return 0
	})
	if !found {
		return nil
	}
	return t.slabs[i]
}

// remove forgets sl.
func (t *slabTable) remove(sl *slab) {
	if i := slices.Index(t.slabs, sl); i >= 0 {
		t.slabs = slices.Delete(t.slabs, i, i+1)
		t.pending -= sl.pending
	}
}

// slabOfLocked returns the registered slab obj points into, or nil. The
// caller holds mu.
func (s *threadSafeIndexer[T]) slabOfLocked(obj T) *slab {
	if len(s.slabs.slabs) == 0 {
		return nil
	}
	return s.slabs.find(addrOf(obj))
}

// registerSlabs records slabs whose pending objects are about to be queued
// for this store (see reflector.list). Slabs that overlap a registered one
// are skipped: the same array listed twice (a source serving one list
// object again) is already counted.
func (s *threadSafeIndexer[T]) registerSlabs(slabs []*slab) []*slab {
	s.mu.Lock()
	defer s.mu.Unlock()
	added := slabs[:0:0]
	for _, sl := range slabs {
		if !s.slabs.on || s.slabs.find(sl.start) != nil || s.slabs.find(sl.end-1) != nil {
			continue
		}
		i, _ := slices.BinarySearchFunc(s.slabs.slabs, sl.start, func(x *slab, a uintptr) int {
			if x.start < a {
				return -1
			}
			return 1
		})
		s.slabs.slabs = slices.Insert(s.slabs.slabs, i, sl)
		s.slabs.pending += sl.pending
		added = append(added, sl)
	}
	return added
}

// unregisterSlabs forgets slabs whose objects were not queued after all
// (the sink refused the list). Objects of theirs the store already holds
// would stay uncounted, so slabs with live objects are kept and only stop
// waiting for pending ones.
func (s *threadSafeIndexer[T]) unregisterSlabs(slabs []*slab) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, sl := range slabs {
		s.slabs.pending -= sl.pending
		sl.pending = 0
		if sl.live == 0 {
			s.slabs.remove(sl)
		}
	}
	s.settleSlabsLocked()
}

// abandonPendingSlabs stops waiting for listed objects that will never be
// applied (the informer stopped with deltas queued) and settles the slabs.
func (s *threadSafeIndexer[T]) abandonPendingSlabs() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, sl := range s.slabs.slabs {
		sl.pending = 0
	}
	s.slabs.pending = 0
	s.settleSlabsLocked()
}

// slabStoredLocked accounts for the store replacing old (when existed) by
// obj under one key, after the store and its indexes hold obj. The caller
// holds mu for writing.
func (s *threadSafeIndexer[T]) slabStoredLocked(old T, existed bool, obj T) {
	if len(s.slabs.slabs) == 0 {
		return
	}
	na := addrOf(obj)
	if existed && addrOf(old) == na {
		return
	}
	if sl := s.slabs.find(na); sl != nil {
		sl.live++
	}
	if existed {
		s.slabDroppedLocked(old)
	}
}

// slabDroppedLocked accounts for the store no longer holding old, after it
// was removed or replaced everywhere. The caller holds mu for writing.
func (s *threadSafeIndexer[T]) slabDroppedLocked(old T) {
	if sl := s.slabOfLocked(old); sl != nil {
		sl.live--
		s.settleSlabLocked(sl)
	}
}

// slabAppliedLocked accounts for the Replaced delta of obj having been
// applied. The caller holds mu for writing.
func (s *threadSafeIndexer[T]) slabAppliedLocked(obj T) {
	sl := s.slabOfLocked(obj)
	if sl == nil || sl.pending == 0 {
		return
	}
	sl.pending--
	s.slabs.pending--
	if s.slabs.pending == 0 {
		s.settleSlabsLocked()
	}
}

// settleSlabsLocked settles every registered slab.
func (s *threadSafeIndexer[T]) settleSlabsLocked() {
	for _, sl := range slices.Clone(s.slabs.slabs) {
		s.settleSlabLocked(sl)
	}
}

// settleSlabLocked drops sl when the store holds none of its objects and
// compacts it when it holds fewer than half of its elements; nothing is
// done while any slab's listed objects are still pending.
func (s *threadSafeIndexer[T]) settleSlabLocked(sl *slab) {
	if s.slabs.pending > 0 {
		return
	}
	switch {
	case sl.live == 0:
		s.slabs.remove(sl)
	case 2*sl.live < sl.cap:
		s.compactSlabLocked(sl)
		s.slabs.remove(sl)
	}
}

// compactSlabLocked replaces each current object inside sl, in the store
// and in every index posting, by a shallow copy of its own. It finds them
// through the slab's own elements: the key of element i is looked up, and
// the stored object is replaced when it is that element.
func (s *threadSafeIndexer[T]) compactSlabLocked(sl *slab) {
	for i := 0; i < sl.len && sl.live > 0; i++ {
		item := slabItem[T](sl, i)
		b, at, ok := s.locateLocked(keyOfObj(item))
		if !ok || addrOf(b.objs[at]) != addrOf(item) {
			continue
		}
		c := copyItem[T](sl.elem, item)
		b.objs[at] = c
		for j, ci := range s.custom {
			refreshMember(ci, &b.mem[j][at], c)
		}
		sl.live--
	}
}

// copyItem returns a shallow copy of *item, of type elem, in an allocation
// of its own.
func copyItem[T Object](elem reflect.Type, item T) T {
	p := reflect.New(elem)
	p.Elem().Set(reflect.NewAt(elem, ptrOf(item)).Elem())
	q := p.UnsafePointer()
	return *(*T)(unsafe.Pointer(&q))
}

// recountSlabsLocked recomputes every slab's live count from the store's
// content (after Replace swapped it) and settles the slabs.
func (s *threadSafeIndexer[T]) recountSlabsLocked() {
	if len(s.slabs.slabs) == 0 {
		return
	}
	for _, sl := range s.slabs.slabs {
		sl.live = 0
	}
	for _, b := range s.buckets {
		for _, obj := range b.objs {
			if sl := s.slabs.find(addrOf(obj)); sl != nil {
				sl.live++
			}
		}
	}
	s.settleSlabsLocked()
}
