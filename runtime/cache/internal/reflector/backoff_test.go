package reflector

import (
	"testing"
	"testing/synctest"
	"time"

	testingclock "k8s.io/utils/clock/testing"
)

func TestBackoffJitteredDoublingCappedAndReset(t *testing.T) {
	clk := testingclock.NewFakeClock(time.Now())
	b := &backoff{initial: time.Second, max: 10 * time.Second, resetAfter: time.Minute, clock: clk}
	// Each failure doubles the base; the delay lies in [base, 2*base],
	// never above max.
	want := [][2]time.Duration{
		{time.Second, 2 * time.Second},
		{2 * time.Second, 4 * time.Second},
		{4 * time.Second, 8 * time.Second},
		{8 * time.Second, 10 * time.Second},
		{10 * time.Second, 10 * time.Second},
		{10 * time.Second, 10 * time.Second},
	}
	for i, w := range want {
		d := b.next()
		if d < w[0] || d > w[1] {
			t.Fatalf("failure %d: delay %v, want in [%v, %v]", i+1, d, w[0], w[1])
		}
		clk.Step(time.Second) // failures keep coming within resetAfter
	}
	clk.Step(time.Minute)
	if d := b.next(); d < time.Second || d > 2*time.Second {
		t.Fatalf("after a healthy minute: delay %v, want the initial [1s, 2s]", d)
	}
}

func TestBackoffIsJittered(t *testing.T) {
	clk := testingclock.NewFakeClock(time.Now())
	seen := map[time.Duration]bool{}
	for i := 0; i < 20; i++ {
		b := &backoff{initial: time.Second, max: time.Minute, resetAfter: time.Minute, clock: clk}
		seen[b.next()] = true
	}
	if len(seen) < 2 {
		t.Fatalf("20 first delays were all %v: no jitter", seen)
	}
}

func TestBackoffWaitEndsWhenDoneCloses(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := testingclock.NewFakeClock(time.Now())
		b := &backoff{initial: time.Second, max: time.Minute, resetAfter: time.Minute, clock: clk}
		done := make(chan struct{})
		close(done)
		if b.wait(done, time.Hour) {
			t.Fatal("wait returned true after done closed")
		}
		res := make(chan bool, 1)
		stop := make(chan struct{})
		defer close(stop) // ends the wait if the test fails before the step
		go func() { res <- b.wait(stop, time.Second) }()
		synctest.Wait() // wait is blocked on its timer
		if !clk.HasWaiters() {
			t.Fatal("wait never armed its timer")
		}
		clk.Step(time.Second - time.Nanosecond)
		synctest.Wait()
		select {
		case r := <-res:
			t.Fatalf("wait returned %t before its delay", r)
		default:
		}
		clk.Step(time.Nanosecond)
		if !<-res {
			t.Fatal("wait returned false after its delay")
		}
	})
}
