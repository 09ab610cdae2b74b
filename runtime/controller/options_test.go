package controller

import (
	"context"
	"fmt"
	"testing"
	"time"

	"k8s.io/utils/clock"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/typedinformer/typedinformer/internal/testutil"
	"github.com/typedinformer/typedinformer/runtime/workqueue"
)

// TestOptionsDefaults checks that each unset field of Options gets the
// default its doc comment names, that set fields are kept, and that New
// applies them.
func TestOptionsDefaults(t *testing.T) {
	fc := testingclock.NewFakeClock(time.Unix(0, 0))
	limiter := workqueue.NewTypedItemExponentialFailureRateLimiter[Request](time.Millisecond, time.Second)
	no := false
	for _, tc := range []struct {
		name           string
		in             Options
		wantWorkers    int
		wantTimeout    time.Duration
		wantClock      clock.WithTicker
		wantLimiter    workqueue.TypedRateLimiter[Request] // nil: the default one
		wantRecover    bool
		wantPrioritize bool
	}{
		{"zero value gets the documented defaults", Options{}, 1, 2 * time.Minute, clock.RealClock{}, nil, true, true},
		{"negative numbers get the defaults", Options{MaxConcurrentReconciles: -1, CacheSyncTimeout: -1}, 1, 2 * time.Minute, clock.RealClock{}, nil, true, true},
		{"explicit values are kept", Options{
			MaxConcurrentReconciles: 4, CacheSyncTimeout: time.Second, Clock: fc, RateLimiter: limiter,
			RecoverPanic: &no, PrioritizeLiveEvents: &no,
		}, 4, time.Second, fc, limiter, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.in.withDefaults()
			if got.MaxConcurrentReconciles != tc.wantWorkers || got.CacheSyncTimeout != tc.wantTimeout || got.Clock != tc.wantClock {
				t.Errorf("withDefaults() = workers %d, timeout %v, clock %T; want %d, %v, %T",
					got.MaxConcurrentReconciles, got.CacheSyncTimeout, got.Clock, tc.wantWorkers, tc.wantTimeout, tc.wantClock)
			}
			if got.RecoverPanic == nil || *got.RecoverPanic != tc.wantRecover ||
				got.PrioritizeLiveEvents == nil || *got.PrioritizeLiveEvents != tc.wantPrioritize {
				t.Errorf("withDefaults() = RecoverPanic %s, PrioritizeLiveEvents %s; want %t, %t",
					boolPtr(got.RecoverPanic), boolPtr(got.PrioritizeLiveEvents), tc.wantRecover, tc.wantPrioritize)
			}
			testutil.CheckDefaulted(t, "RateLimiter", got.RateLimiter, tc.wantLimiter, func(l workqueue.TypedRateLimiter[Request]) {
				// The default is DefaultControllerRateLimiter: 5ms doubling
				// per request.
				if d := l.When(Request{}); d != workqueue.DefaultBaseDelay {
					t.Errorf("default RateLimiter's first delay = %v, want %v", d, workqueue.DefaultBaseDelay)
				}
			})
			if got.Logger != nil {
				t.Error("withDefaults() set Logger; its default is Start's context logger")
			}
			c, err := New("c", ReconcilerFunc(func(context.Context, Request) (Result, error) { return Result{}, nil }), tc.in)
			if err != nil {
				t.Fatal(err)
			}
			defer c.queue.ShutDown()
			if c.opts.MaxConcurrentReconciles != tc.wantWorkers || c.opts.CacheSyncTimeout != tc.wantTimeout ||
				c.clock != tc.wantClock || c.recover != tc.wantRecover || c.lowInitial != tc.wantPrioritize {
				t.Errorf("New kept workers %d, timeout %v, clock %T, recover %t, lowInitial %t",
					c.opts.MaxConcurrentReconciles, c.opts.CacheSyncTimeout, c.clock, c.recover, c.lowInitial)
			}
		})
	}
}

// boolPtr formats b as "nil" or its value.
func boolPtr(b *bool) string {
	if b == nil {
		return "nil"
	}
	return fmt.Sprint(*b)
}
