package workqueue

import (
	"time"

	"golang.org/x/time/rate"
	"k8s.io/utils/clock"
)

// client-go's typed rate limiter names (k8s.io/client-go/util/workqueue,
// v0.37) over this package's limiters. The constructors return the
// TypedRateLimiter interface, as client-go's do.

// TypedRateLimiter is client-go's name for RateLimiter.
type TypedRateLimiter[T comparable] = RateLimiter[T]

// TypedItemExponentialFailureRateLimiter is client-go's name for
// ItemExponentialFailureRateLimiter.
type TypedItemExponentialFailureRateLimiter[T comparable] = ItemExponentialFailureRateLimiter[T]

// TypedItemFastSlowRateLimiter is client-go's name for
// ItemFastSlowRateLimiter.
type TypedItemFastSlowRateLimiter[T comparable] = ItemFastSlowRateLimiter[T]

// TypedMaxOfRateLimiter is client-go's name for MaxOfRateLimiter.
type TypedMaxOfRateLimiter[T comparable] = MaxOfRateLimiter[T]

// TypedWithMaxWaitRateLimiter is client-go's name for
// WithMaxWaitRateLimiter.
type TypedWithMaxWaitRateLimiter[T comparable] = WithMaxWaitRateLimiter[T]

// DefaultItemBaseDelay is the per-item base delay of
// DefaultTypedItemBasedRateLimiter, as in client-go.
const DefaultItemBaseDelay = time.Millisecond

// DefaultTypedControllerRateLimiter is client-go's name for
// DefaultControllerRateLimiter: per item 5ms doubling up to 1000s, overall a
// token bucket of 10 qps with a burst of 100, the longer of the two.
func DefaultTypedControllerRateLimiter[T comparable]() TypedRateLimiter[T] {
	return DefaultControllerRateLimiter[T]()
}

// DefaultTypedItemBasedRateLimiter is a per-item exponential limiter from
// DefaultItemBaseDelay (1ms) doubling up to DefaultMaxDelay (1000s), with no
// overall bucket, as client-go's.
func DefaultTypedItemBasedRateLimiter[T comparable]() TypedRateLimiter[T] {
	return NewItemExponentialFailureRateLimiter[T](DefaultItemBaseDelay, DefaultMaxDelay)
}

// NewTypedItemExponentialFailureRateLimiter returns a per-item limiter whose
// n-th When since the last Forget returns baseDelay*2^(n-1), capped at
// maxDelay.
func NewTypedItemExponentialFailureRateLimiter[T comparable](baseDelay, maxDelay time.Duration) TypedRateLimiter[T] {
	return NewItemExponentialFailureRateLimiter[T](baseDelay, maxDelay)
}

// NewTypedItemFastSlowRateLimiter returns a per-item limiter that returns
// fastDelay for the first maxFastAttempts Whens since the last Forget and
// slowDelay afterwards.
func NewTypedItemFastSlowRateLimiter[T comparable](fastDelay, slowDelay time.Duration, maxFastAttempts int) TypedRateLimiter[T] {
	return NewItemFastSlowRateLimiter[T](fastDelay, slowDelay, maxFastAttempts)
}

// NewTypedMaxOfRateLimiter returns a limiter whose When asks every limiter
// and returns the longest delay; NumRequeues is the largest count.
func NewTypedMaxOfRateLimiter[T comparable](limiters ...TypedRateLimiter[T]) TypedRateLimiter[T] {
	return NewMaxOfRateLimiter(limiters...)
}

// NewTypedWithMaxWaitRateLimiter returns limiter with every delay capped at
// maxDelay.
func NewTypedWithMaxWaitRateLimiter[T comparable](limiter TypedRateLimiter[T], maxDelay time.Duration) TypedRateLimiter[T] {
	return NewWithMaxWaitRateLimiter(limiter, maxDelay)
}

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

// BucketRateLimiter is TypedBucketRateLimiter, the name client-go gives its
// untyped variant; a port from client-go adds the item type.
type BucketRateLimiter[T comparable] = TypedBucketRateLimiter[T]

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
