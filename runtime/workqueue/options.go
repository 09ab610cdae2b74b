package workqueue

import (
	"time"

	"k8s.io/utils/clock"
)

// Options configures a Typed queue. The zero value is a valid configuration: each
// unset field takes the default documented on it.
type Options[T comparable] struct {
	// Name names the queue in metrics. Default "".
	Name string
	// Clock drives delays, rate limiting and metrics. Default: the real
	// clock. Tests pass a k8s.io/utils/clock/testing.FakeClock.
	Clock clock.WithTicker
	// RateLimiter serves AddRateLimited, Forget and NumRequeues. Default:
	// DefaultControllerRateLimiter (built on Clock).
	RateLimiter RateLimiter[T]
	// MetricsProvider receives the queue's metrics, updated under the queue
	// mutex, so an Add is counted before it returns. Default nil: no
	// metrics, and the queue reads no clock on Add/Get/Done.
	MetricsProvider MetricsProvider
	// UnfinishedWorkUpdatePeriod is how often the unfinished-work and
	// longest-running-processor gauges are updated when MetricsProvider is
	// set. Default (0 or less) DefaultUnfinishedWorkUpdatePeriod (500ms).
	UnfinishedWorkUpdatePeriod time.Duration
	// DisablePriority makes every item priority PriorityDefault: AddWithOpts
	// ignores AddOpts.Priority and the queue is plain FIFO. Default false.
	DisablePriority bool
}

// DefaultUnfinishedWorkUpdatePeriod is the default of
// Options.UnfinishedWorkUpdatePeriod.
const DefaultUnfinishedWorkUpdatePeriod = 500 * time.Millisecond

// withDefaults returns o with every unset field given its documented
// default. It is the only place those defaults are applied.
func (o Options[T]) withDefaults() Options[T] {
	if o.Clock == nil {
		o.Clock = clock.RealClock{}
	}
	if o.RateLimiter == nil {
		o.RateLimiter = newDefaultControllerRateLimiter[T](o.Clock)
	}
	if o.UnfinishedWorkUpdatePeriod <= 0 {
		o.UnfinishedWorkUpdatePeriod = DefaultUnfinishedWorkUpdatePeriod
	}
	return o
}
