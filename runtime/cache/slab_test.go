package cache

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/typedinformer/typedinformer/internal/deltafifo"
)

// slabStore returns a store with a custom "node" index holding the n pods
// of a fresh list (Items of capacity c) applied as the first list's
// Replaced deltas, the list's slab registered as the reflector does.
func slabStore(t *testing.T, n, c int) (*threadSafeIndexer[*corev1.Pod], *corev1.PodList, *slab) {
	t.Helper()
	s := newThreadSafeIndexer[*corev1.Pod](Indexers[*corev1.Pod]{"node": func(p *corev1.Pod) ([]string, error) { return []string{p.Spec.NodeName}, nil }})
	list, sl := slabList(t, n, c, "1")
	if got := s.registerSlabs([]*slab{sl}); len(got) != 1 {
		t.Fatalf("slab not registered")
	}
	applyList(t, s, list, true)
	return s, list, sl
}

// slabList returns a list of n pods at rv, in an Items array of capacity c,
// and its slab with every item pending.
func slabList(t *testing.T, n, c int, rv string) (*corev1.PodList, *slab) {
	t.Helper()
	list := &corev1.PodList{Items: make([]corev1.Pod, 0, c)}
	for i := 0; i < n; i++ {
		list.Items = append(list.Items, corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: fmt.Sprintf("p%d", i), ResourceVersion: rv},
			Spec:       corev1.PodSpec{NodeName: fmt.Sprintf("node%d", i%2)},
		})
	}
	items, sl, _, err := extractList[*corev1.Pod](list, true)
	if err != nil || sl == nil {
		t.Fatalf("extractList: %v, slab %v", err, sl)
	}
	for i, p := range items {
		if p != &list.Items[i] {
			t.Fatalf("item %d is not &Items[%d]", i, i)
		}
	}
	sl.pending = n
	return list, sl
}

// applyList applies list's items as Replaced deltas, returning the
// notifications.
func applyList(t *testing.T, s *threadSafeIndexer[*corev1.Pod], list *corev1.PodList, initial bool) []notification[*corev1.Pod] {
	t.Helper()
	var notes []notification[*corev1.Pod]
	for i := range list.Items {
		notes, _ = s.applyDeltas([]deltafifo.Delta[*corev1.Pod]{{Type: deltafifo.Replaced, Object: &list.Items[i]}}, initial, notes)
	}
	return notes
}

// apply applies one delta and returns its notification.
func apply(t *testing.T, s *threadSafeIndexer[*corev1.Pod], typ deltafifo.DeltaType, obj *corev1.Pod) notification[*corev1.Pod] {
	t.Helper()
	notes, errs := s.applyDeltas([]deltafifo.Delta[*corev1.Pod]{{Type: typ, Object: obj}}, false, nil)
	if errs != nil || len(notes) != 1 {
		t.Fatalf("%v of %s: notes %v, errors %v", typ, obj.Name, notes, errs)
	}
	return notes[0]
}

// inArray reports whether p points into list's Items array.
func inArray(list *corev1.PodList, p *corev1.Pod) bool {
	for i := range list.Items[:cap(list.Items)] {
		if p == &list.Items[:cap(list.Items)][i] {
			return true
		}
	}
	return false
}

// checkSlabs checks the slab table against the store: each slab's live
// count is the number of stored objects inside it, the pending total is the
// sum, and every index posting holds its key's stored object.
func checkSlabs(t *testing.T, s *threadSafeIndexer[*corev1.Pod]) {
	t.Helper()
	s.mu.RLock()
	defer s.mu.RUnlock()
	pending := 0
	for _, sl := range s.slabs.slabs {
		live := 0
		for _, b := range s.buckets {
			for _, o := range b.objs {
				if sl.contains(addrOf(o)) {
					live++
				}
			}
		}
		if live != sl.live {
			t.Errorf("slab at %#x: live %d, the store holds %d objects in it", sl.start, sl.live, live)
		}
		pending += sl.pending
	}
	if pending != s.slabs.pending {
		t.Errorf("pending total %d, slabs sum to %d", s.slabs.pending, pending)
	}
	for _, ci := range s.custom {
		for v, p := range ci.values {
			for _, o := range p.objs {
				cur, ok := s.getLocked(keyOfObj(o))
				if !ok || cur != o {
					t.Errorf("index %s value %s holds a stale object of %s", ci.name, v, keyOf(o))
				}
			}
		}
	}
}

// TestSlabCompactionThresholdUsesCapacity lists 4 pods in an array of
// capacity 8: 4 current objects are half of it (kept, no copy); one update
// leaves 3, fewer than half of the 8 elements the array holds, and the
// other 3 are copied out, in the store and the index.
func TestSlabCompactionThresholdUsesCapacity(t *testing.T) {
	s, list, _ := slabStore(t, 4, 8)
	checkSlabs(t, s)
	for i := range list.Items {
		if got, _ := s.getLocked(objKey{"ns", list.Items[i].Name}); got != &list.Items[i] {
			t.Fatalf("p%d: stored a copy before any compaction", i)
		}
	}
	fresh := pod("ns", "p0", "2")
	fresh.Spec.NodeName = "node0"
	apply(t, s, deltafifo.Updated, fresh)
	checkSlabs(t, s)
	if n := len(s.slabs.slabs); n != 0 {
		t.Fatalf("%d slabs still registered after the compaction, want 0", n)
	}
	for i := 1; i < 4; i++ {
		got, _, _ := s.GetByKey("ns/p" + fmt.Sprint(i))
		if inArray(list, got) {
			t.Errorf("p%d still points into the list after the compaction", i)
		}
		if got.Name != list.Items[i].Name || got.Spec.NodeName != list.Items[i].Spec.NodeName || got.ResourceVersion != "1" {
			t.Errorf("p%d: compacted copy %+v differs from the listed item", i, got.ObjectMeta)
		}
		byNode, _ := s.ByIndex("node", got.Spec.NodeName)
		found := false
		for _, o := range byNode {
			if inArray(list, o) {
				t.Errorf("index node=%s still holds an object pointing into the list", got.Spec.NodeName)
			}
			found = found || o == got
		}
		if !found {
			t.Errorf("index node=%s lacks p%d's copy", got.Spec.NodeName, i)
		}
	}
}

// TestSlabSyncAfterCompactionKeepsTheCopy queues a resync of an object
// whose slab is then compacted: the Sync delta carries the slab's element,
// and applying it must keep the compacted copy (storing the element again
// would pin the array, uncounted).
func TestSlabSyncAfterCompactionKeepsTheCopy(t *testing.T) {
	s, list, _ := slabStore(t, 4, 4)
	queued := &list.Items[3] // what Resync read from the store
	for i := 0; i < 3; i++ {
		apply(t, s, deltafifo.Updated, pod("ns", fmt.Sprintf("p%d", i), "2"))
	}
	cp, _, _ := s.GetByKey("ns/p3")
	if cp == queued {
		t.Fatal("p3 was not compacted")
	}
	n := apply(t, s, deltafifo.Sync, queued)
	got, _, _ := s.GetByKey("ns/p3")
	if got != cp || n.obj != cp || n.old != cp || !n.resync {
		t.Errorf("after the Sync the store holds %p (copy %p, element %p); notification old %p new %p resync %v", got, cp, queued, n.old, n.obj, n.resync)
	}
	checkSlabs(t, s)
}

// TestSlabRelistDefersCompaction relists the same keys into a new array:
// while the new list is pending, the old array must not be compacted
// (its objects are being replaced anyway), so every replaced object handed
// to OnUpdate as old is the old list's element, never a copy; afterwards
// only the new array is registered.
func TestSlabRelistDefersCompaction(t *testing.T) {
	s, old, _ := slabStore(t, 6, 6)
	list, sl := slabList(t, 6, 6, "2")
	s.registerSlabs([]*slab{sl})
	notes := applyList(t, s, list, false)
	for i, n := range notes {
		if n.kind != notifyUpdate || n.old != &old.Items[i] {
			t.Errorf("relisted p%d: old object %p, want the first list's element %p (compacted during the relist?)", i, n.old, &old.Items[i])
		}
		if n.obj != &list.Items[i] {
			t.Errorf("relisted p%d: stored a copy of the new list's item", i)
		}
	}
	if len(s.slabs.slabs) != 1 || s.slabs.slabs[0] != sl || sl.live != 6 {
		t.Errorf("slabs after the relist: %d registered, want only the new one with 6 live", len(s.slabs.slabs))
	}
	checkSlabs(t, s)
}

// TestSlabPendingAbandonedOrUnregistered covers listed objects that never
// reach the store: an informer that stops with them queued
// (abandonPendingSlabs settles the slab: its one applied object is copied
// out), and a list the sink refused (unregisterSlabs forgets the slab).
func TestSlabPendingAbandonedOrUnregistered(t *testing.T) {
	s := newThreadSafeIndexer[*corev1.Pod](nil)
	list, sl := slabList(t, 4, 4, "1")
	s.registerSlabs([]*slab{sl})
	apply(t, s, deltafifo.Replaced, &list.Items[0])
	if got, _, _ := s.GetByKey("ns/p0"); got != &list.Items[0] || len(s.slabs.slabs) != 1 {
		t.Fatalf("p0 stored as a copy, or the slab dropped, while 3 objects are pending")
	}
	s.abandonPendingSlabs()
	if got, _, _ := s.GetByKey("ns/p0"); got == &list.Items[0] || len(s.slabs.slabs) != 0 {
		t.Errorf("after abandoning the pending objects: p0 still the element (%v) or slabs left (%d)", got == &list.Items[0], len(s.slabs.slabs))
	}
	checkSlabs(t, s)

	_, sl2 := slabList(t, 4, 4, "1")
	s.registerSlabs([]*slab{sl2})
	s.unregisterSlabs([]*slab{sl2})
	if len(s.slabs.slabs) != 0 || s.slabs.pending != 0 {
		t.Errorf("after unregistering: %d slabs, %d pending", len(s.slabs.slabs), s.slabs.pending)
	}
}

// TestSlabStoreReplaceRecounts swaps the store's content through the
// public Replace, keeping one of four listed objects: the slab's count is
// recomputed and the survivor copied out.
func TestSlabStoreReplaceRecounts(t *testing.T) {
	s, list, _ := slabStore(t, 4, 4)
	if err := s.Replace([]*corev1.Pod{pod("ns", "p0", "3"), pod("ns", "p1", "3"), pod("ns", "p2", "3"), &list.Items[3]}, "3"); err != nil {
		t.Fatal(err)
	}
	if got, _, _ := s.GetByKey("ns/p3"); got == &list.Items[3] || got.ResourceVersion != "1" || len(s.slabs.slabs) != 0 {
		t.Errorf("after Replace: p3 still the element (%v), slabs left %d", got == &list.Items[3], len(s.slabs.slabs))
	}
	checkSlabs(t, s)
}
