package workqueue

import (
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/typedinformer/typedinformer/internal/testutil"
)

func TestQueueOrderAndCollapse(t *testing.T) {
	tests := []struct {
		name string
		adds []string
		want []string
	}{
		{"fifo", []string{"a", "b", "c"}, []string{"a", "b", "c"}},
		{"duplicates collapse", []string{"a", "b", "a", "a", "c", "b"}, []string{"a", "b", "c"}},
		{"single", []string{"x"}, []string{"x"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := NewTypedWithConfig(TypedQueueConfig[string]{})
			defer q.ShutDown()
			for _, a := range tt.adds {
				q.Add(a)
			}
			if got := q.Len(); got != len(tt.want) {
				t.Fatalf("Len = %d, want %d", got, len(tt.want))
			}
			if got := getN(t, q, len(tt.want)); !slices.Equal(got, tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
			wantLen(t, q, 0, "after draining")
		})
	}
}

func TestQueueAddWhileProcessingIsHeldUntilDone(t *testing.T) {
	q := NewTypedWithConfig(TypedQueueConfig[string]{})
	defer q.ShutDown()
	q.Add("a")
	item, _ := q.Get()
	q.Add("a")
	q.Add("a")
	wantLen(t, q, 0, "an item being processed must not be queued again before Done")
	q.Add("b")
	if got, _ := q.Get(); got != "b" {
		t.Fatalf("Get = %q, want b (a is still processing)", got)
	}
	q.Done(item)
	wantLen(t, q, 1, "Done must re-queue the dirty item once")
	if got, _ := q.Get(); got != "a" {
		t.Fatalf("Get = %q, want a", got)
	}
	q.Done("a")
	q.Done("b")
	q.Done("never-added") // no-op
	wantLen(t, q, 0, "queue length")
}

func TestQueueDoneOfQueuedItemIsIgnored(t *testing.T) {
	q := NewTypedWithConfig(TypedQueueConfig[string]{})
	defer q.ShutDown()
	q.Add("a")
	q.Done("a") // not processing: must not drop it
	if got := getN(t, q, 1); got[0] != "a" {
		t.Fatalf("got %v", got)
	}
}

func TestQueueShutDown(t *testing.T) {
	q := NewTypedWithConfig(TypedQueueConfig[string]{})
	q.Add("a")
	q.Add("b")
	q.ShutDown()
	if !q.ShuttingDown() {
		t.Fatal("ShuttingDown = false after ShutDown")
	}
	q.Add("c") // ignored
	if got := getN(t, q, 2); !slices.Equal(got, []string{"a", "b"}) {
		t.Fatalf("items queued before ShutDown must still be handed out; got %v", got)
	}
	if _, shutdown := q.Get(); !shutdown {
		t.Fatal("Get on a shut-down empty queue must report shutdown")
	}
	q.ShutDown() // idempotent
}

func TestQueueShutDownWakesBlockedGets(t *testing.T) {
	q := NewTypedWithConfig(TypedQueueConfig[string]{})
	const n = 4
	results := make(chan bool, n)
	for range n {
		go func() {
			_, shutdown := q.Get()
			results <- shutdown
		}()
	}
	testutil.Eventually(t, "Gets to block", func() bool {
		q.mu.Lock()
		defer q.mu.Unlock()
		return q.waiting == n
	})
	q.ShutDown()
	for range n {
		if !<-results {
			t.Fatal("a blocked Get returned an item after ShutDown of an empty queue")
		}
	}
}

func TestQueueShutDownWithDrainWaitsForDone(t *testing.T) {
	q := NewTypedWithConfig(TypedQueueConfig[string]{})
	q.Add("a")
	item, _ := q.Get()
	returned := make(chan struct{})
	go func() {
		q.ShutDownWithDrain()
		close(returned)
	}()
	testutil.Eventually(t, "shutdown to start", q.ShuttingDown)
	select {
	case <-returned:
		t.Fatal("ShutDownWithDrain returned while an item was processing")
	default:
	}
	q.Done(item)
	<-returned
}

func TestQueueShutDownReleasesDrain(t *testing.T) {
	q := NewTypedWithConfig(TypedQueueConfig[string]{})
	q.Add("a")
	q.Get()
	returned := make(chan struct{})
	go func() {
		q.ShutDownWithDrain()
		close(returned)
	}()
	testutil.Eventually(t, "drain to wait", func() bool {
		q.mu.Lock()
		defer q.mu.Unlock()
		return q.draining
	})
	q.ShutDown()
	<-returned
}

func TestQueueShutDownWithDrainEmpty(t *testing.T) {
	q := NewTypedWithConfig(TypedQueueConfig[string]{})
	q.ShutDownWithDrain() // nothing processing: returns at once
	if !q.ShuttingDown() {
		t.Fatal("not shutting down")
	}
}

// TestQueueNeverConcurrent hammers the queue from several producers and
// workers and checks that no item is ever processed by two workers at once
// and that every item added is processed at least once after its last Add.
func TestQueueNeverConcurrent(t *testing.T) {
	q := NewTypedWithConfig(TypedQueueConfig[int]{})
	const (
		items     = 50
		producers = 4
		workers   = 8
		rounds    = 2000
	)
	var inFlight [items]atomic.Int32
	var violations atomic.Int32
	var lastAdd, lastStart [items]atomic.Int64
	var clockTick atomic.Int64

	wg := startWorkers(q, workers, func(item int) {
		if inFlight[item].Add(1) != 1 {
			violations.Add(1)
		}
		lastStart[item].Store(clockTick.Add(1))
		inFlight[item].Add(-1)
		q.Done(item)
	})
	var pwg sync.WaitGroup
	for p := range producers {
		pwg.Go(func() {
			for r := range rounds {
				item := (r*7 + p) % items
				lastAdd[item].Store(clockTick.Add(1))
				q.Add(item)
			}
		})
	}
	pwg.Wait()
	q.ShutDownWithDrain()
	wg.Wait()
	if v := violations.Load(); v != 0 {
		t.Fatalf("%d times an item was processed by two workers at once", v)
	}
	for i := range items {
		if lastStart[i].Load() < lastAdd[i].Load() {
			t.Errorf("item %d: last Add at %d was never followed by processing (last start %d)", i, lastAdd[i].Load(), lastStart[i].Load())
		}
	}
}

func TestQueueReusesSlots(t *testing.T) {
	q := NewTypedWithConfig(TypedQueueConfig[string]{})
	defer q.ShutDown()
	for range 3 {
		for _, k := range []string{"a", "b", "c"} {
			q.Add(k)
		}
		getN(t, q, 3)
	}
	if q.nslots != 3 || q.table.n != 0 {
		t.Fatalf("slots = %d, table = %d; want 3 slots reused and an empty slot table", q.nslots, q.table.n)
	}
}

func TestQueueAllocsPerItem(t *testing.T) {
	q := NewTypedWithConfig(TypedQueueConfig[string]{})
	defer q.ShutDown()
	keys := benchKeys(64)
	cycle := func() {
		for _, k := range keys {
			q.Add(k)
		}
		for range keys {
			item, _ := q.Get()
			q.Done(item)
		}
	}
	cycle() // warm up: grow the ring, slots and slot table
	if a := testing.AllocsPerRun(20, cycle); a != 0 {
		t.Fatalf("steady-state Add/Get/Done allocated %v times per cycle, want 0", a)
	}
}
