package cache

import (
	"testing"
	"time"

	"github.com/typedinformer/typedinformer/internal/testutil"
)

// The coarse clock ticks only while it is held, never runs ahead of the
// real clock, advances while held, and the last release ends its goroutine.
func TestCoarseClockTicksWhileHeld(t *testing.T) {
	var c coarseClock
	release1 := c.acquire()
	done := c.done
	release2 := c.acquire()
	if c.done != done {
		t.Fatal("a second acquire started a second ticker")
	}
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
	release1()
	release1() // a second call of the same release is a no-op
	if c.users != 1 {
		t.Fatalf("after one of two releases the clock has %d users, want 1", c.users)
	}
	select {
	case <-done:
		t.Fatal("the ticker ended while the clock was still held")
	default:
	}
	release2()
	select {
	case <-done:
	default:
		t.Fatal("the last release returned before the ticker's goroutine ended")
	}
	// It can be held again.
	c.acquire()()
}
