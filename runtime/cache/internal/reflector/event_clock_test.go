package reflector

import (
	"testing"
	"time"

	"github.com/typedinformer/typedinformer/internal/testutil"
)

// The coarse clock never runs ahead of the real clock, advances while it
// runs, and stop returns only once its goroutine has ended.
func TestCoarseClockTicksUntilStopped(t *testing.T) {
	c, stop := startCoarseClock()
	start := c.now()
	if start.After(time.Now()) {
		t.Fatalf("clock at %v is ahead of the real clock", start)
	}
	testutil.Eventually(t, "the clock to advance by a tick", func() bool {
		return c.now().Sub(start) >= eventClockTick
	})
	if now := c.now(); now.After(time.Now()) {
		t.Fatalf("clock at %v is ahead of the real clock", now)
	}
	stop()
	select {
	case <-c.done:
	default:
		t.Fatal("stop returned before the ticker's goroutine ended")
	}
	// Two clocks are independent.
	c2, stop2 := startCoarseClock()
	defer stop2()
	if c2 == c || c2.done == c.done {
		t.Fatal("a second clock shares the first one's state")
	}
}
