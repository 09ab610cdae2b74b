package workqueue

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
)

// spinWork does iters rounds of integer mixing, a fixed amount of CPU work
// standing for a reconcile, and returns the result so that the loop is kept.
func spinWork(iters int) uint64 {
	x := uint64(iters) | 1
	for range iters {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	return x
}

// BenchmarkQueueRepeatedKeys is the controller pattern of the bench tool's
// row 4, per operation: one producer makes 1M Adds cycling over 10k keys
// while W workers Get each item, do some CPU work (work=0: none; work=3000:
// a few microseconds) and Done it; then ShutDown, and the operation ends
// when every worker has seen the queue empty. It reports the items handed
// out (fewer is better: each is a reconcile) and the producer's time.
func BenchmarkQueueRepeatedKeys(b *testing.B) {
	const adds, nkeys = 1_000_000, 10_000
	keys := benchKeys(nkeys)
	for _, work := range []int{0, 3000} {
		for _, workers := range []int{1, 4, 16} {
			b.Run(fmt.Sprintf("work=%d/workers=%d", work, workers), func(b *testing.B) {
				var processed, addNanos int64
				var sink atomic.Uint64
				b.ReportAllocs()
				for b.Loop() {
					q := NewTypedWithConfig(TypedQueueConfig[string]{})
					var n atomic.Int64
					var wg sync.WaitGroup
					for range workers {
						wg.Go(func() {
							var local uint64
							var mine int64
							for {
								k, shutdown := q.Get()
								if shutdown {
									break
								}
								if work > 0 {
									local += spinWork(work)
								}
								q.Done(k)
								mine++
							}
							n.Add(mine)
							sink.Add(local)
						})
					}
					start := b.Elapsed()
					for i := range adds {
						q.Add(keys[i%nkeys])
					}
					addNanos += int64(b.Elapsed() - start)
					q.ShutDown()
					wg.Wait()
					processed += n.Load()
				}
				b.ReportMetric(float64(processed)/float64(b.N), "items/op")
				b.ReportMetric(float64(addNanos)/float64(b.N)/adds, "ns/add")
			})
		}
	}
}

// BenchmarkQueueAddQueued measures an Add of an item that is already
// queued, on one goroutine with no worker: the producer's common case when
// the workers fall behind.
func BenchmarkQueueAddQueued(b *testing.B) {
	keys := benchKeys(10_000)
	q := NewTypedWithConfig(TypedQueueConfig[string]{})
	for _, k := range keys {
		q.Add(k)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		q.Add(keys[i])
		if i++; i == len(keys) {
			i = 0
		}
	}
}
