package workqueue

import (
	"math"
	"sync"
	"time"

	"k8s.io/utils/clock"
)

// RateLimiter decides how long an item waits before it is retried. All
// implementations in this package are safe for concurrent use.
type RateLimiter[T comparable] interface {
	// When returns how long item must wait now, and records the attempt.
	When(item T) time.Duration
	// Forget clears item's history: its next When starts from scratch.
	Forget(item T)
	// NumRequeues returns how many times When was called for item since its
	// last Forget.
	NumRequeues(item T) int
}

// Defaults of DefaultControllerRateLimiter.
const (
	DefaultBaseDelay = 5 * time.Millisecond
	DefaultMaxDelay  = 1000 * time.Second
	DefaultQPS       = 10
	DefaultBurst     = 100
)

// DefaultControllerRateLimiter is the limiter controllers use unless told
// otherwise: per item, DefaultBaseDelay doubling on every failure up to
// DefaultMaxDelay; overall, a token bucket of DefaultQPS with DefaultBurst;
// an item waits for the longer of the two.
func DefaultControllerRateLimiter[T comparable]() RateLimiter[T] {
	return newDefaultControllerRateLimiter[T](clock.RealClock{})
}

func newDefaultControllerRateLimiter[T comparable](c clock.PassiveClock) RateLimiter[T] {
	return NewMaxOfRateLimiter[T](
		NewItemExponentialFailureRateLimiter[T](DefaultBaseDelay, DefaultMaxDelay),
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

// ItemExponentialFailureRateLimiter delays an item base*2^n, where n is the
// number of When calls for it since its last Forget, capped at maxDelay.
// Forget and NumRequeues act on that per-item count.
type ItemExponentialFailureRateLimiter[T comparable] struct {
	itemCounts[T]
	baseDelay time.Duration
	maxDelay  time.Duration
}

// NewItemExponentialFailureRateLimiter returns a per-item exponential
// limiter: the first When returns baseDelay, then 2*baseDelay, 4*baseDelay,
// ... up to maxDelay.
func NewItemExponentialFailureRateLimiter[T comparable](baseDelay, maxDelay time.Duration) *ItemExponentialFailureRateLimiter[T] {
	return &ItemExponentialFailureRateLimiter[T]{baseDelay: baseDelay, maxDelay: maxDelay}
}

// When returns item's next backoff and counts the failure.
func (r *ItemExponentialFailureRateLimiter[T]) When(item T) time.Duration {
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

// ItemFastSlowRateLimiter retries an item after fast for its first
// maxFast attempts and after slow from then on. Forget and NumRequeues act
// on the per-item attempt count.
type ItemFastSlowRateLimiter[T comparable] struct {
	itemCounts[T]
	fast    time.Duration
	slow    time.Duration
	maxFast int
}

// NewItemFastSlowRateLimiter returns a fast/slow limiter.
func NewItemFastSlowRateLimiter[T comparable](fast, slow time.Duration, maxFast int) *ItemFastSlowRateLimiter[T] {
	return &ItemFastSlowRateLimiter[T]{fast: fast, slow: slow, maxFast: maxFast}
}

// When returns fast for the first maxFast attempts, then slow.
func (r *ItemFastSlowRateLimiter[T]) When(item T) time.Duration {
	if r.next(item) < r.maxFast {
		return r.fast
	}
	return r.slow
}

// MaxOfRateLimiter combines limiters: When asks every one of them (so each
// records the attempt) and returns the longest delay.
type MaxOfRateLimiter[T comparable] struct {
	limiters []RateLimiter[T]
}

// NewMaxOfRateLimiter returns a limiter that waits for the longest of
// limiters.
func NewMaxOfRateLimiter[T comparable](limiters ...RateLimiter[T]) *MaxOfRateLimiter[T] {
	return &MaxOfRateLimiter[T]{limiters: limiters}
}

// When returns the longest of the limiters' delays.
func (r *MaxOfRateLimiter[T]) When(item T) time.Duration {
	var longest time.Duration
	for _, l := range r.limiters {
		longest = max(longest, l.When(item))
	}
	return longest
}

// Forget forgets item in every limiter.
func (r *MaxOfRateLimiter[T]) Forget(item T) {
	for _, l := range r.limiters {
		l.Forget(item)
	}
}

// NumRequeues returns the largest count among the limiters.
func (r *MaxOfRateLimiter[T]) NumRequeues(item T) int {
	n := 0
	for _, l := range r.limiters {
		n = max(n, l.NumRequeues(item))
	}
	return n
}

// WithMaxWaitRateLimiter caps the delay of another limiter.
type WithMaxWaitRateLimiter[T comparable] struct {
	limiter RateLimiter[T]
	maxWait time.Duration
}

// NewWithMaxWaitRateLimiter returns limiter with every delay capped at
// maxWait.
func NewWithMaxWaitRateLimiter[T comparable](limiter RateLimiter[T], maxWait time.Duration) *WithMaxWaitRateLimiter[T] {
	return &WithMaxWaitRateLimiter[T]{limiter: limiter, maxWait: maxWait}
}

// When returns the wrapped delay, at most maxWait.
func (r *WithMaxWaitRateLimiter[T]) When(item T) time.Duration {
	return min(r.limiter.When(item), r.maxWait)
}

// Forget forgets item in the wrapped limiter.
func (r *WithMaxWaitRateLimiter[T]) Forget(item T) { r.limiter.Forget(item) }

// NumRequeues returns the wrapped limiter's count.
func (r *WithMaxWaitRateLimiter[T]) NumRequeues(item T) int { return r.limiter.NumRequeues(item) }
