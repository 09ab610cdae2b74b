package scenario

import (
	"context"
	"fmt"
	"time"

	"github.com/typedinformer/typedinformer/bench/internal/fixture"
)

// EventsResult is one event-throughput run of one side.
type EventsResult struct {
	Side     Side `json:"side"`
	Keys     int  `json:"keys"`
	Handlers int  `json:"handlers"`
	// Events is the number of watch updates sent; each reaches every
	// handler.
	Events int `json:"events"`
	// Seconds runs from the first update sent to the moment every handler
	// has been handed the last one.
	Seconds float64 `json:"seconds"`
	// Mallocs and Bytes are the process's heap allocations over the same
	// span (runtime.MemStats Mallocs and TotalAlloc deltas). The sender
	// allocates nothing: its events are prepared beforehand.
	Mallocs uint64 `json:"mallocs"`
	Bytes   uint64 `json:"bytes"`
	// CPUSeconds is the process's user+system CPU time over the same span:
	// less disturbed than Seconds by other load on a shared machine.
	CPUSeconds float64 `json:"cpu_seconds"`
}

// EventsPerSecond is updates fully delivered (to every handler) per second.
func (r EventsResult) EventsPerSecond() float64 { return float64(r.Events) / r.Seconds }

// AllocsPerEvent is heap allocations per update.
func (r EventsResult) AllocsPerEvent() float64 { return float64(r.Mallocs) / float64(r.Events) }

// Events syncs side's informer with keys Pods and `handlers` no-op handlers,
// then sends total watch updates over those keys, each carrying a distinct
// object with a resourceVersion of its own (prepared beforehand, see
// fixture.DistinctUpdates), and measures the time until every handler has
// seen them all.
func Events(side Side, keys, handlers, total int) (EventsResult, error) {
	return events(side, keys, handlers, total, func(src *fixture.Source, hs []handlerCounters) (informerUnderTest, error) {
		return newInformer(side, src, hs)
	})
}

// events is Events with the informer under test built by build.
func events(side Side, keys, handlers, total int, build func(*fixture.Source, []handlerCounters) (informerUnderTest, error)) (EventsResult, error) {
	res := EventsResult{Side: side, Keys: keys, Handlers: handlers, Events: total}
	list := fixture.PodList(keys, "1")
	updates := fixture.DistinctUpdates(list, total, 2)
	src := fixture.NewSource(list)
	hs := make([]handlerCounters, handlers)
	for i := range hs {
		hs[i] = handlerCounters{adds: newCounter(keys), updates: newCounter(total)}
	}
	inf, err := build(src, hs)
	if err != nil {
		return res, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	go func() { defer close(done); inf.run(ctx) }()
	wait := func(ch <-chan struct{}, what string) error {
		select {
		case <-ch:
			return nil
		case <-done:
			return fmt.Errorf("%s: informer stopped while waiting for %s", side, what)
		case <-time.After(10 * time.Minute):
			return fmt.Errorf("%s: timed out waiting for %s", side, what)
		}
	}
	for _, h := range hs {
		if err := wait(h.adds.reached, "the initial adds"); err != nil {
			return res, err
		}
	}
	if err := wait(src.Opened(), "the watch"); err != nil {
		return res, err
	}
	for !inf.hasSynced() {
		time.Sleep(100 * time.Microsecond)
	}
	WarmHeap(0) // start from a collected, touched heap on both sides

	m0, b0 := mallocs()
	cpu0 := cpuSeconds()
	start := time.Now()
	sent := make(chan int, 1)
	go func() { sent <- src.SendAll(updates, total) }()
	for _, h := range hs {
		if err := wait(h.updates.reached, "the updates"); err != nil {
			return res, err
		}
	}
	res.Seconds = time.Since(start).Seconds()
	res.CPUSeconds = cpuSeconds() - cpu0
	m1, b1 := mallocs()
	res.Mallocs, res.Bytes = m1-m0, b1-b0
	if n := <-sent; n != total {
		return res, fmt.Errorf("%s: sent %d of %d updates", side, n, total)
	}
	cancel()
	<-done
	return res, nil
}
