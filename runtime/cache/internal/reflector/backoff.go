package reflector

import (
	"math/rand/v2"
	"time"

	"k8s.io/utils/clock"
)

// backoff computes retry delays: exponential from initial to max with up to
// 100% jitter (never above max), reset to initial once resetAfter has passed
// since the previous failure. It is used by one goroutine.
type backoff struct {
	initial, max, resetAfter time.Duration
	clock                    clock.Clock

	cur         time.Duration
	lastFailure time.Time
}

// next records a failure now and returns how long to wait before retrying.
func (b *backoff) next() time.Duration {
	now := b.clock.Now()
	if b.cur == 0 || now.Sub(b.lastFailure) >= b.resetAfter {
		b.cur = b.initial
	} else {
		b.cur = min(b.cur*2, b.max)
	}
	b.lastFailure = now
	d := b.cur + time.Duration(rand.Int64N(int64(b.cur)+1))
	return min(d, b.max)
}

// wait sleeps for d on the backoff's clock, returning false if done closes
// first.
func (b *backoff) wait(done <-chan struct{}, d time.Duration) bool {
	t := b.clock.NewTimer(d)
	defer t.Stop()
	select {
	case <-done:
		return false
	case <-t.C():
		return true
	}
}
