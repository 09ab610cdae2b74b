package deltafifo

import (
	"errors"
	"reflect"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func TestDeltaFIFODeltasPopInArrivalOrderAcrossKeys(t *testing.T) {
	f := New[*corev1.Pod](nil)
	f.Add(pod("ns", "a", "1"))
	f.Add(pod("ns", "b", "2"))
	f.Update(pod("ns", "a", "3"))
	f.Delete(pod("ns", "a", "4"))
	got := popAll(t, f)
	want := []string{"ns/a=Added:1", "ns/b=Added:2", "ns/a=Updated:3", "ns/a=Deleted:4"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

// The example: a is deleted and re-created while the first list is
// still queued. Nothing of the watch may overtake b's initial add, and only
// the list's deltas are initial.
func TestDeltaFIFOWatchEventsDuringTheFirstListStayBehindItAndAreNotInitial(t *testing.T) {
	f := New[*corev1.Pod](knownWith(t))
	if err := f.Replace([]*corev1.Pod{pod("ns", "a", "1"), pod("ns", "b", "2")}, "2"); err != nil {
		t.Fatal(err)
	}
	f.Delete(pod("ns", "a", "3"))
	f.Add(pod("ns", "a", "4"))
	var got []string
	for f.Len() > 0 {
		f.PopBatch(16, func(batch []Delta[*corev1.Pod], initial bool) error {
			for _, d := range batch {
				s := d.Key() + "=" + deltaString(d)
				if initial {
					s += " initial"
				}
				got = append(got, s)
			}
			return nil
		})
	}
	want := []string{"ns/a=Replaced:1 initial", "ns/b=Replaced:2 initial", "ns/a=Deleted:3", "ns/a=Added:4"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v\nwant %v", got, want)
	}
}

// A delete is queued whether or not its key is known or queued: the
// informer tells its handlers of every watch deletion, as client-go does.
func TestDeltaFIFODeleteOfUnknownKeyIsQueued(t *testing.T) {
	f := New[*corev1.Pod](knownWith(t, pod("ns", "known", "1")))
	f.Delete(pod("ns", "ghost", "2"))
	f.Delete(pod("ns", "known", "3"))
	f.Add(pod("ns", "new", "4"))
	f.Delete(pod("ns", "new", "5"))
	want := []string{"ns/ghost=Deleted:2", "ns/known=Deleted:3", "ns/new=Added:4", "ns/new=Deleted:5"}
	if got := popAll(t, f); !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v\nwant %v", got, want)
	}
	// Popped and processed, and not known: still queued.
	f.Delete(pod("ns", "new", "6"))
	if got := popAll(t, f); !reflect.DeepEqual(got, []string{"ns/new=Deleted:6"}) {
		t.Fatalf("got %v", got)
	}
}

// Tombstones come first: those of queued keys in order of first appearance,
// then those of known keys in key order; then the list, in list order.
func TestDeltaFIFOReplaceQueuesTombstonesThenItemsInListOrder(t *testing.T) {
	known := knownWith(t, pod("ns", "stays", "1"), pod("ns", "gone", "2"), pod("ns", "also-gone", "3"))
	f := New[*corev1.Pod](known)
	f.Add(pod("ns", "queued-only", "4")) // queued, never reached the store
	if err := f.Replace([]*corev1.Pod{pod("ns", "stays", "5"), pod("ns", "new", "6")}, "6"); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"ns/queued-only=Added:4",
		"ns/queued-only=Deleted(tombstone):4",
		"ns/also-gone=Deleted(tombstone):3",
		"ns/gone=Deleted(tombstone):2",
		"ns/stays=Replaced:5",
		"ns/new=Replaced:6",
	}
	if got := popAll(t, f); !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v\nwant %v", got, want)
	}
}

func TestDeltaFIFOReplaceTombstoneCarriesNewestQueuedState(t *testing.T) {
	known := knownWith(t, pod("ns", "a", "1"))
	f := New[*corev1.Pod](known)
	f.Update(pod("ns", "a", "2"))
	f.Replace(nil, "3")
	if got := popAll(t, f); !reflect.DeepEqual(got, []string{"ns/a=Updated:2", "ns/a=Deleted(tombstone):2"}) {
		t.Fatalf("got %v", got)
	}
}

func TestDeltaFIFOReplaceSkipsTombstoneWhenLastQueuedDeltaIsADelete(t *testing.T) {
	known := knownWith(t, pod("ns", "a", "1"))
	f := New[*corev1.Pod](known)
	f.Delete(pod("ns", "a", "2"))
	f.Replace(nil, "3")
	if got := popAll(t, f); !reflect.DeepEqual(got, []string{"ns/a=Deleted:2"}) {
		t.Fatalf("got %v", got)
	}
}

func TestDeltaFIFOResyncQueuesSyncOnlyForKnownKeysWithNothingQueued(t *testing.T) {
	known := knownWith(t, pod("ns", "idle", "1"), pod("ns", "busy", "2"))
	f := New[*corev1.Pod](known)
	f.Update(pod("ns", "busy", "3"))
	f.Resync()
	want := []string{"ns/busy=Updated:3", "ns/idle=Sync:1"}
	if got := popAll(t, f); !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

func TestDeltaFIFOHasSyncedAfterFirstReplaceIsPoppedAndProcessed(t *testing.T) {
	f := New[*corev1.Pod](knownWith(t))
	if f.HasSynced() {
		t.Fatal("synced before anything happened")
	}
	f.Replace([]*corev1.Pod{pod("ns", "a", "1"), pod("ns", "b", "2")}, "2")
	f.Add(pod("ns", "c", "3")) // after the Replace: not part of the initial population
	var initialFlags []bool
	for i := 0; i < 2; i++ {
		f.Pop(func(d Delta[*corev1.Pod], initial bool) error {
			initialFlags = append(initialFlags, initial)
			if f.HasSynced() {
				t.Errorf("synced while processing initial delta %s", d.Key())
			}
			return nil
		})
	}
	if !f.HasSynced() {
		t.Fatal("not synced after both initial deltas were processed")
	}
	f.Pop(func(_ Delta[*corev1.Pod], initial bool) error {
		initialFlags = append(initialFlags, initial)
		return nil
	})
	if !reflect.DeepEqual(initialFlags, []bool{true, true, false}) {
		t.Fatalf("isInInitialList flags %v", initialFlags)
	}
}

func TestDeltaFIFOHasSyncedWhenAnEventCameBeforeAnyReplace(t *testing.T) {
	f := New[*corev1.Pod](nil)
	f.Add(pod("ns", "a", "1"))
	if !f.HasSynced() {
		t.Fatal("an Add before any Replace should count as synced")
	}
}

func TestDeltaFIFOEmptyFirstReplaceSyncsAtOnce(t *testing.T) {
	f := New[*corev1.Pod](knownWith(t))
	f.Replace(nil, "1")
	if !f.HasSynced() {
		t.Fatal("an empty first list should be synced")
	}
}

func TestDeltaFIFOBatchNeverMixesInitialAndLaterDeltas(t *testing.T) {
	f := New[*corev1.Pod](knownWith(t))
	f.Replace([]*corev1.Pod{pod("ns", "a", "1"), pod("ns", "b", "2")}, "2")
	f.Add(pod("ns", "c", "3"))
	f.Update(pod("ns", "a", "4"))
	var got []string
	for f.Len() > 0 {
		err := f.PopBatch(10, func(batch []Delta[*corev1.Pod], initial bool) error {
			s := ""
			for _, d := range batch {
				s += d.Key() + " "
			}
			if initial {
				s += "initial"
				if f.HasSynced() {
					t.Error("synced before the initial batch was processed")
				}
			}
			got = append(got, s)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	want := []string{"ns/a ns/b initial", "ns/c ns/a "}
	if !reflect.DeepEqual(got, want) || !f.HasSynced() {
		t.Fatalf("batches %q synced %v, want %q", got, f.HasSynced(), want)
	}
}

func TestDeltaFIFOProcessErrorIsReturnedAndDeltasConsumed(t *testing.T) {
	f := New[*corev1.Pod](nil)
	f.Add(pod("ns", "b", "3"))
	boom := errors.New("boom")
	if err := f.Pop(func(Delta[*corev1.Pod], bool) error { return boom }); !errors.Is(err, boom) {
		t.Fatalf("Pop returned %v", err)
	}
	if f.Len() != 0 {
		t.Fatal("an error left the delta queued")
	}
}

func TestDeltaFIFOCloseWakesBlockedPop(t *testing.T) {
	f := New[*corev1.Pod](nil)
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	for i := 0; i < 2; i++ {
		wg.Go(func() {
			errs <- f.Pop(func(Delta[*corev1.Pod], bool) error { return nil })
		})
	}
	f.Close()
	wg.Wait()
	close(errs)
	for err := range errs {
		if !errors.Is(err, ErrClosed) {
			t.Fatalf("Pop after Close returned %v", err)
		}
	}
	if !f.IsClosed() {
		t.Fatal("IsClosed false after Close")
	}
}

func TestDeltaFIFOEveryDeltaIsQueued(t *testing.T) {
	f := New[*corev1.Pod](nil)
	for i := 0; i < 5; i++ {
		f.Update(pod("ns", "a", "1"))
	}
	if f.Len() != 5 || len(f.Queued()) != 5 {
		t.Fatalf("queue %v", f.Queued())
	}
}

// The queue's backing array is reused once drained and compacted when its
// head grows: a long run keeps its order and its memory bounded.
func TestDeltaFIFOLongRunKeepsOrderAcrossCompaction(t *testing.T) {
	f := New[*corev1.Pod](nil)
	next, want := 0, 0
	for round := 0; round < 50; round++ {
		for i := 0; i < 100; i++ {
			f.Add(pod("ns", "a", itoa(next)))
			next++
		}
		for i := 0; i < 60; i++ {
			f.Pop(func(d Delta[*corev1.Pod], _ bool) error {
				if got := d.Object.ResourceVersion; got != itoa(want) {
					t.Fatalf("popped rv %s, want %d", got, want)
				}
				want++
				return nil
			})
		}
	}
	if f.Len() != next-want {
		t.Fatalf("Len %d, want %d", f.Len(), next-want)
	}
	if c := cap(f.items); c > 8*(next-want) {
		t.Fatalf("queue array cap %d for %d queued deltas", c, next-want)
	}
}

func itoa(i int) string {
	const digits = "0123456789"
	if i == 0 {
		return "0"
	}
	var b []byte
	for ; i > 0; i /= 10 {
		b = append([]byte{digits[i%10]}, b...)
	}
	return string(b)
}

// A drained queue does not keep the array of a large burst (an initial
// list) alive.
func TestDeltaFIFODrainedQueueDropsTheArraysOfABurst(t *testing.T) {
	f := New[*corev1.Pod](knownWith(t))
	list := make([]*corev1.Pod, 2*shrinkAbove)
	for i := range list {
		list[i] = pod("ns", itoa(i), "1")
	}
	f.Replace(list, "1")
	for f.Len() > 0 {
		f.PopBatch(256, func([]Delta[*corev1.Pod], bool) error { return nil })
	}
	if cap(f.items) > shrinkAbove {
		t.Fatalf("drained queue keeps an array of cap %d", cap(f.items))
	}
	f.Add(pod("ns", "late", "2"))
	if got := popAll(t, f); len(got) != 1 || got[0] != "ns/late=Added:2" {
		t.Fatalf("after shrinking: %v", got)
	}
}

// A Replace that queued a tombstone pops as one batch, however large, and
// the batch before it stops where it starts; one without tombstones is
// popped maxBatch at a time.
func TestDeltaFIFOReplaceWithTombstonesPopsAsOneBatch(t *testing.T) {
	known := knownWith(t, pod("ns", "gone", "1"))
	f := New[*corev1.Pod](known)
	f.Add(pod("ns", "x", "2"))
	f.Replace([]*corev1.Pod{pod("ns", "a", "3"), pod("ns", "b", "4"), pod("ns", "c", "5")}, "5")
	f.Replace([]*corev1.Pod{pod("ns", "a", "3"), pod("ns", "b", "4"), pod("ns", "c", "5")}, "5")
	var got [][]string
	for f.Len() > 0 {
		f.PopBatch(2, func(batch []Delta[*corev1.Pod], _ bool) error {
			var b []string
			for _, d := range batch {
				b = append(b, d.Key()+"="+deltaString(d))
			}
			got = append(got, b)
			return nil
		})
	}
	want := [][]string{
		{"ns/x=Added:2"},
		{"ns/x=Deleted(tombstone):2", "ns/gone=Deleted(tombstone):1", "ns/a=Replaced:3", "ns/b=Replaced:4", "ns/c=Replaced:5"},
		{"ns/a=Replaced:3", "ns/b=Replaced:4"},
		{"ns/c=Replaced:5"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("batches %v\nwant %v", got, want)
	}
}
