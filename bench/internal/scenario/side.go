// Package scenario holds the workloads the bench suite measures, each written
// once and run against either side: this project's runtime ("ours") or the
// tool a user would otherwise pick ("client-go"). A scenario runs one side in
// the calling process and returns plain numbers; the driver runs each in a
// fresh process so that one side's heap never weighs on the other's.
package scenario

import (
	"fmt"
	"runtime"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"time"
)

// Side names an implementation under test.
type Side string

// The two sides of every runtime comparison.
const (
	Ours     Side = "ours"
	ClientGo Side = "client-go"
)

// ParseSide checks s names a side.
func ParseSide(s string) (Side, error) {
	switch Side(s) {
	case Ours, ClientGo:
		return Side(s), nil
	}
	return "", fmt.Errorf("unknown side %q (want %q or %q)", s, Ours, ClientGo)
}

// heapObjectsMetric is the runtime/metrics name of the bytes held by heap
// objects, live or not yet swept: MemStats.HeapAlloc, readable without
// stopping the world.
const heapObjectsMetric = "/memory/classes/heap/objects:bytes"

// heapSampler records the highest heap-objects value seen between start and
// stop, reading it every interval.
type heapSampler struct {
	stop chan struct{}
	wg   sync.WaitGroup
	peak uint64
}

func startHeapSampler(interval time.Duration) *heapSampler {
	h := &heapSampler{stop: make(chan struct{})}
	h.peak = readHeapObjects()
	h.wg.Go(func() {
		t := time.NewTicker(interval)
		defer t.Stop()
		sample := []metrics.Sample{{Name: heapObjectsMetric}}
		for {
			select {
			case <-h.stop:
				return
			case <-t.C:
				metrics.Read(sample)
				if v := sample[0].Value.Uint64(); v > h.peak {
					h.peak = v
				}
			}
		}
	})
	return h
}

// Stop ends sampling (taking one last sample) and returns the peak.
func (h *heapSampler) Stop() uint64 {
	close(h.stop)
	h.wg.Wait()
	if v := readHeapObjects(); v > h.peak {
		h.peak = v
	}
	return h.peak
}

func readHeapObjects() uint64 {
	s := []metrics.Sample{{Name: heapObjectsMetric}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// liveHeap runs two full collections and returns HeapAlloc: the bytes
// reachable at this point.
func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

func mallocs() (count, bytes uint64) {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.Mallocs, ms.TotalAlloc
}

// counter counts the calls of one handler, which an informer makes from a
// single goroutine, and closes reached when the count hits target.
type counter struct {
	n       int
	target  int
	reached chan struct{}
}

func newCounter(target int) *counter {
	c := &counter{target: target, reached: make(chan struct{})}
	if target == 0 {
		close(c.reached)
	}
	return c
}

func (c *counter) hit() {
	c.n++
	if c.n == c.target {
		close(c.reached)
	}
}

// WarmHeap allocates about n bytes (at least 64 MiB) of garbage, writes to
// every page of it, drops it and collects twice. Called before a timed
// section: on the machines this suite runs on, the first touch of memory the
// process never used costs about 4.5 s/GiB (page faults and zeroing), which
// would charge whichever side allocates more for the operating system's work
// and hide everything else. After WarmHeap the heap's spans are mapped and
// touched, and the timed section pays only for its own allocations. It
// returns the live heap after the collections, like liveHeap.
func WarmHeap(n uint64) uint64 {
	const chunk = 1 << 20
	n = max(n, 64<<20)
	junk := make([][]byte, 0, n/chunk)
	for total := uint64(0); total < n; total += chunk {
		b := make([]byte, chunk)
		for i := 0; i < len(b); i += 4096 {
			b[i] = 1
		}
		junk = append(junk, b)
	}
	warmSink.Store(uint64(len(junk)))
	return liveHeap()
}

// warmSink keeps WarmHeap's allocations from being optimised away.
var warmSink atomic.Uint64
