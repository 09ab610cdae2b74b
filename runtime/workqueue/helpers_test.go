package workqueue

import (
	"sync"
	"testing"
	"time"

	testingclock "k8s.io/utils/clock/testing"

	"github.com/typedinformer/typedinformer/internal/testutil"
)

// waitArmed waits until q's delay goroutine has set its timer for the
// current earliest deadline, with no wake-up pending: from then on only the
// timer wakes it, so stepping clk cannot race with it re-arming the timer
// from a reading of the clock taken before the step.
func waitArmed[T comparable](t *testing.T, q *Typed[T], clk interface{ HasWaiters() bool }) {
	t.Helper()
	testutil.Eventually(t, "the delay goroutine to arm its timer", func() bool {
		q.delay.mu.Lock()
		armed := q.delay.armed
		q.delay.mu.Unlock()
		return armed && clk.HasWaiters()
	})
}

// getN takes n items from q, marking each Done, and returns them in order.
func getN[T comparable](t *testing.T, q *Typed[T], n int) []T {
	t.Helper()
	var out []T
	for range n {
		item, shutdown := q.Get()
		if shutdown {
			t.Fatalf("queue shut down after %d of %d items", len(out), n)
		}
		q.Done(item)
		out = append(out, item)
	}
	return out
}

func newFakeClock() *testingclock.FakeClock {
	return testingclock.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
}

// startWorkers starts n goroutines that Get items from q until it shuts
// down and pass each to process, which must call q.Done; the returned
// WaitGroup ends when all of them have returned.
func startWorkers[T comparable](q *Typed[T], n int, process func(item T)) *sync.WaitGroup {
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			for {
				item, shutdown := q.Get()
				if shutdown {
					return
				}
				process(item)
			}
		})
	}
	return &wg
}

// wantLen fails the test unless q holds want ready items; when says at
// which point of the test, so the failure reads as the expectation broken.
func wantLen[T comparable](t *testing.T, q *Typed[T], want int, when string) {
	t.Helper()
	if got := q.Len(); got != want {
		t.Fatalf("%s: Len = %d, want %d", when, got, want)
	}
}
