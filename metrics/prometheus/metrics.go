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
type Metrics struct {
	informers   *informerVecs
	workqueues  *workqueueVecs
	controllers *controllerVecs
}

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
		workqueues:  newWorkqueueVecs(),
		controllers: newControllerVecs(),
	}
	for _, group := range [][]prometheus.Collector{m.informers.collectors(), m.workqueues.collectors(), m.controllers.collectors()} {
		for _, c := range group {
			if err := reg.Register(c); err != nil {
				return nil, fmt.Errorf("metrics/prometheus: registering: %w", err)
			}
		}
	}
	return m, nil
}

// Informers returns the provider to give informers
// (cache.SharedIndexInformerOptions.Metrics, informers.WithInformerMetrics).
func (m *Metrics) Informers() cache.DetailedInformerMetricsProvider { return m.informers }

// Workqueues returns the provider to give work queues
// (workqueue.Options.MetricsProvider, controller.Options.QueueMetricsProvider).
func (m *Metrics) Workqueues() workqueue.MetricsProvider { return m.workqueues }

// Controllers returns the controller.Metrics to give controllers
// (controller.Options.Metrics).
func (m *Metrics) Controllers() controller.Metrics { return m.controllers }
