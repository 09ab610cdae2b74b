package workqueue

import (
	"testing"
	"time"

	testingclock "k8s.io/utils/clock/testing"
)

// eventually polls cond until it holds or a generous deadline passes.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// getN takes n items from q, marking each Done, and returns them in order.
func getN[T comparable](t *testing.T, q *Queue[T], n int) []T {
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

func equal[T comparable](a, b []T) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
