package scenario

import (
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/client-go/util/workqueue"
)

// workQueue is the part of a typed work queue the scenario drives; both
// client-go's workqueue.TypedInterface[string] and ours provide it.
type workQueue interface {
	Add(item string)
	Get() (item string, shutdown bool)
	Done(item string)
	ShutDown()
}

// QueueResult is one work-queue run of one side.
type QueueResult struct {
	Side    Side `json:"side"`
	Workers int  `json:"workers"`
	Items   int  `json:"items"`
	// Seconds runs from the first Add to the moment every worker has seen
	// the queue shut down after the last Done.
	Seconds float64 `json:"seconds"`
	Mallocs uint64  `json:"mallocs"`
}

// ItemsPerSecond is items added, processed and marked done per second.
func (r QueueResult) ItemsPerSecond() float64 { return float64(r.Items) / r.Seconds }

// AllocsPerItem is heap allocations per item.
func (r QueueResult) AllocsPerItem() float64 { return float64(r.Mallocs) / float64(r.Items) }

// newQueue returns side's typed queue of strings with its defaults (for
// client-go: unnamed, so no metrics).
func newQueue(side Side) (workQueue, error) {
	switch side {
	case ClientGo:
		return workqueue.NewTypedWithConfig(workqueue.TypedQueueConfig[string]{}), nil
	case Ours:
		if newOursQueue == nil {
			return nil, fmt.Errorf("ours: runtime/workqueue is not available in this build")
		}
		return newOursQueue(), nil
	}
	return nil, fmt.Errorf("unknown side %q", side)
}

// newOursQueue is set by the file that imports this project's workqueue.
var newOursQueue func() workQueue

// OursQueueAvailable reports whether this build measures our workqueue.
func OursQueueAvailable() bool { return newOursQueue != nil }

// Queue runs the controller pattern on side's queue: one producer adds items
// distinct "namespace/name" keys (as event handlers do) while `workers`
// goroutines Get and Done them (the reconcile itself does nothing); the run
// ends when every item is done and the queue is shut down.
func Queue(side Side, workers, items int) (QueueResult, error) {
	res := QueueResult{Side: side, Workers: workers, Items: items}
	keys := make([]string, items)
	for i := range keys {
		keys[i] = "team-" + strconv.Itoa(i%100) + "/svc-" + strconv.Itoa(i)
	}
	q, err := newQueue(side)
	if err != nil {
		return res, err
	}
	liveHeap()
	m0, _ := mallocs()
	start := time.Now()
	var processed atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Go(func() {
			for {
				k, shutdown := q.Get()
				if shutdown {
					return
				}
				q.Done(k)
				if processed.Add(1) == int64(items) {
					q.ShutDown()
				}
			}
		})
	}
	for _, k := range keys {
		q.Add(k)
	}
	wg.Wait()
	res.Seconds = time.Since(start).Seconds()
	m1, _ := mallocs()
	res.Mallocs = m1 - m0
	if got := processed.Load(); got != int64(items) {
		return res, fmt.Errorf("%s: processed %d of %d items", side, got, items)
	}
	return res, nil
}
