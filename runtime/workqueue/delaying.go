package workqueue

import (
	"sync"
	"time"

	"k8s.io/utils/clock"
)

// delayEntry is an item waiting for its deadline.
type delayEntry[T comparable] struct {
	item T
	at   time.Time
	prio int
	pos  int // index in delayed.heap
}

// delayed holds the items waiting on AddAfter: a min-heap of slot indexes
// ordered by deadline, an index from item to slot, and reusable slots.
type delayed[T comparable] struct {
	mu      sync.Mutex
	index   map[T]int32
	entries []delayEntry[T]
	free    []int32
	heap    []int32
	started bool
	stopped bool
	// wake tells the delay goroutine that the earliest deadline changed.
	// It is sent under mu, and a wake-up sent before the goroutine reads
	// the heap is drained under mu too, so that armed is exact.
	wake chan struct{}
	// armed is true from the moment the delay goroutine computed its next
	// deadline from the current heap until a new earliest deadline makes
	// that stale. Once armed and its timer is set, only the timer wakes the
	// goroutine: tests step a fake clock only then.
	armed bool
}

// readyItem is a delayed item whose deadline passed.
type readyItem[T comparable] struct {
	item T
	hash uint32
	prio int
}

func (d *delayed[T]) init() {
	d.index = make(map[T]int32)
	d.wake = make(chan struct{}, 1)
}

// AddAfter adds item after duration; see DelayingInterface.
func (q *Typed[T]) AddAfter(item T, duration time.Duration) {
	q.addAfter(item, duration, PriorityDefault)
}

// addAfter counts a retry and adds item now (duration <= 0) or once
// duration has passed, at priority prio.
func (q *Typed[T]) addAfter(item T, duration time.Duration, prio int) {
	if q.closed.Load() {
		return
	}
	if q.metrics != nil {
		q.metrics.retries.Inc()
	}
	if duration <= 0 {
		q.add(item, prio)
		return
	}
	if q.noPrio {
		prio = PriorityDefault
	}
	d := &q.delay
	d.mu.Lock()
	if d.stopped {
		d.mu.Unlock()
		return
	}
	at := q.clock.Now().Add(duration)
	earliest := false
	if i, ok := d.index[item]; ok {
		e := &d.entries[i]
		e.prio = max(e.prio, prio)
		if at.Before(e.at) {
			e.at = at
			d.up(e.pos)
			earliest = e.pos == 0
		}
	} else {
		var i int32
		if n := len(d.free); n > 0 {
			i = d.free[n-1]
			d.free = d.free[:n-1]
		} else {
			i = int32(len(d.entries))
			d.entries = append(d.entries, delayEntry[T]{})
		}
		d.entries[i] = delayEntry[T]{item: item, at: at, prio: prio, pos: len(d.heap)}
		d.index[item] = i
		d.heap = append(d.heap, i)
		d.up(len(d.heap) - 1)
		earliest = d.entries[i].pos == 0
	}
	if !d.started {
		d.started = true
		q.bg.Go(q.delayLoop)
	}
	if earliest {
		d.armed = false
		select {
		case d.wake <- struct{}{}:
		default:
		}
	}
	d.mu.Unlock()
}

// delayLoop is the one goroutine that moves due items to the ready queue.
// It sleeps on a single timer set to the earliest deadline.
func (q *Typed[T]) delayLoop() {
	d := &q.delay
	var (
		timer clock.Timer
		batch []readyItem[T]
	)
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		d.mu.Lock()
		// A wake sent before this point is answered by the heap read
		// below; only one sent after it interrupts the wait.
		select {
		case <-d.wake:
		default:
		}
		d.armed = true
		now := q.clock.Now()
		for len(d.heap) > 0 {
			e := &d.entries[d.heap[0]]
			if e.at.After(now) {
				break
			}
			batch = append(batch, readyItem[T]{item: e.item, prio: e.prio})
			d.removeTop()
		}
		wait := time.Duration(-1)
		if len(d.heap) > 0 {
			wait = d.entries[d.heap[0]].at.Sub(now)
		}
		d.mu.Unlock()

		if len(batch) > 0 {
			// Hash outside both mutexes: AddAfter waits on d.mu, and
			// Add, Get and Done on q.mu.
			for i := range batch {
				batch[i].hash = q.hash(batch[i].item)
			}
			q.mu.Lock()
			for _, r := range batch {
				q.addLocked(r.item, r.hash, r.prio)
			}
			q.delayedQueued += uint64(len(batch))
			q.mu.Unlock()
			clear(batch)
			batch = batch[:0]
		}

		var fire <-chan time.Time
		if wait >= 0 {
			if timer == nil {
				timer = q.clock.NewTimer(wait)
			} else {
				timer.Reset(wait)
			}
			fire = timer.C()
		}
		select {
		case <-q.stop:
			return
		case <-fire:
		case <-d.wake:
			// The timer may be pending or may have fired unread; stop it and
			// drain it so that Reset starts clean.
			if timer != nil && !timer.Stop() {
				select {
				case <-timer.C():
				default:
				}
			}
		}
	}
}

// removeTop drops the earliest entry from the heap and frees its slot.
// d.mu is held.
func (d *delayed[T]) removeTop() {
	i := d.heap[0]
	last := len(d.heap) - 1
	d.swap(0, last)
	d.heap = d.heap[:last]
	if last > 0 {
		d.down(0)
	}
	delete(d.index, d.entries[i].item)
	d.entries[i] = delayEntry[T]{}
	d.free = append(d.free, i)
}

func (d *delayed[T]) less(a, b int) bool {
	return d.entries[d.heap[a]].at.Before(d.entries[d.heap[b]].at)
}

func (d *delayed[T]) swap(a, b int) {
	d.heap[a], d.heap[b] = d.heap[b], d.heap[a]
	d.entries[d.heap[a]].pos = a
	d.entries[d.heap[b]].pos = b
}

func (d *delayed[T]) up(j int) {
	for j > 0 {
		parent := (j - 1) / 2
		if !d.less(j, parent) {
			return
		}
		d.swap(j, parent)
		j = parent
	}
}

func (d *delayed[T]) down(j int) {
	n := len(d.heap)
	for {
		child := 2*j + 1
		if child >= n {
			return
		}
		if r := child + 1; r < n && d.less(r, child) {
			child = r
		}
		if !d.less(child, j) {
			return
		}
		d.swap(j, child)
		j = child
	}
}

// waitingLen returns the number of items waiting on a delay (for tests and
// metrics).
func (q *Typed[T]) waitingLen() int {
	q.delay.mu.Lock()
	defer q.delay.mu.Unlock()
	return len(q.delay.heap)
}
