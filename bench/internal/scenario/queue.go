package scenario

import (
	"cmp"
	"fmt"
	"slices"
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
	// Adds is how many Adds the producer made, over Keys distinct keys.
	Adds int `json:"adds"`
	Keys int `json:"keys"`
	// WorkIters is the busy work each worker does per item (iterations of
	// Spin; 0: none).
	WorkIters int `json:"workIters"`
	// Processed is how many items the workers were handed (Gets): what
	// remains of the Adds after de-duplication. In a controller, each is a
	// reconcile.
	Processed int `json:"processed"`
	// Seconds runs from the first Add to the moment every worker has seen
	// the queue shut down and empty after the last Done: the time to drain
	// the Adds.
	Seconds float64 `json:"seconds"`
	// AddSeconds runs from the first Add to the return of the last: how
	// long the producer took, which decides how much de-duplication the
	// workers leave room for.
	AddSeconds float64 `json:"addSeconds"`
	Mallocs    uint64  `json:"mallocs"`
}

// DrainRate is Adds drained per second: the same Adds on both sides, so a
// side that de-duplicates more is not penalised for processing fewer items.
func (r QueueResult) DrainRate() float64 { return float64(r.Adds) / r.Seconds }

// AllocsPerAdd is heap allocations per Add.
func (r QueueResult) AllocsPerAdd() float64 { return float64(r.Mallocs) / float64(r.Adds) }

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

// QueueKeys returns n distinct "namespace/name" keys, as event handlers add.
func QueueKeys(n int) []string {
	keys := make([]string, n)
	for i := range keys {
		keys[i] = "team-" + strconv.Itoa(i%100) + "/svc-" + strconv.Itoa(i)
	}
	return keys
}

// Queue runs the controller pattern on side's queue: one producer makes
// `adds` Adds cycling over `keys` distinct keys (as event handlers do for
// objects that change again and again) while `workers` goroutines Get each
// item, do workIters iterations of Spin (a fixed amount of CPU work standing
// for a reconcile; 0 for none) and Done it. After the last Add the producer
// shuts the queue down; the run ends when every worker has seen it empty.
// Both queues hand out the items queued before ShutDown and re-queue on
// Done an item added while it was processed, so every Add is served.
func Queue(side Side, workers, adds, keys, workIters int) (QueueResult, error) {
	res := QueueResult{Side: side, Workers: workers, Adds: adds, Keys: keys, WorkIters: workIters}
	if keys <= 0 || adds < keys || workers <= 0 {
		return res, fmt.Errorf("queue: need workers > 0 and adds >= keys > 0, got %d workers, %d adds, %d keys", workers, adds, keys)
	}
	ks := QueueKeys(keys)
	q, err := newQueue(side)
	if err != nil {
		return res, err
	}
	WarmHeap(0)
	m0, _ := mallocs()
	var processed atomic.Int64
	var sink atomic.Uint64
	var wg sync.WaitGroup
	start := time.Now()
	for w := 0; w < workers; w++ {
		wg.Go(func() {
			var local uint64
			n := int64(0)
			for {
				k, shutdown := q.Get()
				if shutdown {
					break
				}
				if workIters > 0 {
					local += Spin(workIters)
				}
				q.Done(k)
				n++
			}
			processed.Add(n)
			sink.Add(local)
		})
	}
	for i := 0; i < adds; i++ {
		q.Add(ks[i%keys])
	}
	res.AddSeconds = time.Since(start).Seconds()
	q.ShutDown()
	wg.Wait()
	res.Seconds = time.Since(start).Seconds()
	m1, _ := mallocs()
	res.Mallocs = m1 - m0
	res.Processed = int(processed.Load())
	if res.Processed < keys || res.Processed > adds {
		return res, fmt.Errorf("%s: processed %d items for %d adds over %d keys", side, res.Processed, adds, keys)
	}
	return res, nil
}

// QueueMedian runs Queue reps times, each on a fresh queue, and returns the
// run with the median time (the lower middle one for an even count). A run
// of the no-work variant lasts tens of milliseconds, so one scheduling
// hiccup on a busy machine would otherwise decide it.
func QueueMedian(side Side, workers, adds, keys, workIters, reps int) (QueueResult, error) {
	runs := make([]QueueResult, 0, max(reps, 1))
	for range max(reps, 1) {
		r, err := Queue(side, workers, adds, keys, workIters)
		if err != nil {
			return r, err
		}
		runs = append(runs, r)
	}
	slices.SortFunc(runs, func(a, b QueueResult) int { return cmp.Compare(a.Seconds, b.Seconds) })
	return runs[(len(runs)-1)/2], nil
}

// Spin does iters rounds of integer mixing and returns the result, which the
// caller must use so that the loop is not optimised away. It stands for a
// reconcile's CPU work: a fixed amount of computation, not of wall time, so
// that a worker descheduled in the middle does not count the wait as work.
func Spin(iters int) uint64 {
	x := uint64(iters) | 1
	for i := 0; i < iters; i++ {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	return x
}

// CalibrateSpin returns the iterations of Spin that take about d on this
// machine: the fastest of several timed batches, so that time the process
// was descheduled is not counted. The driver calibrates once and passes the
// same count to both sides.
func CalibrateSpin(d time.Duration) int {
	const probe = 1 << 16
	best := time.Duration(1<<63 - 1)
	var sink uint64
	for range 50 {
		start := time.Now()
		sink += Spin(probe)
		best = min(best, time.Since(start))
	}
	if sink == 42 {
		fmt.Print("") // keep sink used
	}
	return max(1, int(float64(probe)*float64(d)/float64(max(best, 1))))
}
