package cache

import (
	"fmt"
	"strconv"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/typedinformer/typedinformer/runtime/cache/internal/deltafifo"
)

// GaugeMetric is a value that goes up and down, with client-go's method set.
type GaugeMetric interface {
	// Set sets the gauge to a value.
	Set(float64)
}

// HistogramMetric records observations into buckets, with client-go's
// method set. Durations are observed in seconds.
type HistogramMetric interface {
	// Observe records one observation.
	Observe(float64)
}

// InformerMetricsProvider is client-go v0.37's informer metrics interface,
// with its shape, so that a provider written for client-go (e.g.
// k8s.io/component-base's) compiles against this package after an import
// swap. An informer gets one through
// SharedIndexInformerOptions.InformerMetricsProvider or a factory
// (informers.WithInformerMetricsProvider); there is no process-wide
// provider and no SetInformerMetricsProvider.
//
// The informer asks for its three metrics once, when it is built (or given
// the provider), and only if its Identifier is Reserved at that time; it
// updates them only while Identifier.Reserved() stays true (one atomic
// load per update), so nothing is published after the InformerName is
// released. Returned metrics must be safe for concurrent use and must not
// block: the informer updates them with its queue's lock held.
//
// The project's richer metrics (lists, watches, errors, per-handler backlog
// and latency) are DetailedInformerMetricsProvider's; an informer may have
// both.
type InformerMetricsProvider interface {
	// NewQueuedItemMetric returns the gauge of the deltas queued in the
	// informer's DeltaFIFO and not yet popped (client-go's RealFIFO
	// count: every event is one item; here a list also counts one item
	// per listed object, as client-go's RealFIFO without AtomicFIFO).
	NewQueuedItemMetric(id InformerNameAndResource) GaugeMetric
	// NewProcessingLatencyMetric returns the histogram of the seconds the
	// informer took to process each batch it popped: apply it to the
	// store and hand it to the handlers' queues.
	NewProcessingLatencyMetric(id InformerNameAndResource) HistogramMetric
	// NewStoreResourceVersionMetric returns the gauge of the last
	// resourceVersion applied to the store (an event's object, a list, a
	// bookmark), as its 15 least significant decimal digits ("" is 0; a
	// value that is not a number is not reported).
	NewStoreResourceVersionMetric(id InformerNameAndResource) GaugeMetric
}

// InformerMetricsSetter is implemented by the informers this package
// builds: a factory uses it to give its informers its InformerMetricsProvider
// and identity after the generated constructor built them.
type InformerMetricsSetter interface {
	// SetInformerMetricsProvider sets the informer's
	// InformerMetricsProvider (nil: none). When the informer has no
	// Identifier (its Name is empty) but knows its Resource, and identify
	// is not nil, identify(Resource) becomes its Identifier. It must be
	// called before Run; afterwards it returns an error and changes
	// nothing.
	SetInformerMetricsProvider(p InformerMetricsProvider, identify func(schema.GroupVersionResource) InformerNameAndResource) error
}

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
// reserved, and hooks them to the DeltaFIFO; otherwise it unhooks them, and
// the informer pays nothing for them.
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
	if s.idMetrics == nil {
		s.fifo.SetObserver(nil)
		return
	}
	s.fifo.SetObserver(s.idMetrics)
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
