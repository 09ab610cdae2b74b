package cache

import (
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
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

// nopGauge is a GaugeMetric and HistogramMetric that drops everything.
type nopGauge struct{}

func (nopGauge) Set(float64)     {}
func (nopGauge) Observe(float64) {}

// nopIdentityMetrics is an InformerMetricsProvider whose metrics drop
// everything.
type nopIdentityMetrics struct{}

func (nopIdentityMetrics) NewQueuedItemMetric(InformerNameAndResource) GaugeMetric { return nopGauge{} }
func (nopIdentityMetrics) NewProcessingLatencyMetric(InformerNameAndResource) HistogramMetric {
	return nopGauge{}
}
func (nopIdentityMetrics) NewStoreResourceVersionMetric(InformerNameAndResource) GaugeMetric {
	return nopGauge{}
}

// BenchmarkUpdateThroughputInformerMetricsProvider is
// BenchmarkUpdateThroughput with client-go's informer metrics off (no
// provider) and on (a reserved identity and a provider that drops
// everything): the cost of the queue, latency and resourceVersion hooks.
func BenchmarkUpdateThroughputInformerMetricsProvider(b *testing.B) {
	b.Run("provider=off", func(b *testing.B) {
		benchUpdates(b, 10_000, 1, SharedIndexInformerOptions[*corev1.Pod]{})
	})
	b.Run("provider=on", func(b *testing.B) {
		name, err := NewInformerName("bench")
		if err != nil {
			b.Fatal(err)
		}
		defer name.Release()
		gvr := schema.GroupVersionResource{Version: "v1", Resource: "pods"}
		benchUpdates(b, 10_000, 1, SharedIndexInformerOptions[*corev1.Pod]{
			Identifier: name.WithResource(gvr), InformerMetricsProvider: nopIdentityMetrics{},
		})
	})
}
