package workqueue

import (
	"fmt"
	"strconv"
	"sync"
	"testing"
)

// benchKeys returns n distinct "namespace/name" keys, made before the timer
// starts so that only the queue is measured.
func benchKeys(n int) []string {
	keys := make([]string, n)
	for i := range keys {
		keys[i] = "default/pod-" + strconv.Itoa(i)
	}
	return keys
}

// BenchmarkQueue measures items/s through Add/Get/Done: one producer adds
// b.N distinct keys while W workers Get and Done them, then the queue is
// drained and shut down.
func BenchmarkQueue(b *testing.B) {
	for _, workers := range []int{1, 4, 16} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			keys := benchKeys(b.N)
			q := NewTypedWithConfig(TypedQueueConfig[string]{})
			b.ReportAllocs()
			b.ResetTimer()
			wg := startWorkers(q, workers, q.Done)
			for _, k := range keys {
				q.Add(k)
			}
			q.ShutDownWithDrain()
			wg.Wait()
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "items/s")
		})
	}
}

// BenchmarkQueueLoop measures W workers that each add a fresh key, get an
// item and mark it done, in a loop.
func BenchmarkQueueLoop(b *testing.B) {
	for _, workers := range []int{1, 4, 16} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			keys := benchKeys(b.N)
			q := NewTypedWithConfig(TypedQueueConfig[string]{})
			per := b.N / workers
			b.ReportAllocs()
			b.ResetTimer()
			var wg sync.WaitGroup
			for w := range workers {
				wg.Go(func() {
					for _, k := range keys[w*per : (w+1)*per] {
						q.Add(k)
						item, _ := q.Get()
						q.Done(item)
					}
				})
			}
			wg.Wait()
			q.ShutDown()
		})
	}
}

// BenchmarkQueueBacklog measures one item's Add, Get and Done on one
// goroutine when the queue holds a backlog of the given size: the producer
// adds that many items, then they are taken and marked done, over and over.
// It shows what a larger backlog costs each item.
func BenchmarkQueueBacklog(b *testing.B) {
	for _, backlog := range []int{256, 4096, 65536} {
		b.Run(fmt.Sprintf("backlog=%d", backlog), func(b *testing.B) {
			keys := benchKeys(1 << 20)
			q := NewTypedWithConfig(TypedQueueConfig[string]{})
			b.ReportAllocs()
			b.ResetTimer()
			next := 0
			for done := 0; done < b.N; done += backlog {
				for range backlog {
					q.Add(keys[next%len(keys)])
					next++
				}
				for range backlog {
					item, _ := q.Get()
					q.Done(item)
				}
			}
		})
	}
}
