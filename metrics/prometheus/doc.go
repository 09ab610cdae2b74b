// Package prometheus exposes typedinformer's informer, workqueue and
// controller metrics on a Prometheus registry. It is its own module so that
// the runtime never depends on Prometheus.
//
// Workqueue metrics carry client-go's names (workqueue_depth,
// workqueue_adds_total, ... with label "name") and controller metrics
// controller-runtime's (controller_runtime_reconcile_total{controller,result},
// ...), so dashboards and alerts written for those work unchanged. Informer
// metrics are prefixed typedinformer_informer_ and labelled "informer" (and
// "handler" for per-handler ones).
//
// Wiring:
//
//	m, err := prometheus.New(registry)
//	factory := informers.NewFactory(0, informers.WithInformerMetrics(m.Informers()))
//	ctrl, err := controller.New("foo", r, controller.Options{
//		Metrics:              m.Controllers(),
//		QueueMetricsProvider: m.Workqueues(),
//	})
package prometheus
