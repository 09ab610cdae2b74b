package workqueue

import (
	"testing"
	"time"

	"k8s.io/utils/clock"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/typedinformer/typedinformer/internal/testutil"
)

// TestOptionsDefaults checks that each unset field of TypedQueueConfig gets the
// default its doc comment names, that set fields are kept, and that NewTypedWithConfig
// applies them.
func TestOptionsDefaults(t *testing.T) {
	fc := testingclock.NewFakeClock(time.Unix(0, 0))
	limiter := NewTypedItemExponentialFailureRateLimiter[string](time.Millisecond, time.Second)
	for _, tc := range []struct {
		name        string
		in          TypedQueueConfig[string]
		wantClock   clock.WithTicker
		wantLimiter TypedRateLimiter[string] // nil: the default one
		wantPeriod  time.Duration
	}{
		{"zero value gets the documented defaults", TypedQueueConfig[string]{}, clock.RealClock{}, nil, 500 * time.Millisecond},
		{"negative period gets the default", TypedQueueConfig[string]{UnfinishedWorkUpdatePeriod: -1}, clock.RealClock{}, nil, 500 * time.Millisecond},
		{"explicit values are kept", TypedQueueConfig[string]{Clock: fc, RateLimiter: limiter, UnfinishedWorkUpdatePeriod: time.Second}, fc, limiter, time.Second},
		{"the default limiter runs on the given clock", TypedQueueConfig[string]{Clock: fc}, fc, nil, 500 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.in.withDefaults()
			if got.Clock != tc.wantClock || got.UnfinishedWorkUpdatePeriod != tc.wantPeriod {
				t.Errorf("withDefaults() = clock %T, period %v; want %T, %v", got.Clock, got.UnfinishedWorkUpdatePeriod, tc.wantClock, tc.wantPeriod)
			}
			testutil.CheckDefaulted(t, "RateLimiter", got.RateLimiter, tc.wantLimiter, func(l TypedRateLimiter[string]) {
				checkDefaultLimiterClock(t, l, got.Clock)
			})
			q := NewTypedWithConfig(tc.in)
			defer q.ShutDown()
			if q.clock != tc.wantClock || q.period != tc.wantPeriod || q.limiter == nil ||
				(tc.wantLimiter != nil && q.limiter != tc.wantLimiter) {
				t.Errorf("NewTypedWithConfig kept clock %T, period %v, limiter %T", q.clock, q.period, q.limiter)
			}
		})
	}
}

// checkDefaultLimiterClock checks that l is DefaultTypedControllerRateLimiter's
// shape (per item 5ms doubling, overall 10 qps / 100 burst) and that its
// bucket reads c: after a burst of 100, the 101st request waits 100ms, and
// on a fake clock that does not move the next waits 100ms more.
func checkDefaultLimiterClock(t *testing.T, l TypedRateLimiter[string], c clock.WithTicker) {
	t.Helper()
	if d := l.When("first"); d != DefaultBaseDelay {
		t.Errorf("default limiter's first delay = %v, want %v", d, DefaultBaseDelay)
	}
	if _, fake := c.(*testingclock.FakeClock); !fake {
		return
	}
	for i := range DefaultBurst - 1 {
		l.When(string(rune('a'+i%26)) + string(rune('a'+i/26)))
	}
	if d := l.When("over"); d != time.Second/DefaultQPS {
		t.Errorf("the request after a burst waits %v, want %v", d, time.Second/DefaultQPS)
	}
	if d := l.When("over2"); d != 2*time.Second/DefaultQPS {
		t.Errorf("on a stopped clock the next waits %v, want %v", d, 2*time.Second/DefaultQPS)
	}
}
