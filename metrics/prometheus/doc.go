// Package prometheus exposes typedinformer's informer, workqueue and
// controller metrics on a Prometheus registry. It is its own module so that
// the runtime never depends on Prometheus.
//
// Workqueue metrics carry client-go's names (workqueue_depth,
// workqueue_adds_total, ... with label "name") and controller metrics
// controller-runtime's (controller_runtime_reconcile_total{controller,result},
// ...), so dashboards and alerts written for those work unchanged. Informer
// metrics come in two sets. The detailed ones (Informers, a
// cache.DetailedInformerMetricsProvider) are prefixed typedinformer_informer_
// and labelled "informer" (and "handler" for per-handler ones). client-go's
// (Metrics itself is a cache.InformerMetricsProvider) carry the names, help,
// labels and buckets Kubernetes components export through component-base:
// informer_queued_items, informer_processing_latency_seconds and
// informer_store_resource_version{name,group,version,resource}, for
// informers with a reserved identity (informers.WithInformerName).
// WriteWaitDuration is the histogram of the reads that waited for the
// program's own writes (cache.WriteTrackerOptions.WaitDuration).
//
// Wiring:
//
//	m, err := prometheus.New(registry)
//	name, err := cache.NewInformerName("foo-controller")
//	defer name.Release()
//	factory := informers.NewFactory(0,
//		informers.WithInformerMetrics(m.Informers()),
//		informers.WithInformerName(name), informers.WithInformerMetricsProvider(m))
//	ctrl, err := controller.New("foo", r, controller.Options{
//		Metrics:              m.Controllers(),
//		QueueMetricsProvider: m.Workqueues(),
//	})
package prometheus
