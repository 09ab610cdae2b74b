// Package workqueue is a typed work queue for controllers: the hand-off
// between informer event handlers, which add keys, and worker goroutines,
// which take them one at a time and reconcile.
//
// One concrete type, [Typed], implements every layer:
//
//   - [TypedInterface]: Add/Get/Done with the dirty/processing guarantees (an item
//     is never handed to two workers at once; an Add while it is being
//     processed is held and re-queued on Done; duplicates while queued
//     collapse to one).
//   - [TypedDelayingInterface]: AddAfter, served by one timer goroutine over a
//     min-heap; for the same item the earlier deadline wins.
//   - [TypedRateLimitingInterface]: AddRateLimited/Forget/NumRequeues over a
//     [TypedRateLimiter] (per-item exponential backoff, token bucket, max-of).
//   - [TypedPriorityInterface]: AddWithOpts with a priority; higher priorities are
//     handed out first, FIFO within a priority. Controllers add the objects
//     of an informer's initial list at [PriorityLow] so that live events go
//     first.
//
// Metrics are reported through an optional [MetricsProvider]; without one
// the queue takes no timestamps at all.
//
// Add never blocks beyond one short critical section and never paces the
// producer: a producer that runs ahead of the workers builds a backlog, and
// the backlog is where repeated Adds of the same key collapse into one
// reconcile. The locking protocol and invariants are written at the top of
// queue.go.
package workqueue
