package testutil

import (
	"runtime"
	"testing"
	"time"
)

// WaitLimit bounds every wait of the project's tests: Eventually fails the
// test when its condition has not held after WaitLimit. Reaching it means
// the awaited thing did not happen; it is not a timing assertion, so it is
// generous enough for a loaded machine under the race detector.
const WaitLimit = 20 * time.Second

// spinPolls is how many times Eventually re-evaluates its condition after
// only yielding the processor, so that a condition another goroutine makes
// true within a few scheduling rounds is seen without sleeping.
const spinPolls = 100

// pollInterval is how long Eventually sleeps between two evaluations of its
// condition once spinPolls have passed, after yielding the processor.
const pollInterval = 200 * time.Microsecond

// Eventually calls cond until it returns true, and fails t with
// "timed out waiting for <what>" once WaitLimit has passed. cond runs on the
// calling goroutine and must not block; it is called at least once. It is
// re-evaluated at once (yielding) spinPolls times, then every pollInterval.
func Eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(WaitLimit)
	for i := 0; !cond(); i++ {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		runtime.Gosched()
		if i >= spinPolls {
			time.Sleep(pollInterval)
		}
	}
}
