package prometheus

import (
	"fmt"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/typedinformer/typedinformer/runtime/cache"
	"github.com/typedinformer/typedinformer/runtime/controller"
	"github.com/typedinformer/typedinformer/runtime/workqueue"
)

// Metrics holds every collector of the adapter, registered on one registry
// by New. It is safe for concurrent use; one Metrics serves any number of
// informers, queues and controllers.
//
// Metrics is itself a cache.InformerMetricsProvider, client-go's informer
// metrics interface (informers.WithInformerMetricsProvider,
// cache.SharedIndexInformerOptions.InformerMetricsProvider): it exports
// informer_queued_items, informer_processing_latency_seconds and
// informer_store_resource_version with labels name, group, version and
// resource, as Kubernetes components do. Identities are unique per Metrics
// (per registry), not per process: while one reserved identity publishes a
// name and resource, another with the same name and resource publishes
// nothing (logged once).
type Metrics struct {
	informers   *informerVecs
	identities  *identityVecs
	workqueues  *workqueueVecs
	controllers *controllerVecs
	writeWait   prometheus.Histogram
}

var _ cache.InformerMetricsProvider = (*Metrics)(nil)

// New creates the collectors and registers them on reg (e.g.
// prometheus.NewRegistry() or prometheus.DefaultRegisterer). It fails,
// registering nothing further, if a collector of the same name is already
// registered there.
func New(reg prometheus.Registerer) (*Metrics, error) {
	if reg == nil {
		return nil, fmt.Errorf("metrics/prometheus: New: nil Registerer")
	}
	m := &Metrics{
		informers:   newInformerVecs(),
		identities:  newIdentityVecs(),
		workqueues:  newWorkqueueVecs(),
		controllers: newControllerVecs(),
		writeWait:   newWriteWait(),
	}
	for _, group := range [][]prometheus.Collector{m.informers.collectors(), m.identities.collectors(), m.workqueues.collectors(), m.controllers.collectors(), {m.writeWait}} {
		for _, c := range group {
			if err := reg.Register(c); err != nil {
				return nil, fmt.Errorf("metrics/prometheus: registering: %w", err)
			}
		}
	}
	return m, nil
}

// Informers returns the detailed provider to give informers
// (cache.SharedIndexInformerOptions.Metrics, informers.WithInformerMetrics):
// the typedinformer_informer_* series.
func (m *Metrics) Informers() cache.DetailedInformerMetricsProvider { return m.informers }

// NewQueuedItemMetric implements cache.InformerMetricsProvider:
// informer_queued_items{name,group,version,resource}.
func (m *Metrics) NewQueuedItemMetric(id cache.InformerNameAndResource) cache.GaugeMetric {
	return m.identities.NewQueuedItemMetric(id)
}

// NewProcessingLatencyMetric implements cache.InformerMetricsProvider:
// informer_processing_latency_seconds{name,group,version,resource}.
func (m *Metrics) NewProcessingLatencyMetric(id cache.InformerNameAndResource) cache.HistogramMetric {
	return m.identities.NewProcessingLatencyMetric(id)
}

// NewStoreResourceVersionMetric implements cache.InformerMetricsProvider:
// informer_store_resource_version{name,group,version,resource}.
func (m *Metrics) NewStoreResourceVersionMetric(id cache.InformerNameAndResource) cache.GaugeMetric {
	return m.identities.NewStoreResourceVersionMetric(id)
}

// Workqueues returns the provider to give work queues
// (workqueue.TypedQueueConfig.MetricsProvider, controller.Options.QueueMetricsProvider).
func (m *Metrics) Workqueues() workqueue.MetricsProvider { return m.workqueues }

// Controllers returns the controller.Metrics to give controllers
// (controller.Options.Metrics).
func (m *Metrics) Controllers() controller.Metrics { return m.controllers }
