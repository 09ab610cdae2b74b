package reflector

import (
	"sync/atomic"
	"time"
)

// eventClockTick is the resolution of the watch event times an informer on
// the real clock hands to InformerMetrics.ObserveEvent.
const eventClockTick = 100 * time.Millisecond

// coarseClock is a clock for watch event times that a ticker goroutine
// advances every eventClockTick: reading it is an atomic load, where reading
// the system clock costs about 25 ns per event, half of what metrics add to
// an event's delivery. A reflector with metrics on the real clock starts one
// for each run and stops it before run returns (see reflector.run), so the
// clock and its goroutine belong to that informer's Run. now is safe for
// concurrent use; stop is called once, by whoever started the clock.
type coarseClock struct {
	// epoch anchors the clock's times: its wall time plus the monotonic
	// time since it.
	epoch time.Time
	// since is the monotonic time since epoch at the last tick.
	since atomic.Int64
	stop  chan struct{}
	done  chan struct{}
}

// startCoarseClock starts a clock and its ticker goroutine, and returns the
// clock with the function that stops the ticker and waits for its goroutine
// to end. Until then, now is never more than a tick (plus scheduling delay)
// behind the real clock, and never ahead of it.
func startCoarseClock() (c *coarseClock, stop func()) {
	c = &coarseClock{epoch: time.Now(), stop: make(chan struct{}), done: make(chan struct{})}
	go c.tick()
	return c, func() {
		close(c.stop)
		<-c.done
	}
}

func (c *coarseClock) tick() {
	defer close(c.done)
	t := time.NewTicker(eventClockTick)
	defer t.Stop()
	for {
		select {
		case <-c.stop:
			return
		case <-t.C:
			c.since.Store(int64(time.Since(c.epoch)))
		}
	}
}

// now returns the clock's time: epoch plus the monotonic time since it at
// the last tick (or epoch itself before the first). Its wall time may drift
// from the system's by as much as the system clock was stepped since the
// clock started; an event age measured in seconds does not notice.
func (c *coarseClock) now() time.Time {
	return c.epoch.Add(time.Duration(c.since.Load()))
}
