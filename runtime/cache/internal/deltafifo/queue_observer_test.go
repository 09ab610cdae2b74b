package deltafifo

import (
	"slices"
	"strconv"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// recObserver records what a Queue tells its Observer, in order.
type recObserver struct{ calls []string }

func (o *recObserver) Queued(n int)      { o.calls = append(o.calls, "queued "+strconv.Itoa(n)) }
func (o *recObserver) Reached(rv string) { o.calls = append(o.calls, "reached "+rv) }

func (o *recObserver) take() []string {
	c := o.calls
	o.calls = nil
	return c
}

// taker is an observer that hands over what it recorded.
type taker interface {
	Observer
	take() []string
}

// observedQueue returns a queue observed by o, a function popping a batch
// of at most n deltas, and one requiring what o recorded since the last
// call.
func observedQueue(t *testing.T, o taker) (f *Queue[*corev1.Pod], pop func(n int), expect func(what string, want ...string)) {
	f = New[*corev1.Pod](nil)
	f.SetObserver(o)
	pop = func(n int) {
		t.Helper()
		if err := f.PopBatch(n, func([]Delta[*corev1.Pod], bool) error { return nil }); err != nil {
			t.Fatal(err)
		}
	}
	expect = func(what string, want ...string) {
		t.Helper()
		if got := o.take(); !slices.Equal(got, want) {
			t.Fatalf("%s: observer got %q, want %q", what, got, want)
		}
	}
	return f, pop, expect
}

func TestDeltaFIFOObserverQueuedAndReached(t *testing.T) {
	o := &recObserver{}
	f, pop, expect := observedQueue(t, o)

	// A bookmark on an idle queue: the store is there already.
	f.Bookmark("5")
	expect("idle bookmark", "reached 5")

	// A list: its depth once, its resourceVersion once it is processed,
	// and only when its last delta ends a batch.
	if err := f.Replace([]*corev1.Pod{pod("ns", "a", "6"), pod("ns", "b", "7")}, "9"); err != nil {
		t.Fatal(err)
	}
	expect("replace", "queued 2")
	pop(1)
	expect("first half of the list", "queued 1")
	pop(1)
	expect("end of the list", "queued 0", "reached 9")

	// A bookmark behind a queued event waits for it; one passed within
	// the same batch by a later event is dropped (the event is newer).
	_ = f.Add(pod("ns", "c", "10"))
	f.Bookmark("11")
	_ = f.Add(pod("ns", "d", "12"))
	f.Bookmark("13")
	expect("queueing", "queued 1", "queued 2")
	pop(2)
	expect("batch ending at the second bookmark", "queued 0", "reached 13")
	_ = f.Add(pod("ns", "e", "14"))
	f.Bookmark("15")
	_ = f.Add(pod("ns", "f", "16"))
	pop(2)
	expect("batch passing the bookmark", "queued 1", "queued 2", "queued 0")

	// A bookmark while a batch is being processed (nothing queued) is
	// reached when that batch ends.
	_ = f.Add(pod("ns", "g", "17"))
	expect("add", "queued 1")
	if err := f.PopBatch(1, func([]Delta[*corev1.Pod], bool) error {
		f.Bookmark("18")
		if got := o.take(); !slices.Equal(got, []string{"queued 0"}) {
			t.Errorf("during the batch: observer got %q, want only the pop's depth", got)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	expect("after the batch", "reached 18")

	// Without an observer, Bookmark does nothing and nothing is kept.
	f.SetObserver(nil)
	_ = f.Add(pod("ns", "h", "19"))
	f.Bookmark("20")
	if len(f.marks) != 0 {
		t.Fatalf("marks kept without an observer: %v", f.marks)
	}
}

// genObserver also records MarkGeneration's marks.
type genObserver struct{ recObserver }

func (o *genObserver) GenerationReached(gen uint64) {
	o.calls = append(o.calls, "generation "+strconv.FormatUint(gen, 10))
}

// TestDeltaFIFOMarkGeneration: a generation mark is reported once every
// delta queued before it has been processed, even when later deltas were
// processed in the same batch; a batch passing several reports the
// highest; an idle queue reports it at once; an Observer that does not
// want generations is not told of them.
func TestDeltaFIFOMarkGeneration(t *testing.T) {
	o := &genObserver{}
	f, pop, expect := observedQueue(t, o)

	f.MarkGeneration(1)
	expect("idle queue", "generation 1")

	if err := f.Replace([]*corev1.Pod{pod("ns", "a", "6"), pod("ns", "b", "7")}, "9"); err != nil {
		t.Fatal(err)
	}
	f.MarkGeneration(2)
	expect("replace", "queued 2")
	pop(1)
	expect("half of the list", "queued 1")
	pop(1)
	expect("end of the list", "queued 0", "reached 9", "generation 2")

	// A mark passed within a batch by a later delta: unlike a
	// resourceVersion, the generation still holds.
	_ = f.Add(pod("ns", "c", "10"))
	f.MarkGeneration(3)
	_ = f.Add(pod("ns", "c2", "10"))
	expect("an event after the mark", "queued 1", "queued 2")
	pop(10)
	expect("the mark inside the batch", "queued 0", "generation 3")

	_ = f.Add(pod("ns", "d", "11"))
	f.MarkGeneration(4)
	_ = f.Add(pod("ns", "e", "12"))
	f.MarkGeneration(3)
	expect("two marks", "queued 1", "queued 2")
	pop(10)
	expect("both marks in one batch: the highest", "queued 0", "generation 4")

	plain := &recObserver{}
	f.SetObserver(plain)
	f.MarkGeneration(5)
	_ = f.Add(pod("ns", "f", "13"))
	f.MarkGeneration(6)
	pop(10)
	if got := plain.take(); !slices.Equal(got, []string{"queued 1", "queued 0"}) {
		t.Fatalf("an Observer without GenerationReached got %q", got)
	}
}
