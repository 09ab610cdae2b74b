package workqueue

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/typedinformer/typedinformer/internal/testutil"
)

// refQueue is the reference the model test compares Typed with: the
// contract of TypedInterface, TypedDelayingInterface and TypedRateLimitingInterface written
// as plainly as possible, one map or slice per concept and no concurrency.
type refQueue struct {
	queue      []string             // queued items, in the order they must come out
	dirty      map[string]bool      // queued, or added while processing
	processing map[string]bool      // handed out, no Done yet
	waiting    map[string]time.Time // AddAfter deadlines, earliest wins
	requeues   map[string]int       // AddRateLimited since the last Forget
	shutdown   bool
}

func newRefQueue() *refQueue {
	return &refQueue{
		dirty:      map[string]bool{},
		processing: map[string]bool{},
		waiting:    map[string]time.Time{},
		requeues:   map[string]int{},
	}
}

func (r *refQueue) add(item string) {
	if r.shutdown || r.dirty[item] {
		return
	}
	r.dirty[item] = true
	if !r.processing[item] {
		r.queue = append(r.queue, item)
	}
}

func (r *refQueue) addAfter(item string, at time.Time, now time.Time) {
	if r.shutdown {
		return
	}
	if !at.After(now) {
		r.add(item)
		return
	}
	if old, ok := r.waiting[item]; !ok || at.Before(old) {
		r.waiting[item] = at
	}
}

// get returns the item Get must hand out; ok is false when Get would
// report shutdown. The caller must not call it when Get would block.
func (r *refQueue) get() (item string, ok bool) {
	if len(r.queue) == 0 {
		return "", false
	}
	item, r.queue = r.queue[0], r.queue[1:]
	delete(r.dirty, item)
	r.processing[item] = true
	return item, true
}

func (r *refQueue) done(item string) {
	if !r.processing[item] {
		return
	}
	delete(r.processing, item)
	if r.dirty[item] {
		r.queue = append(r.queue, item)
	}
}

// advance moves the items due at now to the queue, earliest deadline first,
// and returns how many there were.
func (r *refQueue) advance(now time.Time) int {
	var due []string
	for item, at := range r.waiting {
		if !at.After(now) {
			due = append(due, item)
		}
	}
	slices.SortFunc(due, func(a, b string) int { return r.waiting[a].Compare(r.waiting[b]) })
	for _, item := range due {
		delete(r.waiting, item)
		r.add(item)
	}
	return len(due)
}

func (r *refQueue) shutDown() {
	r.shutdown = true
	clear(r.waiting)
}

// scriptedLimiter is a RateLimiter whose next delay the test sets; it
// counts When calls per item like the real limiters do.
type scriptedLimiter struct {
	mu       sync.Mutex
	next     time.Duration
	requeues map[string]int
}

func (l *scriptedLimiter) When(item string) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.requeues[item]++
	return l.next
}

func (l *scriptedLimiter) Forget(item string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.requeues, item)
}

func (l *scriptedLimiter) NumRequeues(item string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.requeues[item]
}

// modelKeys is the item space of the model test: small, so that operations
// collide on items often.
var modelKeys = []string{"ns/a", "ns/b", "ns/c", "ns/d", "ns/e", "other/a"}

// runModel interprets ops, two bytes per operation, against a Typed queue and a
// refQueue and fails at the first difference or broken invariant. Deadlines
// are whole milliseconds plus a nanosecond offset unique to each delayed
// add, and the clock steps by whole milliseconds, so no two waiting items
// ever share a deadline and the order they become due in is defined.
func runModel(t *testing.T, ops []byte) {
	clk := newFakeClock()
	lim := &scriptedLimiter{requeues: map[string]int{}}
	q := NewTypedWithConfig(TypedQueueConfig[string]{Clock: clk, RateLimiter: lim})
	defer q.ShutDown()
	ref := newRefQueue()
	var dueTotal uint64
	var log []string
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("after %v: %s", log, fmt.Sprintf(format, args...))
	}
	for i := 0; i+1 < len(ops); i += 2 {
		op, arg := ops[i]%10, ops[i+1]
		item := modelKeys[int(arg)%len(modelKeys)]
		delay := func() time.Duration {
			ms := time.Duration(arg>>5) * time.Millisecond // 0..7 ms
			if ms == 0 {
				return 0
			}
			return ms + time.Duration(i/2+1)
		}
		switch op {
		case 0, 1:
			log = append(log, "Add "+item)
			q.Add(item)
			ref.add(item)
		case 2:
			d := delay()
			log = append(log, fmt.Sprintf("AddAfter %s %s", item, d))
			q.AddAfter(item, d)
			ref.addAfter(item, clk.Now().Add(d), clk.Now())
		case 3:
			d := delay()
			log = append(log, fmt.Sprintf("AddRateLimited %s %s", item, d))
			lim.mu.Lock()
			lim.next = d
			lim.mu.Unlock()
			q.AddRateLimited(item)
			ref.requeues[item]++
			ref.addAfter(item, clk.Now().Add(d), clk.Now())
		case 4, 5:
			if len(ref.queue) == 0 && !ref.shutdown {
				continue // Get would block
			}
			log = append(log, "Get")
			want, ok := ref.get()
			got, shutdown := q.Get()
			if shutdown == ok || (ok && got != want) {
				fail("Get = %q, shutdown %v; want %q, shutdown %v", got, shutdown, want, !ok)
			}
		case 6:
			// Done of an item being processed, or (arg's top bit) of
			// any item, which must do nothing unless it is processing.
			if arg&0x80 == 0 && len(ref.processing) > 0 {
				keys := make([]string, 0, len(ref.processing))
				for k := range ref.processing {
					keys = append(keys, k)
				}
				slices.Sort(keys)
				item = keys[int(arg)%len(keys)]
			}
			log = append(log, "Done "+item)
			q.Done(item)
			ref.done(item)
		case 7:
			log = append(log, "Forget "+item)
			q.Forget(item)
			delete(ref.requeues, item)
		case 8:
			step := time.Duration(arg%4) * time.Millisecond
			log = append(log, fmt.Sprintf("Step %s", step))
			if len(ref.waiting) > 0 {
				waitArmed(t, q, clk)
			}
			clk.Step(step)
			dueTotal += uint64(ref.advance(clk.Now()))
			testutil.Eventually(t, "the delay goroutine to queue the due items", func() bool {
				q.mu.Lock()
				defer q.mu.Unlock()
				return q.delayedQueued >= dueTotal
			})
			q.mu.Lock()
			moved := q.delayedQueued
			q.mu.Unlock()
			if moved != dueTotal {
				fail("the delay goroutine queued %d items, want %d", moved, dueTotal)
			}
		case 9:
			if arg%4 != 0 {
				continue
			}
			log = append(log, "ShutDown")
			q.ShutDown()
			ref.shutDown()
		}
		if err := q.checkInvariants(); err != nil {
			fail("invariant broken: %v", err)
		}
		if got, want := q.Len(), len(ref.queue); got != want {
			fail("Len = %d, want %d", got, want)
		}
		if got, want := q.waitingLen(), len(ref.waiting); got != want && !ref.shutdown {
			fail("%d items waiting on a delay, want %d", got, want)
		}
		if got, want := q.NumRequeues(item), ref.requeues[item]; got != want {
			fail("NumRequeues(%s) = %d, want %d", item, got, want)
		}
		if q.ShuttingDown() != ref.shutdown {
			fail("ShuttingDown = %v, want %v", q.ShuttingDown(), ref.shutdown)
		}
	}
	// Shut down and drain: every queued item comes out in order, and Done of
	// a dirty item still re-queues it.
	q.ShutDown()
	ref.shutDown()
	for {
		for _, item := range slices.Sorted(func(yield func(string) bool) {
			for k := range ref.processing {
				if !yield(k) {
					return
				}
			}
		}) {
			q.Done(item)
			ref.done(item)
		}
		want, ok := ref.get()
		got, shutdown := q.Get()
		if shutdown == ok || (ok && got != want) {
			fail("draining: Get = %q, shutdown %v; want %q, shutdown %v", got, shutdown, want, !ok)
		}
		if !ok {
			break
		}
	}
	if err := q.checkInvariants(); err != nil {
		fail("invariant broken after draining: %v", err)
	}
}

// modelSeeds returns deterministic operation sequences: a few written by
// hand for the cases the contract names, and random ones.
func modelSeeds() [][]byte {
	seeds := [][]byte{
		// Add a, Add a, Get, Add a while processing, Done: a comes back.
		{0, 0, 0, 0, 4, 0, 0, 0, 6, 0, 4, 0, 6, 0},
		// FIFO among distinct items with repeats.
		{0, 0, 0, 1, 0, 2, 0, 0, 0, 1, 4, 0, 4, 0, 4, 0},
		// AddAfter then an earlier AddAfter of the same item, steps.
		{2, 0x60, 2, 0x20, 8, 1, 8, 3, 4, 0},
		// Rate-limited adds, Forget, ShutDown with items queued and waiting.
		{3, 0x40, 3, 0x41, 7, 0, 0, 2, 9, 0, 4, 0, 4, 0, 0, 3},
		// Get, ShutDown while processing, Add dropped, Done.
		{0, 1, 4, 0, 9, 0, 0, 1, 6, 0, 4, 0},
	}
	rng := rand.New(rand.NewPCG(20, 26))
	for range 60 {
		b := make([]byte, 2*(20+rng.IntN(180)))
		for i := range b {
			b[i] = byte(rng.UintN(256))
		}
		seeds = append(seeds, b)
	}
	return seeds
}

// FuzzQueueModel runs random sequences of Add, AddAfter, AddRateLimited,
// Get, Done, Forget, clock steps and ShutDown against refQueue. Its seed
// corpus runs in every `go test`; `go test -fuzz FuzzQueueModel` explores.
func FuzzQueueModel(f *testing.F) {
	for _, s := range modelSeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, ops []byte) {
		if len(ops) > 4000 {
			ops = ops[:4000]
		}
		runModel(t, ops)
	})
}

// TestQueueConcurrentInvariants runs producers, workers and the delay
// goroutine at once and checks the invariants from another goroutine while
// they run, and that no item is ever processed by two workers at once.
func TestQueueConcurrentInvariants(t *testing.T) {
	q := NewTypedWithConfig(TypedQueueConfig[string]{})
	var mu sync.Mutex
	busy := map[string]bool{}
	var twice []string
	var readds atomic.Int32
	wg := startWorkers(q, 4, func(item string) {
		mu.Lock()
		if busy[item] {
			twice = append(twice, item)
		}
		busy[item] = true
		mu.Unlock()
		runtime.Gosched()
		mu.Lock()
		delete(busy, item)
		mu.Unlock()
		// Re-add while processing, a bounded number of times so that a
		// queue that wrongly accepts Adds after ShutDown fails the checks
		// below instead of spinning forever.
		if len(item)%3 == 0 && readds.Add(1) <= 20000 {
			q.Add(item)
		}
		q.Done(item)
	})
	stop := make(chan struct{})
	checked := make(chan error, 1)
	go func() {
		for {
			select {
			case <-stop:
				checked <- q.checkInvariants()
				return
			default:
			}
			if err := q.checkInvariants(); err != nil {
				checked <- err
				return
			}
			runtime.Gosched()
		}
	}()
	var producers sync.WaitGroup
	for p := range 2 {
		producers.Go(func() {
			for i := range 20000 {
				k := fmt.Sprintf("ns/item-%d", (i*7+p)%300)
				if i%50 == 0 {
					q.AddAfter(k, time.Duration(i%3)*time.Microsecond)
				} else {
					q.Add(k)
				}
			}
		})
	}
	producers.Wait()
	close(stop)
	if err := <-checked; err != nil {
		t.Fatalf("invariant broken while running: %v", err)
	}
	q.ShutDownWithDrain()
	wg.Wait()
	if len(twice) > 0 {
		t.Fatalf("items processed by two workers at once: %v", twice[:min(5, len(twice))])
	}
}
