package workqueue

import (
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"
	"k8s.io/utils/clock"
)

// TypedRateLimiter decides how long an item waits before it is retried.
// All implementations in this package are safe for concurrent use; every
// constructor returns this interface, as client-go's do.
type TypedRateLimiter[T comparable] interface {
	// When returns how long item must wait now, and records the attempt.
	When(item T) time.Duration
	// Forget clears item's history: its next When starts from scratch.
	Forget(item T)
	// NumRequeues returns how many times When was called for item since its
	// last Forget.
	NumRequeues(item T) int
}

// Defaults of DefaultTypedControllerRateLimiter and
// DefaultTypedItemBasedRateLimiter.
const (
	DefaultBaseDelay     = 5 * time.Millisecond
	DefaultItemBaseDelay = time.Millisecond
	DefaultMaxDelay      = 1000 * time.Second
	DefaultQPS           = 10
	DefaultBurst         = 100
)

// DefaultTypedControllerRateLimiter is the limiter controllers use unless
// told otherwise: per item, DefaultBaseDelay (5ms) doubling on every failure
// up to DefaultMaxDelay (1000s); overall, a token bucket of DefaultQPS (10)
// with DefaultBurst (100); an item waits for the longer of the two.
func DefaultTypedControllerRateLimiter[T comparable]() TypedRateLimiter[T] {
	return newDefaultControllerRateLimiter[T](clock.RealClock{})
}

// DefaultTypedItemBasedRateLimiter is a per-item exponential limiter from
// DefaultItemBaseDelay (1ms) doubling up to DefaultMaxDelay (1000s), with no
// overall bucket.
func DefaultTypedItemBasedRateLimiter[T comparable]() TypedRateLimiter[T] {
	return NewTypedItemExponentialFailureRateLimiter[T](DefaultItemBaseDelay, DefaultMaxDelay)
}

func newDefaultControllerRateLimiter[T comparable](c clock.PassiveClock) TypedRateLimiter[T] {
	return NewTypedMaxOfRateLimiter[T](
		NewTypedItemExponentialFailureRateLimiter[T](DefaultBaseDelay, DefaultMaxDelay),
		newBucketRateLimiter[T](DefaultQPS, DefaultBurst, c),
	)
}

// itemCounts counts When calls per item since its last Forget; the per-item
// limiters share it for their Forget and NumRequeues.
type itemCounts[T comparable] struct {
	mu     sync.Mutex
	counts map[T]int
}

// next counts one more attempt of item and returns the count before it.
func (c *itemCounts[T]) next(item T) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.counts == nil {
		c.counts = make(map[T]int)
	}
	n := c.counts[item]
	c.counts[item] = n + 1
	return n
}

// Forget resets item's count.
func (c *itemCounts[T]) Forget(item T) {
	c.mu.Lock()
	delete(c.counts, item)
	c.mu.Unlock()
}

// NumRequeues returns item's count.
func (c *itemCounts[T]) NumRequeues(item T) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.counts[item]
}

// TypedItemExponentialFailureRateLimiter delays an item base*2^n, where n is the
// number of When calls for it since its last Forget, capped at maxDelay.
// Forget and NumRequeues act on that per-item count.
type TypedItemExponentialFailureRateLimiter[T comparable] struct {
	itemCounts[T]
	baseDelay time.Duration
	maxDelay  time.Duration
}

// NewTypedItemExponentialFailureRateLimiter returns a per-item exponential
// limiter: the first When since the last Forget returns baseDelay, then
// 2*baseDelay, 4*baseDelay, ... up to maxDelay.
func NewTypedItemExponentialFailureRateLimiter[T comparable](baseDelay, maxDelay time.Duration) TypedRateLimiter[T] {
	return &TypedItemExponentialFailureRateLimiter[T]{baseDelay: baseDelay, maxDelay: maxDelay}
}

// When returns item's next backoff and counts the failure.
func (r *TypedItemExponentialFailureRateLimiter[T]) When(item T) time.Duration {
	n := r.next(item)
	if r.baseDelay <= 0 {
		return 0
	}
	// baseDelay * 2^n, computed in float to survive large n, capped at maxDelay.
	d := float64(r.baseDelay) * math.Pow(2, float64(n))
	if d >= float64(r.maxDelay) || d > math.MaxInt64 {
		return r.maxDelay
	}
	return time.Duration(d)
}

// TypedItemFastSlowRateLimiter retries an item after fast for its first
// maxFast attempts and after slow from then on. Forget and NumRequeues act
// on the per-item attempt count.
type TypedItemFastSlowRateLimiter[T comparable] struct {
	itemCounts[T]
	fast    time.Duration
	slow    time.Duration
	maxFast int
}

// NewTypedItemFastSlowRateLimiter returns a per-item limiter that returns
// fast for the first maxFast Whens since the last Forget and slow
// afterwards.
func NewTypedItemFastSlowRateLimiter[T comparable](fast, slow time.Duration, maxFast int) TypedRateLimiter[T] {
	return &TypedItemFastSlowRateLimiter[T]{fast: fast, slow: slow, maxFast: maxFast}
}

// When returns fast for the first maxFast attempts, then slow.
func (r *TypedItemFastSlowRateLimiter[T]) When(item T) time.Duration {
	if r.next(item) < r.maxFast {
		return r.fast
	}
	return r.slow
}

// TypedMaxOfRateLimiter combines limiters: When asks every one of them (so each
// records the attempt) and returns the longest delay.
type TypedMaxOfRateLimiter[T comparable] struct {
	limiters []TypedRateLimiter[T]
}

// NewTypedMaxOfRateLimiter returns a limiter that waits for the longest of
// limiters; NumRequeues is the largest count among them.
func NewTypedMaxOfRateLimiter[T comparable](limiters ...TypedRateLimiter[T]) TypedRateLimiter[T] {
	return &TypedMaxOfRateLimiter[T]{limiters: limiters}
}

// When returns the longest of the limiters' delays.
func (r *TypedMaxOfRateLimiter[T]) When(item T) time.Duration {
	var longest time.Duration
	for _, l := range r.limiters {
		longest = max(longest, l.When(item))
	}
	return longest
}

// Forget forgets item in every limiter.
func (r *TypedMaxOfRateLimiter[T]) Forget(item T) {
	for _, l := range r.limiters {
		l.Forget(item)
	}
}

// NumRequeues returns the largest count among the limiters.
func (r *TypedMaxOfRateLimiter[T]) NumRequeues(item T) int {
	n := 0
	for _, l := range r.limiters {
		n = max(n, l.NumRequeues(item))
	}
	return n
}

// TypedWithMaxWaitRateLimiter caps the delay of another limiter.
type TypedWithMaxWaitRateLimiter[T comparable] struct {
	limiter TypedRateLimiter[T]
	maxWait time.Duration
}

// NewTypedWithMaxWaitRateLimiter returns limiter with every delay capped at
// maxWait.
func NewTypedWithMaxWaitRateLimiter[T comparable](limiter TypedRateLimiter[T], maxWait time.Duration) TypedRateLimiter[T] {
	return &TypedWithMaxWaitRateLimiter[T]{limiter: limiter, maxWait: maxWait}
}

// When returns the wrapped delay, at most maxWait.
func (r *TypedWithMaxWaitRateLimiter[T]) When(item T) time.Duration {
	return min(r.limiter.When(item), r.maxWait)
}

// Forget forgets item in the wrapped limiter.
func (r *TypedWithMaxWaitRateLimiter[T]) Forget(item T) { r.limiter.Forget(item) }

// NumRequeues returns the wrapped limiter's count.
func (r *TypedWithMaxWaitRateLimiter[T]) NumRequeues(item T) int { return r.limiter.NumRequeues(item) }

// TypedBucketRateLimiter adapts a golang.org/x/time/rate token bucket to a
// RateLimiter, with client-go's shape: build it as
// &TypedBucketRateLimiter[T]{Limiter: rate.NewLimiter(qps, burst)}. Every
// When reserves one token and returns how long until it is available
// (tokens are borrowed from the future, so successive callers queue up
// behind each other); the bucket is not per item, so Forget does nothing
// and NumRequeues is 0. Concurrency safety is the rate.Limiter's.
type TypedBucketRateLimiter[T comparable] struct {
	*rate.Limiter
	// clock, when set (only inside this package, for tests of the
	// default limiter), is the time the bucket is read at; nil is the
	// real clock.
	clock clock.PassiveClock
}

// newBucketRateLimiter returns a full bucket of burst tokens refilled at qps
// per second, read at c's time.
func newBucketRateLimiter[T comparable](qps float64, burst int, c clock.PassiveClock) *TypedBucketRateLimiter[T] {
	return &TypedBucketRateLimiter[T]{Limiter: rate.NewLimiter(rate.Limit(qps), burst), clock: c}
}

// When reserves a token and returns the wait until it is available.
func (r *TypedBucketRateLimiter[T]) When(T) time.Duration {
	if r.clock == nil {
		return r.Reserve().Delay()
	}
	now := r.clock.Now()
	return r.ReserveN(now, 1).DelayFrom(now)
}

// NumRequeues is always 0: the bucket is not per item.
func (r *TypedBucketRateLimiter[T]) NumRequeues(T) int { return 0 }

// Forget does nothing: the bucket is not per item.
func (r *TypedBucketRateLimiter[T]) Forget(T) {}
