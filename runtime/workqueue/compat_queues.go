package workqueue

import (
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
)

// This file gives client-go's typed workqueue names (k8s.io/client-go/util/
// workqueue, v0.37) to this package's queue, so that a controller written
// against client-go compiles after swapping the import path. Each name
// behaves as client-go's does wherever a controller can observe it; all of
// them are built on New and Options.

// TypedInterface is client-go's name for Interface.
type TypedInterface[T comparable] = Interface[T]

// TypedDelayingInterface is client-go's name for DelayingInterface.
type TypedDelayingInterface[T comparable] = DelayingInterface[T]

// TypedRateLimitingInterface is client-go's name for RateLimitingInterface.
type TypedRateLimitingInterface[T comparable] = RateLimitingInterface[T]

// TypedQueueConfig configures NewTypedWithConfig, with client-go's field
// names. The zero value is valid.
//
// client-go's Queue field (a pluggable item store) has no counterpart: this
// package's queue keeps its own store, so a config that sets it does not
// compile.
type TypedQueueConfig[T comparable] struct {
	// Name names the queue in metrics. As in client-go, an unnamed queue
	// reports no metrics even when MetricsProvider is set.
	Name string
	// MetricsProvider receives the queue's metrics when Name is set. Nil
	// means no metrics (this package has no process-wide provider).
	MetricsProvider MetricsProvider
	// Clock drives delays and metrics. Default: the real clock.
	Clock clock.WithTicker
}

// TypedDelayingQueueConfig configures NewTypedDelayingQueueWithConfig, with
// client-go's field names. The zero value is valid.
//
// client-go's Queue field (a custom Interface to add delays to) has no
// counterpart: a config that sets it does not compile. Wrap a custom queue
// yourself, or use Options.
type TypedDelayingQueueConfig[T comparable] struct {
	// Logger is accepted for client-go compatibility and not used: the
	// queue's delay goroutine logs nothing.
	Logger *klog.Logger
	// Name names the queue in metrics; unnamed queues report none.
	Name string
	// MetricsProvider receives the queue's metrics when Name is set.
	MetricsProvider MetricsProvider
	// Clock drives delays and metrics. Default: the real clock.
	Clock clock.WithTicker
}

// TypedRateLimitingQueueConfig configures
// NewTypedRateLimitingQueueWithConfig, with client-go's field names. The
// zero value is valid.
type TypedRateLimitingQueueConfig[T comparable] struct {
	// Name names the queue in metrics; unnamed queues report none.
	Name string
	// MetricsProvider receives the queue's metrics when Name is set.
	MetricsProvider MetricsProvider
	// Clock drives delays, rate limiting and metrics. Default: the real
	// clock. It is ignored when DelayingQueue is set.
	Clock clock.WithTicker
	// DelayingQueue, when set, is the queue that holds the items:
	// AddRateLimited becomes DelayingQueue.AddAfter(item, limiter's When),
	// and every other method is DelayingQueue's own. Tests use it to observe
	// the delays a controller asks for. Name, MetricsProvider and Clock are
	// then ignored.
	DelayingQueue TypedDelayingInterface[T]
}

// compatOptions turns client-go's config fields into Options. As in
// client-go, metrics are reported only for a named queue.
func compatOptions[T comparable](name string, mp MetricsProvider, c clock.WithTicker, rl RateLimiter[T]) Options[T] {
	o := Options[T]{Name: name, Clock: c, RateLimiter: rl}
	if name != "" {
		o.MetricsProvider = mp
	}
	return o
}

// NewTyped returns an empty queue without metrics, as client-go's NewTyped
// does.
func NewTyped[T comparable]() *Typed[T] {
	return New(Options[T]{})
}

// NewTypedWithConfig returns an empty queue configured by config.
func NewTypedWithConfig[T comparable](config TypedQueueConfig[T]) *Typed[T] {
	return New(compatOptions[T](config.Name, config.MetricsProvider, config.Clock, nil))
}

// NewTypedDelayingQueue returns an empty queue that supports AddAfter,
// without metrics.
func NewTypedDelayingQueue[T comparable]() TypedDelayingInterface[T] {
	return New(Options[T]{})
}

// NewTypedDelayingQueueWithConfig returns an empty queue that supports
// AddAfter, configured by config.
func NewTypedDelayingQueueWithConfig[T comparable](config TypedDelayingQueueConfig[T]) TypedDelayingInterface[T] {
	return New(compatOptions[T](config.Name, config.MetricsProvider, config.Clock, nil))
}

// NewTypedRateLimitingQueue returns an empty queue whose AddRateLimited asks
// rateLimiter for each item's delay. A nil rateLimiter means
// DefaultControllerRateLimiter (client-go would panic on first use).
func NewTypedRateLimitingQueue[T comparable](rateLimiter TypedRateLimiter[T]) TypedRateLimitingInterface[T] {
	return New(Options[T]{RateLimiter: rateLimiter})
}

// NewTypedRateLimitingQueueWithConfig is NewTypedRateLimitingQueue
// configured by config; see TypedRateLimitingQueueConfig for DelayingQueue.
func NewTypedRateLimitingQueueWithConfig[T comparable](rateLimiter TypedRateLimiter[T], config TypedRateLimitingQueueConfig[T]) TypedRateLimitingInterface[T] {
	if config.DelayingQueue != nil {
		if rateLimiter == nil {
			rateLimiter = DefaultControllerRateLimiter[T]()
		}
		return &rateLimitedDelayingQueue[T]{TypedDelayingInterface: config.DelayingQueue, limiter: rateLimiter}
	}
	return New(compatOptions(config.Name, config.MetricsProvider, config.Clock, rateLimiter))
}

// rateLimitedDelayingQueue adds rate limiting to a caller's delaying queue:
// AddRateLimited is AddAfter with the limiter's delay.
type rateLimitedDelayingQueue[T comparable] struct {
	TypedDelayingInterface[T]
	limiter RateLimiter[T]
}

// AddRateLimited adds item after the limiter's delay for it.
func (q *rateLimitedDelayingQueue[T]) AddRateLimited(item T) {
	q.AddAfter(item, q.limiter.When(item))
}

// Forget clears item's history in the limiter.
func (q *rateLimitedDelayingQueue[T]) Forget(item T) { q.limiter.Forget(item) }

// NumRequeues returns the limiter's count for item.
func (q *rateLimitedDelayingQueue[T]) NumRequeues(item T) int { return q.limiter.NumRequeues(item) }
