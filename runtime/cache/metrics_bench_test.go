package cache

import (
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
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
	for _, p := range []struct {
		name string
		p    DetailedInformerMetricsProvider
	}{{"off", nil}, {"on", nopMetrics{}}} {
		b.Run(fmt.Sprintf("metrics=%s", p.name), func(b *testing.B) {
			benchUpdates(b, 10_000, 1, SharedIndexInformerOptions[*corev1.Pod]{Metrics: p.p})
		})
	}
}
