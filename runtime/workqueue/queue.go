package workqueue

// Locking protocol and invariants of Typed. Read this before changing any
// method; checkInvariants (invariants.go) tests the invariants, and the
// tests call it after every step of random operation sequences
// (model_test.go).
//
// Locks. A Typed queue has two mutexes, never held at the same time:
//
//   - q.mu guards the ready queue: pages/slots, table, free, nslots, levels,
//     queued, processing, waiting, wakePending, shuttingDown, draining and
//     the metric timestamps. Every Add, Get, Done, Len and ShutDown takes it
//     once; nothing blocks while holding it except Get and ShutDownWithDrain
//     waiting on its conditions (which release it). Item hashes are computed
//     before taking it. Add takes it through lockSpin, which retries TryLock
//     for a moment before blocking, so that the producer is not parked
//     behind workers that hold the mutex for a few dozen nanoseconds each.
//   - q.delay.mu guards the items waiting on AddAfter (see delayed). The one
//     delay goroutine collects the due items under q.delay.mu, releases it,
//     and only then takes q.mu to queue them; AddAfter takes only
//     q.delay.mu. So there is no lock order to respect and no deadlock.
//
// The rate limiter has its own lock and is called with neither mutex held.
// q.closed mirrors q.shuttingDown so that ShuttingDown and the early return
// of AddAfter read it without a lock; it is written under q.mu.
//
// Invariants, true whenever q.mu is not held:
//
//  1. Slots 0..nslots-1 exist; each is either free (stateFree, on the free
//     list exactly once, not in table, zero item) or live (in table exactly
//     once, under its item's hash). No two live slots hold equal items: an
//     item is known to the queue at most once.
//  2. queued is the number of stateQueued slots; processing is the number
//     of stateProcessing and stateProcessingDirty slots.
//  3. A ring entry is live when its gen equals its slot's gen and the slot
//     is stateQueued. Each stateQueued slot has exactly one live entry, in
//     the level whose prio is the slot's prio; so the rings hold exactly
//     queued live entries and Get can hand an item out only once.
//  4. levels are sorted by strictly decreasing prio; with DisablePriority
//     every slot has PriorityDefault.
//  5. An item being processed (handed out by Get, no Done yet) is never
//     queued: an Add of it only sets stateProcessingDirty, and Done puts it
//     back on the ring, behind everything queued before that Done.
//  6. wakePending <= waiting: a Signal is counted only for a goroutine
//     blocked in Get.
//  7. draining implies shuttingDown; once shuttingDown, no item becomes
//     known (Adds are dropped) but queued items are still handed out, and
//     Done still re-queues a dirty item.
//
// Ordering: within one priority, items are handed out in the order they
// became queued (first Add while unknown, or the Done of a dirty item).

import (
	"hash/maphash"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/utils/clock"
)

// itemState is where an item known to the queue is.
type itemState uint8

const (
	stateFree            itemState = iota // slot unused
	stateQueued                           // dirty, in one level's ring
	stateProcessing                       // handed out by Get, clean
	stateProcessingDirty                  // handed out, added again meanwhile
)

// slot is the queue's record of one known item. Slots live in fixed-size
// pages that are never moved, and are reused through a free list, so
// steady-state Add/Get/Done allocate nothing.
//
// A slot keeps no copy of its item's hash (the slot table has it, and Done,
// the only caller of release, computes it anyway): for string items a slot
// is then 32 bytes, two to a cache line, where 40 made every other slot
// straddle two lines on the Add path.
type slot[T comparable] struct {
	item T
	// gen changes every time the slot is pushed on a ring; a ring entry with
	// an older gen is stale and skipped.
	gen   uint32
	state itemState
	prio  int
}

// slotPageSize is the number of slots per page; a power of two.
const slotPageSize = 256

// slotPage is one page of slots and, with metrics, of their timestamps.
type slotPage[T comparable] struct {
	slots [slotPageSize]slot[T]
	times *[slotPageSize]slotTimes
}

// slotTimes are a slot's metric timestamps, kept only with metrics on.
type slotTimes struct {
	added   time.Time // when the item became dirty
	started time.Time // when Get handed it out
}

// Typed is the typed work queue (client-go's name for the concrete queue);
// it implements [TypedPriorityInterface] and so every narrower interface of this
// package. Create it with NewTyped, NewTypedWithConfig or another NewTyped* constructor; it must not be copied. All
// methods are safe for concurrent use.
//
// Typed keeps one mutex for the ready queue (a hash table from item to
// slot, and a ring of slots per priority) and a second one for items
// waiting on a delay; a single goroutine, started on the first delayed add,
// moves delayed items to the ready queue when they are due. The protocol
// and invariants are written at the top of queue.go.
type Typed[T comparable] struct {
	// The fields are grouped by who touches them (see the locking protocol
	// above): the mutex shares its cache line with the counters and flags
	// every critical section reads or writes, and the next line holds the
	// slot table and pages every Add and Done probe. A producer adding
	// items that are already queued then misses on two lines after a
	// worker's Get or Done, not five. On 64-bit platforms mu through
	// seed fill the first 64 bytes exactly, table and pages the next 64,
	// and a Typed queue is allocated at the start of a line. This is a
	// performance choice, not a contract: a new field may move it, and
	// no test fails if it does. To see the offsets after a change, run
	// `go test -run XXX -bench QueueLayout -v ./runtime/workqueue` and
	// regroup if a hot field straddles a line or leaves the first two.
	mu           sync.Mutex
	shuttingDown bool
	noPrio       bool
	queued       int // live ring entries
	processing   int
	waiting      int // goroutines blocked in Get
	wakePending  int // Signals sent to waiters that have not run yet
	metrics      *queueMetrics
	seed         maphash.Seed

	table  slotTable
	pages  []*slotPage[T]
	levels []level // by priority, highest first
	free   []int32
	nslots int32 // slots handed out so far, live or free

	draining bool
	closed   atomic.Bool // shuttingDown, readable without mu
	// delayedQueued counts the items the delay goroutine has handed to
	// addLocked, so that tests can wait for a due item to arrive.
	delayedQueued uint64

	notEmpty sync.Cond // Get waits here for an item
	drained  sync.Cond // ShutDownWithDrain waits here for processing == 0

	clock   clock.WithTicker
	limiter TypedRateLimiter[T]
	period  time.Duration

	delay delayed[T]

	stop     chan struct{}
	stopOnce sync.Once
	bg       sync.WaitGroup
}

// newQueue returns an empty queue configured by opts; every constructor of
// the package ends here.
func newQueue[T comparable](opts TypedQueueConfig[T]) *Typed[T] {
	opts = opts.withDefaults()
	q := &Typed[T]{
		seed:    maphash.MakeSeed(),
		clock:   opts.Clock,
		limiter: opts.RateLimiter,
		metrics: newQueueMetrics(opts.MetricsProvider, opts.Name),
		noPrio:  opts.DisablePriority,
		period:  opts.UnfinishedWorkUpdatePeriod,
		stop:    make(chan struct{}),
		levels:  []level{{prio: PriorityDefault}},
	}
	q.notEmpty.L = &q.mu
	q.drained.L = &q.mu
	q.delay.init()
	if q.metrics != nil {
		q.bg.Go(q.unfinishedWorkLoop)
	}
	return q
}

// Add queues item at PriorityDefault; see TypedInterface.
func (q *Typed[T]) Add(item T) {
	q.add(item, PriorityDefault)
}

// add queues item at priority prio: one hash outside the lock, one
// critical section. Add never blocks beyond waiting for q.mu (see
// lockSpin).
func (q *Typed[T]) add(item T, prio int) {
	h := q.hash(item)
	q.lockSpin()
	q.addLocked(item, h, prio)
	q.mu.Unlock()
}

// addSpins is how many times lockSpin tries q.mu before it blocks. A failed
// TryLock is a load of a line the spinner already holds, under a
// nanosecond, so this is a microsecond or two while the holder stays put
// and a few when the line moves between cores: several times the longest
// critical section of Get or Done, and short next to the cost of parking
// (about 35µs between the producer's Lock and its wake-up, measured with
// one worker and no work). With 200 tries the producer gave up after well
// under a microsecond and parked a hundred or more times per million
// Adds. With 2000, in the bench tool's row 4 (medians of 20 interleaved
// runs), the time to drain 1M Adds fell by 12 to 17% without work at 1, 4
// and 16 workers and by 13 and 28% with 5µs of work at 4 and 16 workers,
// with fewer items handed out; one worker with work did not change.
const addSpins = 2000

// lockSpin takes q.mu for Add: it retries TryLock up to addSpins times and
// only then blocks in Lock. A producer (an informer's event handler) that
// blocks on the mutex while workers hold it for a moment is parked; on a
// machine with as many busy workers as cores it then waits for a CPU behind
// them, and each Add after that meets a worker again. The producer then
// makes about one Add per item handed out, the backlog never builds up and
// de-duplication stops: for 1M Adds over 10k keys with 4 workers doing 5µs
// of work each, half a million items were processed instead of about 15k
// (sync.Mutex itself spins only while the spinning goroutine's processor
// has nothing else to run, which is never the case there). Spinning is
// bounded, so a holder descheduled by the OS costs the producer at most
// addSpins failed attempts before it blocks as before.
func (q *Typed[T]) lockSpin() {
	for i := 0; i < addSpins; i++ {
		if q.mu.TryLock() {
			return
		}
	}
	q.mu.Lock()
}

// hash returns item's hash for the slot table. It needs no lock, so callers
// compute it before taking q.mu.
func (q *Typed[T]) hash(item T) uint32 {
	return uint32(maphash.Comparable(q.seed, item))
}

// slot returns slot i. q.mu is held.
func (q *Typed[T]) slot(i int32) *slot[T] {
	return &q.pages[uint32(i)/slotPageSize].slots[uint32(i)%slotPageSize]
}

// times returns slot i's timestamps; only with metrics. q.mu is held.
func (q *Typed[T]) times(i int32) *slotTimes {
	return &q.pages[i/slotPageSize].times[i%slotPageSize]
}

// find returns the slot of item (whose hash is h), or -1. q.mu is held.
func (q *Typed[T]) find(item T, h uint32) int32 {
	return findItem(&q.table, q.pages, item, h)
}

// addLocked is the one way an item enters the ready queue; h is
// q.hash(item). q.mu is held.
func (q *Typed[T]) addLocked(item T, h uint32, prio int) {
	if q.shuttingDown {
		return
	}
	if q.noPrio {
		prio = PriorityDefault
	}
	if i := q.find(item, h); i >= 0 {
		s := q.slot(i)
		switch s.state {
		case stateQueued:
			if prio > s.prio {
				// Move it up: the entry in the lower ring goes stale.
				s.prio = prio
				s.gen++
				q.push(i, s.gen, prio)
			}
		case stateProcessingDirty:
			if prio > s.prio {
				s.prio = prio
			}
		case stateProcessing:
			s.state = stateProcessingDirty
			s.prio = prio
			q.metricAdded(i)
		}
		return
	}
	i := q.alloc(item, h)
	s := q.slot(i)
	s.state = stateQueued
	s.prio = prio
	s.gen++
	q.push(i, s.gen, prio)
	q.queued++
	q.metricAdded(i)
	q.wakeOne()
}

// alloc takes a free slot (or a new one, adding a page when the last is
// full) for item, whose hash is h, and indexes it.
func (q *Typed[T]) alloc(item T, h uint32) int32 {
	var i int32
	if n := len(q.free); n > 0 {
		i = q.free[n-1]
		q.free = q.free[:n-1]
	} else {
		i = q.nslots
		if i%slotPageSize == 0 {
			p := new(slotPage[T])
			if q.metrics != nil {
				p.times = new([slotPageSize]slotTimes)
			}
			q.pages = append(q.pages, p)
		}
		q.nslots++
	}
	q.slot(i).item = item
	q.table.insert(h, i)
	return i
}

// release forgets slot i's item, whose hash is h, and returns the slot to
// the free list. Its gen is kept so that stale ring entries stay stale.
func (q *Typed[T]) release(i int32, h uint32) {
	s := q.slot(i)
	q.table.remove(h, i)
	var zero T
	s.item = zero
	s.state = stateFree
	q.free = append(q.free, i)
}

// push appends slot i to the ring of priority prio, creating that level.
func (q *Typed[T]) push(i int32, gen uint32, prio int) {
	if l := &q.levels[0]; l.prio == prio {
		l.ring.push(ringEntry{slot: i, gen: gen})
		return
	}
	at := len(q.levels)
	for li := range q.levels {
		if q.levels[li].prio == prio {
			q.levels[li].ring.push(ringEntry{slot: i, gen: gen})
			return
		}
		if q.levels[li].prio < prio {
			at = li
			break
		}
	}
	q.levels = append(q.levels, level{})
	copy(q.levels[at+1:], q.levels[at:])
	q.levels[at] = level{prio: prio}
	q.levels[at].ring.push(ringEntry{slot: i, gen: gen})
}

// popLocked removes and returns the slot of the next live entry: the oldest
// of the highest non-empty priority. q.queued must be > 0.
func (q *Typed[T]) popLocked() int32 {
	for li := range q.levels {
		r := &q.levels[li].ring
		for r.n > 0 {
			e := r.pop()
			if s := q.slot(e.slot); s.gen == e.gen && s.state == stateQueued {
				return e.slot
			}
		}
	}
	panic("workqueue: queued count is positive but every ring is empty")
}

// wakeOne signals a goroutine blocked in Get unless every waiter has
// already been signalled.
func (q *Typed[T]) wakeOne() {
	if q.waiting > q.wakePending {
		q.wakePending++
		q.notEmpty.Signal()
	}
}

// Len returns the number of queued items; see TypedInterface.
func (q *Typed[T]) Len() int {
	q.mu.Lock()
	n := q.queued
	q.mu.Unlock()
	return n
}

// Get returns the next item; see TypedInterface.
func (q *Typed[T]) Get() (item T, shutdown bool) {
	item, _, shutdown = q.GetWithPriority()
	return item, shutdown
}

// GetWithPriority returns the next item and its priority; see
// TypedPriorityInterface.
func (q *Typed[T]) GetWithPriority() (item T, priority int, shutdown bool) {
	q.mu.Lock()
	for q.queued == 0 && !q.shuttingDown {
		q.waiting++
		q.notEmpty.Wait()
		q.waiting--
		if q.wakePending > 0 {
			q.wakePending--
		}
	}
	if q.queued == 0 {
		q.mu.Unlock()
		return item, 0, true
	}
	i := q.popLocked()
	s := q.slot(i)
	s.state = stateProcessing
	q.queued--
	q.processing++
	item, priority = s.item, s.prio
	if q.metrics != nil {
		now := q.clock.Now()
		t := q.times(i)
		q.metrics.depth.Dec()
		q.metrics.latency.Observe(seconds(now.Sub(t.added)))
		t.started = now
	}
	// Another waiter may be needed if items remain and this goroutine was
	// the one that consumed a wake-up meant for them.
	if q.queued > 0 {
		q.wakeOne()
	}
	q.mu.Unlock()
	return item, priority, false
}

// Done marks item as processed; see TypedInterface.
func (q *Typed[T]) Done(item T) {
	h := q.hash(item)
	q.mu.Lock()
	i := q.find(item, h)
	if i < 0 {
		q.mu.Unlock()
		return
	}
	s := q.slot(i)
	switch s.state {
	case stateProcessing:
		q.metricDone(i)
		q.release(i, h)
	case stateProcessingDirty:
		q.metricDone(i)
		s.state = stateQueued
		s.gen++
		q.push(i, s.gen, s.prio)
		q.queued++
		q.wakeOne()
	default:
		q.mu.Unlock()
		return
	}
	q.processing--
	if q.processing == 0 && q.draining {
		q.drained.Broadcast()
	}
	q.mu.Unlock()
}

func (q *Typed[T]) metricAdded(i int32) {
	if q.metrics == nil {
		return
	}
	q.metrics.adds.Inc()
	q.metrics.depth.Inc()
	q.times(i).added = q.clock.Now()
}

func (q *Typed[T]) metricDone(i int32) {
	if q.metrics == nil {
		return
	}
	q.metrics.workDuration.Observe(seconds(q.clock.Since(q.times(i).started)))
}

// ShutDown stops the queue; see TypedInterface.
func (q *Typed[T]) ShutDown() {
	q.mu.Lock()
	q.markShutDown()
	q.draining = false
	q.drained.Broadcast()
	q.mu.Unlock()
	q.stopBackground()
}

// ShutDownWithDrain stops the queue and waits for items being processed;
// see TypedInterface.
func (q *Typed[T]) ShutDownWithDrain() {
	q.mu.Lock()
	q.markShutDown()
	q.draining = true
	q.mu.Unlock()
	q.stopBackground()
	q.mu.Lock()
	for q.processing > 0 && q.draining {
		q.drained.Wait()
	}
	q.mu.Unlock()
}

func (q *Typed[T]) markShutDown() {
	q.shuttingDown = true
	q.closed.Store(true)
	q.notEmpty.Broadcast()
}

// ShuttingDown reports whether the queue was shut down; see TypedInterface.
func (q *Typed[T]) ShuttingDown() bool {
	return q.closed.Load()
}

// stopBackground ends the delay and metrics goroutines and waits for them.
// Items still waiting on a delay are dropped.
func (q *Typed[T]) stopBackground() {
	q.stopOnce.Do(func() {
		q.delay.mu.Lock()
		q.delay.stopped = true
		q.delay.mu.Unlock()
		close(q.stop)
	})
	q.bg.Wait()
}

// unfinishedWorkLoop periodically reports how long the items being processed
// have been running.
func (q *Typed[T]) unfinishedWorkLoop() {
	t := q.clock.NewTicker(q.period)
	defer t.Stop()
	for {
		select {
		case <-q.stop:
			return
		case <-t.C():
			q.updateUnfinishedWork()
		}
	}
}

func (q *Typed[T]) updateUnfinishedWork() {
	q.mu.Lock()
	defer q.mu.Unlock()
	now := q.clock.Now()
	var total, longest float64
	for i := range q.nslots {
		if st := q.slot(i).state; st != stateProcessing && st != stateProcessingDirty {
			continue
		}
		age := seconds(now.Sub(q.times(i).started))
		total += age
		longest = max(longest, age)
	}
	q.metrics.unfinished.Set(total)
	q.metrics.longestRunning.Set(longest)
}
