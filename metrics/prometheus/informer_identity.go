package prometheus

import (
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/klog/v2"

	"github.com/typedinformer/typedinformer/runtime/cache"
)

// The series of client-go's InformerMetricsProvider, named, described,
// labelled and bucketed as Kubernetes components export them
// (k8s.io/component-base/metrics/prometheus/clientgo/fifo, v0.37: subsystem
// "informer", ALPHA stability, whose registry prefixes the help with
// "[ALPHA] "), so that dashboards written for those work unchanged.
const (
	queuedItemsName          = "informer_queued_items"
	processingLatencyName    = "informer_processing_latency_seconds"
	storeResourceVersionName = "informer_store_resource_version"
)

var identityLabels = []string{"name", "group", "version", "resource"}

// identityKey is what makes an identity's series: its name and resource.
type identityKey struct {
	name string
	gvr  schema.GroupVersionResource
}

// identityVecs implement cache.InformerMetricsProvider on one registry.
// Each name and resource publishes for one identity at a time: the first
// reserved identity that asks owns the series until it is released; another
// identity with the same name and resource meanwhile gets metrics that
// publish nothing (and is logged once). Released identities stop updating
// their series, which stay at their last values (as component-base's do).
type identityVecs struct {
	queued  *prometheus.GaugeVec
	latency *prometheus.HistogramVec
	rv      *prometheus.GaugeVec

	mu      sync.Mutex
	owners  map[identityKey]cache.InformerNameAndResource
	refused map[cache.InformerNameAndResource]struct{}
}

func newIdentityVecs() *identityVecs {
	return &identityVecs{
		queued: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: queuedItemsName,
			Help: "[ALPHA] Number of items currently queued in the FIFO.",
		}, identityLabels),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    processingLatencyName,
			Help:    "[ALPHA] Time taken to process events after popping from the queue.",
			Buckets: []float64{0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10},
		}, identityLabels),
		rv: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: storeResourceVersionName,
			Help: "[ALPHA] The 15 least significant digits of the resource version of the store.",
		}, identityLabels),
		owners:  map[identityKey]cache.InformerNameAndResource{},
		refused: map[cache.InformerNameAndResource]struct{}{},
	}
}

func (v *identityVecs) collectors() []prometheus.Collector {
	return []prometheus.Collector{v.queued, v.latency, v.rv}
}

// claim reports whether id may publish: it is reserved, and no other
// reserved identity of the same name and resource publishes here.
func (v *identityVecs) claim(id cache.InformerNameAndResource) bool {
	if !id.Reserved() {
		return false
	}
	k := identityKey{id.Name(), id.GroupVersionResource()}
	v.mu.Lock()
	defer v.mu.Unlock()
	if owner, ok := v.owners[k]; ok && owner != id && owner.Reserved() {
		if _, logged := v.refused[id]; !logged {
			v.refused[id] = struct{}{}
			klog.Background().Error(nil, "Informer identity already publishes on this registry; the second one publishes nothing",
				"informerName", k.name, "group", k.gvr.Group, "version", k.gvr.Version, "resource", k.gvr.Resource)
		}
		return false
	}
	v.owners[k] = id
	return true
}

func labelValues(id cache.InformerNameAndResource) []string {
	gvr := id.GroupVersionResource()
	return []string{id.Name(), gvr.Group, gvr.Version, gvr.Resource}
}

// NewQueuedItemMetric implements cache.InformerMetricsProvider.
func (v *identityVecs) NewQueuedItemMetric(id cache.InformerNameAndResource) cache.GaugeMetric {
	if !v.claim(id) {
		return discard{}
	}
	return reservedGauge{id, v.queued.WithLabelValues(labelValues(id)...)}
}

// NewProcessingLatencyMetric implements cache.InformerMetricsProvider.
func (v *identityVecs) NewProcessingLatencyMetric(id cache.InformerNameAndResource) cache.HistogramMetric {
	if !v.claim(id) {
		return discard{}
	}
	return reservedHistogram{id, v.latency.WithLabelValues(labelValues(id)...)}
}

// NewStoreResourceVersionMetric implements cache.InformerMetricsProvider.
func (v *identityVecs) NewStoreResourceVersionMetric(id cache.InformerNameAndResource) cache.GaugeMetric {
	if !v.claim(id) {
		return discard{}
	}
	return reservedGauge{id, v.rv.WithLabelValues(labelValues(id)...)}
}

// reservedGauge updates its series only while its identity is reserved.
type reservedGauge struct {
	id cache.InformerNameAndResource
	g  prometheus.Gauge
}

func (r reservedGauge) Set(x float64) {
	if r.id.Reserved() {
		r.g.Set(x)
	}
}

// reservedHistogram observes into its series only while its identity is
// reserved.
type reservedHistogram struct {
	id cache.InformerNameAndResource
	h  prometheus.Observer
}

func (r reservedHistogram) Observe(x float64) {
	if r.id.Reserved() {
		r.h.Observe(x)
	}
}

// discard is the metric of an identity that may not publish.
type discard struct{}

func (discard) Set(float64)     {}
func (discard) Observe(float64) {}
