package deltafifo

import (
	"fmt"
	"reflect"
	"testing"
	"unsafe"

	corev1 "k8s.io/api/core/v1"
)

// A list queued while a batch is being processed lands behind the deltas
// still queued and its tombstones, in list order, even when queueing it moves the queue to a
// new array; the batch being processed is not queued again.
func TestDeltaFIFOReplaceDuringABatchKeepsTheQueuedDeltasAheadOfTheList(t *testing.T) {
	store := knownWith(t)
	f := New[*corev1.Pod](store)
	for i := range 20 {
		f.Add(pod("ns", fmt.Sprintf("a%02d", i), fmt.Sprint(i)))
	}
	list := make([]*corev1.Pod, 100)
	for i := range list {
		list[i] = pod("ns", fmt.Sprintf("b%03d", i), fmt.Sprint(100+i))
	}
	popApplying(t, f, store, func() error { return f.Replace(list, "200") })
	var want []string
	for i := 16; i < 20; i++ {
		want = append(want, fmt.Sprintf("ns/a%02d=Added:%d", i, i))
	}
	// a00..a15 being processed and a16..a19 queued all count as queued:
	// each is tombstoned, in order of first appearance, before the list.
	for i := range 20 {
		want = append(want, fmt.Sprintf("ns/a%02d=Deleted(tombstone):%d", i, i))
	}
	for i := range list {
		want = append(want, fmt.Sprintf("ns/b%03d=Replaced:%d", i, 100+i))
	}
	if got := popAll(t, f); !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v\nwant %v", got, want)
	}
}

// Queueing a list into a queue with nothing queued or known allocates the
// queue's array once, sized for the list, and nothing else: no set of the
// listed keys (there is nothing to tombstone), no regrowth.
func TestDeltaFIFOFirstReplaceAllocatesOnlyTheQueue(t *testing.T) {
	list := make([]*corev1.Pod, 1000)
	for i := range list {
		list[i] = pod("ns", fmt.Sprint(i), "1")
	}
	for _, known := range []KnownObjects[*corev1.Pod]{nil, emptyKnown{}} {
		allocs := testing.AllocsPerRun(10, func() {
			f := New[*corev1.Pod](known)
			if err := f.Replace(list, "1"); err != nil {
				t.Fatal(err)
			}
			if f.Len() != len(list) {
				t.Fatalf("queued %d deltas, want %d", f.Len(), len(list))
			}
		})
		// New's queue, and the array of deltas.
		if allocs > 2 {
			t.Errorf("known %T: a first Replace of %d objects made %v allocations, want at most 2", known, len(list), allocs)
		}
	}
}

// emptyKnown is a store holding nothing.
type emptyKnown struct{}

func (emptyKnown) ListKeys() []string                         { return nil }
func (emptyKnown) GetByKey(string) (*corev1.Pod, bool, error) { return nil, false, nil }

// A queued list costs 16 bytes per object (a pointer and the small fields
// in one word), not 24.
func TestDeltaOfAPointerIsTwoWords(t *testing.T) {
	if got := unsafe.Sizeof(Delta[*corev1.Pod]{}); got != 16 {
		t.Fatalf("Delta[*Pod] is %d bytes, want 16", got)
	}
}
