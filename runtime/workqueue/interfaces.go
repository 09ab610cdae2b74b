package workqueue

import "time"

// TypedInterface is a work queue of comparable items. It is safe for concurrent
// use. Its guarantees:
//
//   - an item handed out by Get is "processing" until Done(item); it is never
//     handed to a second caller in the meantime;
//   - Add of an item that is already queued does nothing (duplicates
//     collapse); Add of an item that is processing marks it dirty and it is
//     queued again when Done is called;
//   - items are handed out in the order they were first added (within one
//     priority, see [TypedPriorityInterface]).
type TypedInterface[T comparable] interface {
	// Add queues item unless it is already queued. After ShutDown, Add does
	// nothing.
	Add(item T)
	// Len returns the number of items queued (not counting items being
	// processed, nor items waiting for a delay).
	Len() int
	// Get blocks until an item is queued and returns it, marking it
	// processing; the caller must call Done(item) when finished. Items queued
	// before ShutDown are still handed out; shutdown is true once the queue
	// is shut down and empty.
	Get() (item T, shutdown bool)
	// Done marks item as no longer processing, re-queueing it if it was added
	// meanwhile. Done of an item that is not processing does nothing.
	Done(item T)
	// ShutDown makes the queue ignore new items and wakes every Get; it
	// returns at once, without waiting for items being processed.
	ShutDown()
	// ShutDownWithDrain is ShutDown that also waits until every item being
	// processed has been marked Done (or until ShutDown is called).
	ShutDownWithDrain()
	// ShuttingDown reports whether ShutDown or ShutDownWithDrain was called.
	ShuttingDown() bool
}

// TypedDelayingInterface is a TypedInterface that can add an item after a delay.
type TypedDelayingInterface[T comparable] interface {
	TypedInterface[T]
	// AddAfter adds item once duration has passed (at once if duration <=
	// 0). While an item waits, a second AddAfter keeps the earlier deadline.
	// Waiting items are dropped on shutdown.
	AddAfter(item T, duration time.Duration)
}

// TypedRateLimitingInterface is a TypedDelayingInterface that asks a TypedRateLimiter how
// long an item must wait.
type TypedRateLimitingInterface[T comparable] interface {
	TypedDelayingInterface[T]
	// AddRateLimited adds item after the delay the rate limiter gives it.
	AddRateLimited(item T)
	// Forget tells the rate limiter that item is done with retries (it
	// succeeded or will not be retried); its backoff starts over. It does not
	// remove item from the queue.
	Forget(item T)
	// NumRequeues returns how many times item was rate-limited since the last
	// Forget.
	NumRequeues(item T) int
}

// TypedPriorityInterface is a TypedRateLimitingInterface whose items carry a priority:
// Get hands out the highest priority first, and items of equal priority in
// the order they became ready.
type TypedPriorityInterface[T comparable] interface {
	TypedRateLimitingInterface[T]
	// AddWithOpts adds items with the options o. An item that is already
	// queued keeps the higher of its priority and o.Priority; an item being
	// processed is re-queued on Done with the highest priority it was added
	// with meanwhile.
	AddWithOpts(o AddOpts, items ...T)
	// GetWithPriority is Get that also returns the item's priority.
	GetWithPriority() (item T, priority int, shutdown bool)
}

// Priorities used by this module. Any int is a valid priority; higher is
// handed out first.
const (
	// PriorityDefault is the priority of Add, AddAfter and AddRateLimited.
	PriorityDefault = 0
	// PriorityLow is the priority controllers give to objects of an
	// informer's initial list, so that live events are reconciled first.
	PriorityLow = -100
)

// AddOpts are the options of AddWithOpts.
type AddOpts struct {
	// After delays the items; 0 adds them at once.
	After time.Duration
	// RateLimited delays the items by the rate limiter's When (or by After
	// when that is longer).
	RateLimited bool
	// Priority is the items' priority (default PriorityDefault).
	Priority int
}
