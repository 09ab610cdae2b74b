package prometheus

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/typedinformer/typedinformer/runtime/cache"
)

// informerVecs are the informer metrics, labelled "informer" (and "handler").
type informerVecs struct {
	lists, watches, relists *prometheus.CounterVec
	restarts, errors        *prometheus.CounterVec
	handlers                *handlerCollector
	age                     *eventAge
}

func newInformerVecs() *informerVecs {
	const sub = "typedinformer_informer"
	inf := []string{"informer"}
	counter := func(name, help string, labels ...string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Name: sub + "_" + name, Help: help}, append(inf, labels...))
	}
	return &informerVecs{
		lists:    counter("lists_total", "Lists (or watch-list streams) that stored their result."),
		watches:  counter("watches_total", "Watches the server accepted."),
		relists:  counter("relists_total", "Lists made because the held resourceVersion expired (410 Gone)."),
		restarts: counter("watch_restarts_total", "Watches that ended and were restarted, by reason (closed: ended normally).", "reason"),
		errors:   counter("errors_total", "List and watch errors, by reason.", "reason"),
		handlers: &handlerCollector{},
		age:      &eventAge{now: time.Now},
	}
}

func (v *informerVecs) collectors() []prometheus.Collector {
	return []prometheus.Collector{v.lists, v.watches, v.relists, v.restarts, v.errors, storeGauges{v.age},
		v.handlers, v.age}
}

// NewInformerMetrics implements cache.DetailedInformerMetricsProvider.
func (v *informerVecs) NewInformerMetrics(name string) cache.InformerMetrics {
	m := &informerMetrics{
		v:       v,
		name:    name,
		lists:   v.lists.WithLabelValues(name),
		watches: v.watches.WithLabelValues(name),
		relists: v.relists.WithLabelValues(name),
	}
	v.age.add(m)
	return m
}

// informerMetrics is one informer's view of informerVecs, with its
// label-free series looked up once.
type informerMetrics struct {
	v                       *informerVecs
	name                    string
	lists, watches, relists prometheus.Counter
	// objects and depth are the store and queue gauges as last set;
	// readGauges, once the informer handed its functions over
	// (cache.StoreGaugeReader), replaces them at scrape time.
	objects, depth atomic.Int64
	readGauges     atomic.Pointer[gaugeFuncs]
	// lastEventNanos (Unix nanoseconds, 0: none yet) and lastRV (0: none
	// numeric) are read at scrape time by eventAge: an event costs two
	// atomic stores.
	lastEventNanos, lastRV atomic.Int64
}

func (m *informerMetrics) IncLists()               { m.lists.Inc() }
func (m *informerMetrics) IncWatches()             { m.watches.Inc() }
func (m *informerMetrics) IncRelistsAfterExpired() { m.relists.Inc() }
func (m *informerMetrics) IncWatchRestarts(reason string) {
	m.v.restarts.WithLabelValues(m.name, reason).Inc()
}
func (m *informerMetrics) IncErrors(reason string) { m.v.errors.WithLabelValues(m.name, reason).Inc() }
func (m *informerMetrics) SetObjects(n int)        { m.objects.Store(int64(n)) }
func (m *informerMetrics) SetQueueDepth(n int)     { m.depth.Store(int64(n)) }

// ReadStoreGauges implements cache.StoreGaugeReader: the store and queue
// gauges are read when scraped.
func (m *informerMetrics) ReadStoreGauges(objects, queueDepth func() int) {
	m.readGauges.Store(&gaugeFuncs{objects: objects, depth: queueDepth})
}

// gaugeFuncs read an informer's store size and queue depth.
type gaugeFuncs struct{ objects, depth func() int }

// gauges returns the informer's store size and queue depth now.
func (m *informerMetrics) gauges() (objects, depth int64) {
	if f := m.readGauges.Load(); f != nil {
		return int64(f.objects()), int64(f.depth())
	}
	return m.objects.Load(), m.depth.Load()
}

// ObserveEvent records the event's time and, when it is a number, its
// resourceVersion (resourceVersions are opaque; etcd's are integers).
func (m *informerMetrics) ObserveEvent(at time.Time, rv string) {
	m.lastEventNanos.Store(at.UnixNano())
	if n, ok := parseRV(rv); ok {
		m.lastRV.Store(n)
	}
}

// parseRV parses a decimal resourceVersion of up to 18 digits (etcd's
// revisions are int64s): strconv.ParseInt's generality costs several times
// more, on every event.
func parseRV(rv string) (int64, bool) {
	if len(rv) == 0 || len(rv) > 18 {
		return 0, false
	}
	var n int64
	for i := 0; i < len(rv); i++ {
		c := rv[i] - '0'
		if c > 9 {
			return 0, false
		}
		n = n*10 + int64(c)
	}
	return n, true
}

// NewHandlerMetrics implements cache.InformerMetrics: the handler's series,
// shared with any other handler of the same informer and handler names.
func (m *informerMetrics) NewHandlerMetrics(handler string) cache.HandlerMetrics {
	return m.v.handlers.get(m.name, handler)
}

var (
	objectsDesc = prometheus.NewDesc("typedinformer_informer_objects",
		"Objects in the informer's store.", []string{"informer"}, nil)
	queueDepthDesc = prometheus.NewDesc("typedinformer_informer_queue_depth",
		"Keys waiting in the informer's DeltaFIFO.", []string{"informer"}, nil)
)

// storeGauges reports typedinformer_informer_objects and
// typedinformer_informer_queue_depth for every informer at scrape time.
// Two informers of one name report once: the one created last.
type storeGauges struct{ a *eventAge }

// Describe implements prometheus.Collector.
func (g storeGauges) Describe(ch chan<- *prometheus.Desc) {
	ch <- objectsDesc
	ch <- queueDepthDesc
}

// Collect implements prometheus.Collector.
func (g storeGauges) Collect(ch chan<- prometheus.Metric) {
	g.a.mu.Lock()
	last := map[string]*informerMetrics{}
	for _, m := range g.a.informers {
		last[m.name] = m
	}
	g.a.mu.Unlock()
	for name, m := range last {
		objects, depth := m.gauges()
		ch <- prometheus.MustNewConstMetric(objectsDesc, prometheus.GaugeValue, float64(objects), name)
		ch <- prometheus.MustNewConstMetric(queueDepthDesc, prometheus.GaugeValue, float64(depth), name)
	}
}

// eventAge reports, at scrape time, each informer's last event as a Unix
// time and as an age, and its last numeric resourceVersion:
// typedinformer_informer_last_event_timestamp_seconds,
// typedinformer_informer_last_event_age_seconds and
// typedinformer_informer_last_resource_version, labelled "informer". An
// informer reports none of them before its first list.
type eventAge struct {
	mu        sync.Mutex
	informers []*informerMetrics
	now       func() time.Time
}

var (
	eventAgeDesc = prometheus.NewDesc("typedinformer_informer_last_event_age_seconds",
		"Seconds since the informer's last list or watch event (bookmarks included), at scrape time.",
		[]string{"informer"}, nil)
	eventTimeDesc = prometheus.NewDesc("typedinformer_informer_last_event_timestamp_seconds",
		"Unix time of the informer's last list or watch event (bookmarks included).",
		[]string{"informer"}, nil)
	lastRVDesc = prometheus.NewDesc("typedinformer_informer_last_resource_version",
		"The informer's last resourceVersion, when numeric (as etcd's are).",
		[]string{"informer"}, nil)
)

func (a *eventAge) add(m *informerMetrics) {
	a.mu.Lock()
	a.informers = append(a.informers, m)
	a.mu.Unlock()
}

// Describe implements prometheus.Collector.
func (a *eventAge) Describe(ch chan<- *prometheus.Desc) {
	ch <- eventAgeDesc
	ch <- eventTimeDesc
	ch <- lastRVDesc
}

// Collect implements prometheus.Collector. Two informers of one name (e.g.
// two factories' informers of one resource) report once, the latest event.
func (a *eventAge) Collect(ch chan<- prometheus.Metric) {
	a.mu.Lock()
	last := map[string]*informerMetrics{}
	for _, m := range a.informers {
		if prev, ok := last[m.name]; !ok || m.lastEventNanos.Load() > prev.lastEventNanos.Load() {
			last[m.name] = m
		}
	}
	a.mu.Unlock()
	now := a.now()
	for name, m := range last {
		ns := m.lastEventNanos.Load()
		if ns == 0 {
			continue
		}
		at := time.Unix(0, ns)
		ch <- prometheus.MustNewConstMetric(eventAgeDesc, prometheus.GaugeValue, now.Sub(at).Seconds(), name)
		ch <- prometheus.MustNewConstMetric(eventTimeDesc, prometheus.GaugeValue, float64(ns)/1e9, name)
		if rv := m.lastRV.Load(); rv > 0 {
			ch <- prometheus.MustNewConstMetric(lastRVDesc, prometheus.GaugeValue, float64(rv), name)
		}
	}
}
