package cache

import (
	"fmt"

	"k8s.io/klog/v2"

	"github.com/typedinformer/typedinformer/runtime/cache/internal/processor"
)

// MetricsSetter is implemented by the informers this package builds: a
// factory uses it to give its informers a metrics provider after the
// generated constructor built them.
type MetricsSetter interface {
	// SetMetricsProvider replaces the informer's metrics provider (nil: no
	// metrics). It must be called before Run and before any handler is
	// added; afterwards it returns an error and changes nothing.
	SetMetricsProvider(p DetailedInformerMetricsProvider) error
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

// StoreGaugeReader is an optional interface of InformerMetrics: metrics
// that implement it read the store's size and the DeltaFIFO's depth when
// they are collected, instead of being told after every batch (which costs
// two lock round trips per batch, often per event). When Run starts, the
// informer calls ReadStoreGauges once with two functions that are safe to
// call from any goroutine at any time, and from then on never calls
// SetObjects or SetQueueDepth.
type StoreGaugeReader interface {
	// ReadStoreGauges hands over functions returning the number of objects
	// in the store and of keys waiting in the DeltaFIFO.
	ReadStoreGauges(objects, queueDepth func() int)
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
