package workqueue

import (
	"sync"
	"time"

	"k8s.io/utils/clock"
)

// BucketRateLimiter is an overall token bucket: it refills at qps tokens per
// second up to burst, and every When takes one token, returning how long the
// caller must wait for it (tokens may be borrowed from the future, so
// successive callers queue up behind each other). It does not track items:
// Forget does nothing and NumRequeues is 0.
type BucketRateLimiter[T comparable] struct {
	mu     sync.Mutex
	clock  clock.PassiveClock
	qps    float64
	burst  float64
	tokens float64
	last   time.Time
}

// NewBucketRateLimiter returns a full bucket of burst tokens refilled at qps
// per second. A nil clock is the real clock. qps <= 0 never delays.
func NewBucketRateLimiter[T comparable](qps float64, burst int, c clock.PassiveClock) *BucketRateLimiter[T] {
	if c == nil {
		c = clock.RealClock{}
	}
	return &BucketRateLimiter[T]{clock: c, qps: qps, burst: float64(burst), tokens: float64(burst), last: c.Now()}
}

// When takes a token and returns the wait until it is available.
func (b *BucketRateLimiter[T]) When(T) time.Duration {
	if b.qps <= 0 {
		return 0
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.clock.Now()
	if elapsed := now.Sub(b.last); elapsed > 0 {
		b.tokens = min(b.burst, b.tokens+elapsed.Seconds()*b.qps)
		b.last = now
	}
	b.tokens--
	if b.tokens >= 0 {
		return 0
	}
	return time.Duration(-b.tokens / b.qps * float64(time.Second))
}

// Forget does nothing: the bucket is not per item.
func (b *BucketRateLimiter[T]) Forget(T) {}

// NumRequeues is always 0: the bucket is not per item.
func (b *BucketRateLimiter[T]) NumRequeues(T) int { return 0 }
