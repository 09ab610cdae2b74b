package scenario

import (
	"context"
	"fmt"
	"runtime"
	"time"

	"github.com/typedinformer/typedinformer/bench/internal/fixture"
	corev1 "k8s.io/api/core/v1"
)

// SyncResult is one initial sync of one side.
type SyncResult struct {
	Side Side `json:"side"`
	N    int  `json:"n"`
	// Seconds runs from building the informer to the moment it reports
	// HasSynced and its handler has been handed all N objects.
	Seconds float64 `json:"seconds"`
	// BaseHeap is the live heap before the informer exists: the list the
	// source serves (N Pods) and the process's own state.
	BaseHeap uint64 `json:"baseHeap"`
	// PeakHeap is the highest heap-objects value (HeapAlloc: live objects
	// and garbage not yet swept) sampled every millisecond during the sync.
	PeakHeap uint64 `json:"peakHeap"`
	// LiveHeap is the live heap after the sync and two collections, with
	// the informer still running.
	LiveHeap uint64 `json:"liveHeap"`
}

// PeakGrowth is PeakHeap above BaseHeap: what the sync itself put on the heap
// at its worst, garbage included.
func (r SyncResult) PeakGrowth() float64 { return float64(r.PeakHeap) - float64(r.BaseHeap) }

// RetainedPerObject is the live bytes the informer keeps per object beyond
// the objects themselves (which the list already holds).
func (r SyncResult) RetainedPerObject() float64 {
	return (float64(r.LiveHeap) - float64(r.BaseHeap)) / float64(r.N)
}

// Sync builds a list of n Pods, serves it through a fixture.Source to side's
// informer with one no-op handler, and measures the initial sync.
func Sync(side Side, n int) (SyncResult, error) {
	list := fixture.PodList(n, "1")
	return SyncList(side, list)
}

// SyncList is Sync over a prepared list.
func SyncList(side Side, list *corev1.PodList) (SyncResult, error) {
	n := len(list.Items)
	res := SyncResult{Side: side, N: n}
	src := fixture.NewSource(list)
	h := handlerCounters{adds: newCounter(n), updates: newCounter(0)}

	res.BaseHeap = liveHeap()
	sampler := startHeapSampler(time.Millisecond)
	start := time.Now()
	inf, err := newInformer(side, src, []handlerCounters{h})
	if err != nil {
		sampler.Stop()
		return res, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); inf.run(ctx) }()
	timeout := time.After(10 * time.Minute)
	select {
	case <-h.adds.reached:
	case <-done:
		cancel()
		sampler.Stop()
		return res, fmt.Errorf("%s: informer stopped before its handler saw %d objects", side, n)
	case <-timeout:
		cancel()
		sampler.Stop()
		return res, fmt.Errorf("%s: handler not handed all %d objects after 10 minutes", side, n)
	}
	// The handler is handed the last object only after the informer's
	// store holds it; HasSynced follows within microseconds.
	for !inf.hasSynced() {
		time.Sleep(20 * time.Microsecond)
	}
	res.Seconds = time.Since(start).Seconds()
	res.PeakHeap = sampler.Stop()
	res.LiveHeap = liveHeap()
	runtime.KeepAlive(inf)
	cancel()
	<-done
	runtime.KeepAlive(list)
	return res, nil
}
