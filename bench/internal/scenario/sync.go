package scenario

import (
	"context"
	"fmt"
	"runtime"
	"time"

	"github.com/typedinformer/typedinformer/bench/internal/fixture"
	"github.com/typedinformer/typedinformer/runtime/cache"
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
	// EmptyHeap is the live heap before the list was built, and ListHeap
	// what building the list added: the objects themselves. Set only by
	// Sync, which owns its list.
	EmptyHeap uint64 `json:"emptyHeap,omitempty"`
	ListHeap  uint64 `json:"listHeap,omitempty"`
	// DroppedHeap is the live heap after the source dropped the served list
	// (and nothing else holds it) and two collections, the informer still
	// running: the objects, however the store holds them, and its
	// bookkeeping. Set only by Sync.
	DroppedHeap uint64 `json:"droppedHeap,omitempty"`
	// CopyBytes is what the heap hands out for one copy of a listed Pod
	// (its struct's size class). Both sides copy every item out of the
	// list before storing it (client-go with meta.ExtractListWithAlloc,
	// ours so the store never keeps the list's array alive), so a sync
	// allocates at least N×CopyBytes whatever else it does.
	CopyBytes uint64 `json:"copyBytes"`
}

// BookkeepingPerObject is what the informer keeps per object beyond the
// objects themselves, with the served list dropped: DroppedHeap minus the
// empty process and minus the objects' own bytes (ListHeap), per object. A
// store that copies every item out of the list and one that points into it
// both keep the objects; this is what each adds on top (keys, indexes, map
// entries, copies' rounding).
func (r SyncResult) BookkeepingPerObject() float64 {
	return (float64(r.DroppedHeap) - float64(r.EmptyHeap) - float64(r.ListHeap)) / float64(r.N)
}

// PeakGrowth is PeakHeap above BaseHeap: what the sync itself put on the heap
// at its worst, garbage included.
func (r SyncResult) PeakGrowth() float64 { return float64(r.PeakHeap) - float64(r.BaseHeap) }

// PeakBeyondCopies is PeakGrowth minus the one copy of every item that both
// sides make, per object: what the informer's own machinery (keys, queue
// entries, map and index growth, notifications) allocated at the worst
// moment of the sync.
func (r SyncResult) PeakBeyondCopies() float64 {
	return (r.PeakGrowth() - float64(r.N)*float64(r.CopyBytes)) / float64(r.N)
}

// RetainedPerObject is the live bytes the informer keeps per object beyond
// the served list, with the list still live; a store that points into the
// list looks cheaper here than one that copies, which BookkeepingPerObject
// corrects.
func (r SyncResult) RetainedPerObject() float64 {
	return (float64(r.LiveHeap) - float64(r.BaseHeap)) / float64(r.N)
}

// Sync builds a list of n Pods, serves it through a fixture.Source to side's
// informer with one no-op handler, and measures the initial sync; then it
// drops the list and measures what the informer keeps.
//
// With noShare, ours keeps every object's managedFields bytes its own
// (ReflectorOptions.DisableManagedFieldsSharing). Its default holds equal
// managedFields documents once, which makes the objects themselves smaller
// than the list it was served, so the bookkeeping subtraction (which takes
// the served objects' bytes as the store's objects) would come out
// negative: the bookkeeping row is measured with noShare, the time rows
// without it.
func Sync(side Side, n int, noShare bool) (SyncResult, error) {
	empty := liveHeap()
	list := fixture.PodList(n, "1")
	listHeap := liveHeap() - empty
	src := fixture.NewSource(list)
	list = nil //nolint:ineffassign // says that from here on only the source holds it
	res, inf, stop, err := syncRun(side, src, n, cache.ReflectorOptions{DisableManagedFieldsSharing: noShare})
	if err != nil {
		return res, err
	}
	src.DropList()
	res.EmptyHeap, res.ListHeap = empty, listHeap
	res.DroppedHeap = liveHeap()
	runtime.KeepAlive(inf)
	stop()
	return res, nil
}

// SyncList is Sync over a prepared list, which stays live: it reports no
// bookkeeping figure.
func SyncList(side Side, list *corev1.PodList) (SyncResult, error) {
	res, _, stop, err := syncRun(side, fixture.NewSource(list), len(list.Items), cache.ReflectorOptions{})
	if err == nil {
		stop()
	}
	runtime.KeepAlive(list)
	return res, err
}

// syncRun runs side's informer over src until its handler saw n objects and
// it has synced, and returns it running with the function that stops it.
// The heap is warmed first (see WarmHeap) with about 4 KB per object, more
// than either side's sync allocates beyond the list.
func syncRun(side Side, src *fixture.Source, n int, ropts cache.ReflectorOptions) (SyncResult, informerUnderTest, func(), error) {
	res := SyncResult{Side: side, N: n, CopyBytes: podCopyBytes()}
	h := handlerCounters{adds: newCounter(n), updates: newCounter(0)}

	res.BaseHeap = WarmHeap(uint64(n) * 4096)
	sampler := startHeapSampler(time.Millisecond)
	start := time.Now()
	inf, err := newInformerWith(side, src, []handlerCounters{h}, ropts)
	if err != nil {
		sampler.Stop()
		return res, nil, nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); inf.run(ctx) }()
	stop := func() { cancel(); <-done }
	timeout := time.After(10 * time.Minute)
	select {
	case <-h.adds.reached:
	case <-done:
		cancel()
		sampler.Stop()
		return res, nil, nil, fmt.Errorf("%s: informer stopped before its handler saw %d objects", side, n)
	case <-timeout:
		stop()
		sampler.Stop()
		return res, nil, nil, fmt.Errorf("%s: handler not handed all %d objects after 10 minutes", side, n)
	}
	// The handler is handed the last object only after the informer's
	// store holds it; HasSynced follows within microseconds.
	for !inf.hasSynced() {
		time.Sleep(20 * time.Microsecond)
	}
	res.Seconds = time.Since(start).Seconds()
	res.PeakHeap = sampler.Stop()
	res.LiveHeap = liveHeap()
	return res, inf, stop, nil
}

// podCopyBytes measures the bytes one heap copy of a corev1.Pod takes: the
// struct's size rounded up to its allocation size class.
func podCopyBytes() uint64 {
	const count = 256
	keep := make([]*corev1.Pod, count)
	runtime.GC()
	_, before := mallocs()
	for i := range keep {
		keep[i] = new(corev1.Pod)
	}
	_, after := mallocs()
	runtime.KeepAlive(keep)
	return (after - before) / count
}
