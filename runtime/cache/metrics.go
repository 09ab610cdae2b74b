package cache

import (
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/klog/v2"

	"github.com/typedinformer/typedinformer/runtime/cache/internal/reflector"
)

// DetailedInformerMetricsProvider creates the project's detailed metrics of
// each informer it is given to (SharedIndexInformerOptions.Metrics,
// informers.WithInformerMetrics): lists, watches, relists, errors, store
// size, queue depth and per-handler backlog and latency. It is called once
// per informer, when the informer is built or when the provider is set,
// with the informer's name; implementations must be safe for concurrent
// use. A nil provider means no metrics and no cost. client-go's narrower
// interface of the same purpose is InformerMetricsProvider; an informer may
// have both.
type DetailedInformerMetricsProvider interface {
	// NewInformerMetrics returns the metrics of the informer called name.
	NewInformerMetrics(name string) InformerMetrics
}

// InformerMetrics receives one informer's metrics. The reflector's goroutine
// calls the list/watch methods; the goroutine applying deltas calls
// SetObjects and SetQueueDepth after every batch. All methods must be safe
// for concurrent use and must not block or call back into the informer.
type InformerMetrics interface {
	// IncLists counts a list request that succeeded (a watch-list stream
	// that delivered its initial events counts as a list).
	IncLists()
	// IncWatches counts a watch request the server accepted.
	IncWatches()
	// IncRelistsAfterExpired counts a list made because the resourceVersion
	// the informer held had expired (410 Gone / "too old resource version").
	IncRelistsAfterExpired()
	// IncWatchRestarts counts a watch that ended and is restarted, with the
	// reason (see ErrorReason; "closed" for a watch the server ended
	// normally, e.g. at its timeout).
	IncWatchRestarts(reason string)
	// IncErrors counts a list or watch error reported through LastError
	// and the watch error handler, with its reason (see ErrorReason).
	IncErrors(reason string)
	// SetObjects is the number of objects in the store.
	SetObjects(n int)
	// SetQueueDepth is the number of keys waiting in the DeltaFIFO.
	SetQueueDepth(n int)
	// ObserveEvent records a watch event (bookmarks included) received at
	// the given time, carrying resourceVersion (the informer's last synced
	// resourceVersion from then on). A list records its resourceVersion
	// the same way. On the real clock a watch event's time is read from a
	// clock that advances every 100 ms (a clock read per event would cost
	// more than the rest of the metrics), so it is up to that much early;
	// a list's time is exact. That clock is the informer's own: its
	// goroutine runs only while the informer's Run runs with metrics.
	ObserveEvent(at time.Time, resourceVersion string)
	// NewHandlerMetrics returns the metrics of one event handler, named as
	// in the logs (HandlerName, or the handler's Go type).
	NewHandlerMetrics(handler string) HandlerMetrics
}

// HandlerMetrics receives one event handler's metrics, from the informer's
// delivery goroutines. Methods must be safe for concurrent use.
type HandlerMetrics interface {
	// SetBacklog is the number of notifications handed to the handler and
	// not yet delivered (including the batch it is working through); 0
	// once it is removed.
	SetBacklog(n int)
	// ObserveLatency records how long one handler call took. Listeners
	// time whole batches of calls (see BatchLatencyObserver); without that
	// interface they report each call of a batch at the batch's mean.
	ObserveLatency(d time.Duration)
}

// HandlerName is an optional interface of ResourceEventHandlers: a handler
// that implements it is named by it in logs and metrics instead of by its Go
// type (e.g. a controller names its handler after itself).
type HandlerName interface {
	// HandlerName returns a short, stable name.
	HandlerName() string
}

// DefaultHandlerBacklogThreshold is the handler backlog (notifications
// queued for one handler) above which the informer logs a warning, when
// SharedIndexInformerOptions.HandlerBacklogThreshold is 0.
const DefaultHandlerBacklogThreshold = 10000

// ErrorReason classifies a list or watch error into a short metric label:
// "expired", "forbidden", "unauthorized", "not_found", "too_many_requests",
// "connection_refused", "timeout", "very_short_watch", "wrong_type",
// "internal", "unavailable" or "other" ("none" for nil).
func ErrorReason(err error) string { return reflector.ErrorReason(err) }

// BatchLatencyObserver is an optional interface of HandlerMetrics. A
// listener hands its handler a batch of notifications back to back and
// times the batch, not each call: a clock read per call costs about as much
// as a cheap handler. ObserveBatchLatency records calls handler calls that
// took total together; implementations count them as calls observations of
// total/calls each, so that the count and the sum stay exact (a batch of one
// is one exact observation). HandlerMetrics without it get
// ObserveLatency(total/calls) calls times.
type BatchLatencyObserver interface {
	// ObserveBatchLatency records calls (>= 1) calls that took total.
	ObserveBatchLatency(calls int, total time.Duration)
}

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

// MetricsSetter is implemented by the informers this package builds: a
// factory uses it to give its informers a metrics provider after the
// generated constructor built them.
type MetricsSetter interface {
	// SetMetricsProvider replaces the informer's metrics provider (nil: no
	// metrics). It must be called before Run and before any handler is
	// added; afterwards it returns an error and changes nothing.
	SetMetricsProvider(p DetailedInformerMetricsProvider) error
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

// InformerName identifies a set of informers (typically one factory's) in
// metrics, with client-go's shape: create it once at startup with
// NewInformerName, hand it to a factory (informers.WithInformerName) or to
// informers directly through WithResource, and Release it at shutdown.
//
// Unlike client-go, names are not registered process-wide: two
// InformerNames may carry the same name. Uniqueness is enforced where it
// matters, by whoever turns identities into series: one InformerName
// reserves each GroupVersionResource once (see WithResource), and a metrics
// provider may refuse an identity it already exports (the Prometheus
// adapter in metrics/prometheus does, per registry). So tests and programs
// that build several factories need no global reset.
//
// An InformerName is safe for concurrent use. A nil *InformerName is valid
// and means "no name": WithResource then returns an identity that is never
// reserved, so no metrics are published for it.
type InformerName struct {
	name string

	// mu guards released and gvrs.
	mu       sync.Mutex
	released bool
	gvrs     map[schema.GroupVersionResource]*atomic.Bool
}

// NewInformerName returns an InformerName called name. The only error is an
// empty name.
func NewInformerName(name string) (*InformerName, error) {
	if name == "" {
		return nil, errors.New("informer name cannot be empty")
	}
	return &InformerName{name: name, gvrs: map[schema.GroupVersionResource]*atomic.Bool{}}, nil
}

// WithResource returns the identity of the informer of gvr under this name.
// The first call for a gvr returns a reserved identity (Reserved() is true
// until Release); later calls for the same gvr return an identity that is
// not reserved, so one resource never publishes two series under one name,
// and log that once per call. After Release nothing is reserved.
func (n *InformerName) WithResource(gvr schema.GroupVersionResource) InformerNameAndResource {
	if n == nil {
		return InformerNameAndResource{gvr: gvr}
	}
	id := InformerNameAndResource{name: n.name, gvr: gvr, reserved: new(atomic.Bool)}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.released {
		return id
	}
	if _, dup := n.gvrs[gvr]; dup {
		klog.Background().Error(nil, "Informer registered twice under one name; the second publishes no metrics",
			"informerName", n.name, "group", gvr.Group, "version", gvr.Version, "resource", gvr.Resource)
		return id
	}
	id.reserved.Store(true)
	n.gvrs[gvr] = id.reserved
	return id
}

// Release ends every reservation made through WithResource: the identities
// it returned report Reserved() false from now on, and later WithResource
// calls reserve nothing. Calling it again does nothing.
func (n *InformerName) Release() {
	if n == nil {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, r := range n.gvrs {
		r.Store(false)
	}
	clear(n.gvrs)
	n.released = true
}

// Name returns the name ("" for a nil InformerName).
func (n *InformerName) Name() string {
	if n == nil {
		return ""
	}
	return n.name
}

// InformerNameAndResource is one informer's identity in metrics: an
// InformerName's name and the resource it serves. The zero value has no
// name and is never reserved. Copies share the reservation.
type InformerNameAndResource struct {
	name     string
	gvr      schema.GroupVersionResource
	reserved *atomic.Bool
}

// Reserved reports whether metrics may be published for this identity: it
// was the first registration of its resource under its InformerName, and
// the name has not been released. It does not lock.
func (id InformerNameAndResource) Reserved() bool {
	return id.reserved != nil && id.reserved.Load()
}

// Name returns the InformerName's name.
func (id InformerNameAndResource) Name() string { return id.name }

// GroupVersionResource returns the resource the informer serves.
func (id InformerNameAndResource) GroupVersionResource() schema.GroupVersionResource { return id.gvr }
