package workqueue

import (
	"fmt"
	"testing"
	"testing/synctest"
	"time"
)

func TestItemExponentialFailureRateLimiter(t *testing.T) {
	r := NewTypedItemExponentialFailureRateLimiter[string](5*time.Millisecond, 40*time.Millisecond)
	want := []time.Duration{5, 10, 20, 40, 40, 40}
	for i, w := range want {
		if got := r.When("a"); got != w*time.Millisecond {
			t.Fatalf("When #%d = %v, want %v", i, got, w*time.Millisecond)
		}
	}
	if got := r.When("b"); got != 5*time.Millisecond {
		t.Fatalf("items must back off independently; b got %v", got)
	}
	if n := r.NumRequeues("a"); n != 6 {
		t.Fatalf("NumRequeues = %d, want 6", n)
	}
	r.Forget("a")
	if n := r.NumRequeues("a"); n != 0 {
		t.Fatalf("NumRequeues after Forget = %d", n)
	}
	if got := r.When("a"); got != 5*time.Millisecond {
		t.Fatalf("When after Forget = %v, want the base delay", got)
	}
}

func TestItemExponentialFailureRateLimiterOverflow(t *testing.T) {
	r := NewTypedItemExponentialFailureRateLimiter[string](time.Millisecond, 1000*time.Second)
	var last time.Duration
	for range 200 {
		last = r.When("a")
		if last < 0 {
			t.Fatalf("delay overflowed to %v", last)
		}
	}
	if last != 1000*time.Second {
		t.Fatalf("delay = %v, want the cap", last)
	}
}

func TestBucketRateLimiter(t *testing.T) {
	clk := newFakeClock()
	b := newBucketRateLimiter[string](10, 3, clk)
	want := []time.Duration{0, 0, 0, 100 * time.Millisecond, 200 * time.Millisecond}
	for i, w := range want {
		if got := b.When("x"); got != w {
			t.Fatalf("When #%d = %v, want %v", i, got, w)
		}
	}
	// Two tokens of debt; a second refills 10, and the bucket holds at most
	// its burst of 3.
	clk.Step(time.Second)
	for i := range 3 {
		if got := b.When("x"); got != 0 {
			t.Fatalf("after refill, When #%d = %v, want 0", i, got)
		}
	}
	if got := b.When("x"); got != 100*time.Millisecond {
		t.Fatalf("past burst after refill: %v, want 100ms", got)
	}
	if b.NumRequeues("x") != 0 {
		t.Fatal("bucket counts no requeues")
	}
	b.Forget("x")
}

func TestMaxOfAndDefaultRateLimiter(t *testing.T) {
	clk := newFakeClock()
	r := newDefaultControllerRateLimiter[string](clk)
	// Per-item backoff dominates while the bucket has tokens.
	for i, w := range []time.Duration{5 * time.Millisecond, 10 * time.Millisecond, 20 * time.Millisecond} {
		if got := r.When("a"); got != w {
			t.Fatalf("When #%d = %v, want %v", i, got, w)
		}
	}
	if r.NumRequeues("a") != 3 {
		t.Fatalf("NumRequeues = %d", r.NumRequeues("a"))
	}
	r.Forget("a")
	if r.NumRequeues("a") != 0 {
		t.Fatal("Forget did not reach the per-item limiter")
	}
	// Drain the bucket (100 burst, 3 already used): the overall limit then
	// dominates fresh items.
	for i := range 97 {
		r.When(string(rune('A'+i%26)) + "-" + string(rune('a'+i/26)))
	}
	if got := r.When("fresh"); got != 100*time.Millisecond {
		t.Fatalf("with the bucket empty a fresh item waits %v, want 100ms", got)
	}
}

func TestItemFastSlowAndMaxWait(t *testing.T) {
	fs := NewTypedItemFastSlowRateLimiter[string](time.Millisecond, time.Minute, 2)
	got := []time.Duration{fs.When("a"), fs.When("a"), fs.When("a")}
	if got[0] != time.Millisecond || got[1] != time.Millisecond || got[2] != time.Minute {
		t.Fatalf("fast/slow = %v", got)
	}
	if fs.NumRequeues("a") != 3 {
		t.Fatal("attempts not counted")
	}
	fs.Forget("a")
	if fs.When("a") != time.Millisecond {
		t.Fatal("Forget did not reset")
	}
	capped := NewTypedWithMaxWaitRateLimiter[string](NewTypedItemFastSlowRateLimiter[string](time.Hour, time.Hour, 0), time.Second)
	if d := capped.When("a"); d != time.Second {
		t.Fatalf("capped delay = %v", d)
	}
	if capped.NumRequeues("a") != 1 {
		t.Fatal("NumRequeues not forwarded")
	}
	capped.Forget("a")
	if capped.NumRequeues("a") != 0 {
		t.Fatal("Forget not forwarded")
	}
}

func TestQueueAddRateLimited(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := newFakeClock()
		q := NewTypedWithConfig(TypedQueueConfig[string]{Clock: clk, RateLimiter: NewTypedItemExponentialFailureRateLimiter[string](time.Second, time.Minute)})
		defer q.ShutDown()
		for attempt, delay := range []time.Duration{time.Second, 2 * time.Second, 4 * time.Second} {
			q.AddRateLimited("a")
			if q.NumRequeues("a") != attempt+1 {
				t.Fatalf("NumRequeues = %d, want %d", q.NumRequeues("a"), attempt+1)
			}
			synctest.Wait() // the delay goroutine waits on clk
			step(clk, delay-time.Millisecond)
			wantLen(t, q, 0, fmt.Sprintf("attempt %d ready before %v", attempt, delay))
			step(clk, time.Millisecond)
			wantLen(t, q, 1, fmt.Sprintf("attempt %d not ready at %v", attempt, delay))
			getN(t, q, 1)
		}
		q.Forget("a")
		if q.NumRequeues("a") != 0 {
			t.Fatal("Forget did not reset the backoff")
		}
	})
}
