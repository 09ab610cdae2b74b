package cache

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/watch"
)

// nopMetrics accepts every metric and drops it: the cost of the hooks
// themselves, without any adapter's.
type nopMetrics struct{}

func (nopMetrics) NewInformerMetrics(string) InformerMetrics { return nopMetrics{} }
func (nopMetrics) IncLists()                                 {}
func (nopMetrics) IncWatches()                               {}
func (nopMetrics) IncRelistsAfterExpired()                   {}
func (nopMetrics) IncWatchRestarts(string)                   {}
func (nopMetrics) IncErrors(string)                          {}
func (nopMetrics) SetObjects(int)                            {}
func (nopMetrics) SetQueueDepth(int)                         {}
func (nopMetrics) ObserveEvent(time.Time, string)            {}
func (nopMetrics) NewHandlerMetrics(string) HandlerMetrics   { return nopMetrics{} }
func (nopMetrics) SetBacklog(int)                            {}
func (nopMetrics) ObserveLatency(time.Duration)              {}

// BenchmarkUpdateThroughputMetrics is BenchmarkUpdateThroughput with
// metrics off (nil provider) and on (a provider that drops everything), to
// compare the hooks' cost in one run.
func BenchmarkUpdateThroughputMetrics(b *testing.B) {
	const keys = 10_000
	for _, p := range []struct {
		name string
		p    InformerMetricsProvider
	}{{"off", nil}, {"on", nopMetrics{}}} {
		b.Run(fmt.Sprintf("metrics=%s", p.name), func(b *testing.B) {
			list := benchList(keys)
			updates := make([]*corev1.Pod, 2*keys)
			for i := range updates {
				q := list.Items[i%keys].DeepCopy()
				q.ResourceVersion = fmt.Sprint(2 + i/keys)
				updates[i] = q
			}
			w := watch.NewFakeWithChanSize(1024, false)
			lw := &staticLW{list: list, watch: w}
			inf := NewSharedIndexInformerWithOptions[*corev1.Pod](lw, SharedIndexInformerOptions[*corev1.Pod]{Metrics: p.p})
			h := &countingHandler{}
			inf.AddEventHandler(h)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan struct{})
			go func() { inf.Run(ctx); close(done) }()
			for !inf.HasSynced() {
				runtimeGosched()
			}
			h.waitFor(keys, done)
			var wg sync.WaitGroup
			b.ReportAllocs()
			b.ResetTimer()
			wg.Go(func() {
				for i := 0; i < b.N; i++ {
					w.Modify(updates[i%(2*keys)])
				}
			})
			h.waitFor(int64(keys+b.N), done)
			wg.Wait()
			b.StopTimer()
			cancel()
			<-done
		})
	}
}
