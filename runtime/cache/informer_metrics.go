package cache

import (
	"fmt"
	"strconv"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/klog/v2"

	"github.com/typedinformer/typedinformer/runtime/cache/internal/deltafifo"
	"github.com/typedinformer/typedinformer/runtime/cache/internal/processor"
)

// SetInformerMetricsProvider implements InformerMetricsSetter.
func (s *sharedIndexInformer[T]) SetInformerMetricsProvider(p InformerMetricsProvider, identify func(schema.GroupVersionResource) InformerNameAndResource) error {
	s.startMu.Lock()
	defer s.startMu.Unlock()
	if s.started {
		return fmt.Errorf("informer %s: SetInformerMetricsProvider: %w", s.name, errAlreadyStarted)
	}
	if s.opts.Identifier.Name() == "" && !s.opts.Resource.Empty() && identify != nil {
		s.opts.Identifier = identify(s.opts.Resource)
	}
	s.opts.InformerMetricsProvider = p
	s.installInformerMetrics()
	return nil
}

// installInformerMetrics asks the InformerMetricsProvider for the metrics of
// the informer's Identifier, when there is a provider and the identity is
// reserved; the informer's DeltaFIFO observer (storeObserver) feeds them.
func (s *sharedIndexInformer[T]) installInformerMetrics() {
	s.idMetrics = nil
	p, id := s.opts.InformerMetricsProvider, s.opts.Identifier
	if p != nil && id.Reserved() {
		s.idMetrics = &identityMetrics{
			id:      id,
			queued:  p.NewQueuedItemMetric(id),
			latency: p.NewProcessingLatencyMetric(id),
			rv:      p.NewStoreResourceVersionMetric(id),
		}
	}
}

// identityMetrics are an informer's InformerMetricsProvider metrics. Every
// update first checks that the identity is still reserved.
type identityMetrics struct {
	id      InformerNameAndResource
	queued  GaugeMetric
	latency HistogramMetric
	rv      GaugeMetric
}

// Queued implements deltafifo.Observer.
func (m *identityMetrics) Queued(n int) {
	if m.id.Reserved() {
		m.queued.Set(float64(n))
	}
}

// Reached implements deltafifo.Observer: a list's or bookmark's
// resourceVersion the store reached.
func (m *identityMetrics) Reached(rv string) {
	if !m.id.Reserved() {
		return
	}
	if n, ok := resourceVersionMetric(rv); ok {
		m.rv.Set(float64(n))
	}
}

// observeBatch records how long processing a batch took and the
// resourceVersion of the last object it applied: the last delta that is
// neither a resync (the store does not change) nor a tombstone inferred
// from a relist (its object is a stale state; the list's resourceVersion
// follows it, see deltafifo.Observer.Reached).
func observeBatch[T Object](m *identityMetrics, batch []deltafifo.Delta[T], took time.Duration) {
	if !m.id.Reserved() {
		return
	}
	m.latency.Observe(took.Seconds())
	for i := len(batch) - 1; i >= 0; i-- {
		if d := batch[i]; d.Type != deltafifo.Sync && !d.FinalStateUnknown {
			if n, ok := resourceVersionMetric(d.Object.GetResourceVersion()); ok {
				m.rv.Set(float64(n))
			}
			return
		}
	}
}

// resourceVersionMetric is the store resource version gauge's value of rv,
// as client-go computes it: 0 for "", else the decimal value of its last 15
// characters (so that it stays below 2^53 and exact in a float64); ok is
// false when those are not a number.
func resourceVersionMetric(rv string) (int64, bool) {
	if rv == "" {
		return 0, true
	}
	if len(rv) > 15 {
		rv = rv[len(rv)-15:]
	}
	n, err := strconv.ParseInt(rv, 10, 64)
	return n, err == nil
}

// SetMetricsProvider implements MetricsSetter.
func (s *sharedIndexInformer[T]) SetMetricsProvider(p DetailedInformerMetricsProvider) error {
	s.startMu.Lock()
	defer s.startMu.Unlock()
	if s.started {
		return fmt.Errorf("informer %s: SetMetricsProvider: %w", s.name, errAlreadyStarted)
	}
	if n := s.proc.ListenerCount(); n > 0 {
		return fmt.Errorf("informer %s: SetMetricsProvider: called after %d event handler(s) were added", s.name, n)
	}
	s.opts.Metrics = p
	s.metrics = nil
	if p != nil {
		s.metrics = p.NewInformerMetrics(s.name)
	}
	return nil
}

// observe sets up a listener's backlog warning and metrics before it is
// built.
func (s *sharedIndexInformer[T]) observe(cfg *processor.ListenerConfig) {
	th := s.opts.HandlerBacklogThreshold // defaulted by withDefaults
	if th < 0 && s.metrics == nil {
		return
	}
	o := &processor.Backlog{Informer: s.name, Threshold: th, Logger: s.runLogger}
	if s.metrics != nil {
		o.Metrics = s.metrics.NewHandlerMetrics(cfg.Name)
		cfg.Metrics = o.Metrics
	}
	cfg.Backlog = o
}

// runLogger is the logger of Run's context, or klog.Background() before Run.
func (s *sharedIndexInformer[T]) runLogger() klog.Logger {
	if p := s.logger.Load(); p != nil {
		return *p
	}
	return klog.Background()
}

// handOverGauges gives a StoreGaugeReader its functions; Run calls it once.
func (s *sharedIndexInformer[T]) handOverGauges() {
	if r, ok := s.metrics.(StoreGaugeReader); ok {
		r.ReadStoreGauges(s.indexer.Len, s.fifo.Len)
	}
}

// noteBatch feeds the store and queue gauges after a batch was applied,
// unless the metrics read them at collection time.
func (s *sharedIndexInformer[T]) noteBatch() {
	if _, ok := s.metrics.(StoreGaugeReader); ok {
		return
	}
	s.metrics.SetObjects(s.indexer.Len())
	s.metrics.SetQueueDepth(s.fifo.Len())
}
