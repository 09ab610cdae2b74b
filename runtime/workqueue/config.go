package workqueue

import (
	"time"

	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
)

// The constructors and configs below carry client-go's names
// (k8s.io/client-go/util/workqueue, v0.37), so a controller written against
// client-go compiles after swapping the import path and behaves the same
// wherever it can observe the queue. Every constructor returns the one
// concrete queue, Typed; the interface a constructor returns only narrows
// what the caller sees.

// TypedQueueConfig configures NewTypedWithConfig. The zero value is valid:
// each unset field takes the default documented on it. The fields after
// Clock are this package's additions; client-go's Queue field (a pluggable
// item store) has no counterpart, so a config that sets it does not compile.
type TypedQueueConfig[T comparable] struct {
	// Name names the queue in metrics. As in client-go, an unnamed queue
	// reports no metrics even when MetricsProvider is set.
	Name string
	// MetricsProvider receives the queue's metrics when Name is set,
	// updated under the queue mutex, so an Add is counted before it
	// returns. Nil means no metrics (this package has no process-wide
	// provider), and then the queue reads no clock on Add/Get/Done.
	MetricsProvider MetricsProvider
	// Clock drives delays, rate limiting and metrics. Default: the real
	// clock. Tests pass a k8s.io/utils/clock/testing.FakeClock.
	Clock clock.WithTicker
	// RateLimiter serves AddRateLimited, Forget and NumRequeues. Default:
	// DefaultTypedControllerRateLimiter, built on Clock.
	RateLimiter TypedRateLimiter[T]
	// UnfinishedWorkUpdatePeriod is how often the unfinished-work and
	// longest-running-processor gauges are updated when metrics are
	// reported. Default (0 or less): DefaultUnfinishedWorkUpdatePeriod.
	UnfinishedWorkUpdatePeriod time.Duration
	// DisablePriority makes every item priority PriorityDefault: AddWithOpts
	// ignores AddOpts.Priority and the queue is plain FIFO. Default false.
	DisablePriority bool
}

// DefaultUnfinishedWorkUpdatePeriod is the default of
// TypedQueueConfig.UnfinishedWorkUpdatePeriod.
const DefaultUnfinishedWorkUpdatePeriod = 500 * time.Millisecond

// withDefaults returns c with every unset field given its documented
// default and MetricsProvider cleared for an unnamed queue. It is the only
// place those defaults are applied.
func (c TypedQueueConfig[T]) withDefaults() TypedQueueConfig[T] {
	if c.Clock == nil {
		c.Clock = clock.RealClock{}
	}
	if c.RateLimiter == nil {
		c.RateLimiter = newDefaultControllerRateLimiter[T](c.Clock)
	}
	if c.UnfinishedWorkUpdatePeriod <= 0 {
		c.UnfinishedWorkUpdatePeriod = DefaultUnfinishedWorkUpdatePeriod
	}
	if c.Name == "" {
		c.MetricsProvider = nil
	}
	return c
}

// TypedDelayingQueueConfig configures NewTypedDelayingQueueWithConfig. The
// zero value is valid.
//
// client-go's Queue field (a custom queue to add delays to) has no
// counterpart: a config that sets it does not compile. Wrap a custom queue
// yourself, or use TypedQueueConfig.
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
// NewTypedRateLimitingQueueWithConfig. The zero value is valid.
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

// NewTyped returns an empty queue with the default configuration and no
// metrics.
func NewTyped[T comparable]() *Typed[T] {
	return newQueue(TypedQueueConfig[T]{})
}

// NewTypedWithConfig returns an empty queue configured by config. A queue
// that reports metrics starts one goroutine that updates the unfinished-work
// gauges; it and the delay goroutine (started on the first AddAfter) end on
// ShutDown.
func NewTypedWithConfig[T comparable](config TypedQueueConfig[T]) *Typed[T] {
	return newQueue(config)
}

// NewTypedDelayingQueue returns an empty queue that supports AddAfter,
// without metrics.
func NewTypedDelayingQueue[T comparable]() TypedDelayingInterface[T] {
	return newQueue(TypedQueueConfig[T]{})
}

// NewTypedDelayingQueueWithConfig returns an empty queue that supports
// AddAfter, configured by config.
func NewTypedDelayingQueueWithConfig[T comparable](config TypedDelayingQueueConfig[T]) TypedDelayingInterface[T] {
	return newQueue(TypedQueueConfig[T]{Name: config.Name, MetricsProvider: config.MetricsProvider, Clock: config.Clock})
}

// NewTypedRateLimitingQueue returns an empty queue whose AddRateLimited asks
// rateLimiter for each item's delay. A nil rateLimiter means
// DefaultTypedControllerRateLimiter (client-go would panic on first use).
func NewTypedRateLimitingQueue[T comparable](rateLimiter TypedRateLimiter[T]) TypedRateLimitingInterface[T] {
	return newQueue(TypedQueueConfig[T]{RateLimiter: rateLimiter})
}

// NewTypedRateLimitingQueueWithConfig is NewTypedRateLimitingQueue
// configured by config; see TypedRateLimitingQueueConfig for DelayingQueue.
func NewTypedRateLimitingQueueWithConfig[T comparable](rateLimiter TypedRateLimiter[T], config TypedRateLimitingQueueConfig[T]) TypedRateLimitingInterface[T] {
	if config.DelayingQueue != nil {
		if rateLimiter == nil {
			rateLimiter = DefaultTypedControllerRateLimiter[T]()
		}
		return &rateLimitedDelayingQueue[T]{TypedDelayingInterface: config.DelayingQueue, limiter: rateLimiter}
	}
	return newQueue(TypedQueueConfig[T]{Name: config.Name, MetricsProvider: config.MetricsProvider, Clock: config.Clock, RateLimiter: rateLimiter})
}

// rateLimitedDelayingQueue adds rate limiting to a caller's delaying queue:
// AddRateLimited is AddAfter with the limiter's delay.
type rateLimitedDelayingQueue[T comparable] struct {
	TypedDelayingInterface[T]
	limiter TypedRateLimiter[T]
}

// AddRateLimited adds item after the limiter's delay for it.
func (q *rateLimitedDelayingQueue[T]) AddRateLimited(item T) {
	q.AddAfter(item, q.limiter.When(item))
}

// Forget clears item's history in the limiter.
func (q *rateLimitedDelayingQueue[T]) Forget(item T) { q.limiter.Forget(item) }

// NumRequeues returns the limiter's count for item.
func (q *rateLimitedDelayingQueue[T]) NumRequeues(item T) int { return q.limiter.NumRequeues(item) }
