package workqueue

import (
	"sync"
	"sync/atomic"
)

// inboxFlush is how many items the inbox holds before the Add that fills it
// moves them into the queue itself. It bounds the inbox's memory (an item
// added again and again while no worker runs is held at most this many
// times) and the work of one hand-over under the queue mutex.
const inboxFlush = 64

// pendingAdd is one Add waiting in the inbox: the item, its index hash and
// its priority.
type pendingAdd[T comparable] struct {
	item T
	hash uint32
	prio int
}

// inbox lets Add hand items over without taking the queue mutex, so that a
// producer does not wait behind workers' Gets and Dones for every item (it
// takes the queue mutex only to move a full inbox in or to wake a waiting
// Get). Whoever next takes the queue mutex moves every pending item into the
// queue, oldest first, before it reads or changes anything else; so every
// operation that starts after an Add returned sees that Add, in the order
// the Adds returned in.
//
// The inbox's own mutex is held only to append one item or to swap buffers.
// Its wake flag is set while a Get may be blocked without a wake-up on its
// way; an Add that sees it moves its item in at once, which wakes that Get.
//
// The fields sit on cache lines of their own: the producer writes them on
// every Add, and sharing a line with the fields that workers write under
// the queue mutex would make each side miss on the other's writes.
type inbox[T comparable] struct {
	_    [cacheLine]byte
	mu   sync.Mutex
	ops  []pendingAdd[T] // guarded by mu
	wake bool            // guarded by mu
	n    atomic.Int32    // len(ops); written under mu, read without it
	_    [cacheLine]byte
}

// cacheLine is a size that covers a cache line, and the adjacent line that
// some CPUs fetch with it, on the platforms Go runs on.
const cacheLine = 128

// put appends a and reports whether the caller must move the inbox into the
// queue now: a Get waits, or the inbox is full.
func (b *inbox[T]) put(a pendingAdd[T]) (flush bool) {
	b.mu.Lock()
	b.ops = append(b.ops, a)
	b.n.Store(int32(len(b.ops)))
	flush = b.wake || len(b.ops) >= inboxFlush
	b.mu.Unlock()
	return flush
}

// take removes and returns every pending item, oldest first, puts the
// empty buffer spare in their place, and sets the wake flag to wake. The
// queue mutex is held; the caller keeps the returned buffer, emptied, as the
// next spare, so that steady-state hand-overs allocate nothing.
//
// An empty inbox is seen from n without taking mu: Get and Done take the
// queue mutex for every item, and taking the inbox mutex too would make them
// contend with the producer on its line for nothing. An Add that returned
// before take started has stored n >= 1, so it is never missed. The wake
// flag is then left as it is: only announceWait sets it, and a flag left set
// after its Get was woken costs at most one early move-in by the next Add.
func (b *inbox[T]) take(wake bool, spare []pendingAdd[T]) []pendingAdd[T] {
	if b.n.Load() == 0 {
		return spare
	}
	b.mu.Lock()
	b.n.Store(0)
	ops := b.ops
	b.ops = spare
	b.wake = wake
	b.mu.Unlock()
	return ops
}

// announceWait sets the wake flag and reports true if the inbox is empty;
// the caller, a Get holding the queue mutex, may then block, as any later
// Add will move its item in and wake it. If items are pending it reports
// false and the caller moves them in instead.
func (b *inbox[T]) announceWait() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.ops) > 0 {
		return false
	}
	b.wake = true
	return true
}
