package prometheus

import (
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/typedinformer/typedinformer/runtime/cache"
)

// informerVecs are the informer metrics, labelled "informer" (and "handler").
type informerVecs struct {
	lists, watches, relists *prometheus.CounterVec
	restarts, errors        *prometheus.CounterVec
	objects, depth, lastRV  *prometheus.GaugeVec
	lastEvent               *prometheus.GaugeVec
	backlog                 *prometheus.GaugeVec
	handlerDuration         *prometheus.HistogramVec
	age                     *eventAge
}

func newInformerVecs() *informerVecs {
	const sub = "typedinformer_informer"
	inf := []string{"informer"}
	counter := func(name, help string, labels ...string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Name: sub + "_" + name, Help: help}, append(inf, labels...))
	}
	gauge := func(name, help string, labels ...string) *prometheus.GaugeVec {
		return prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: sub + "_" + name, Help: help}, append(inf, labels...))
	}
	return &informerVecs{
		lists:     counter("lists_total", "Lists (or watch-list streams) that stored their result."),
		watches:   counter("watches_total", "Watches the server accepted."),
		relists:   counter("relists_total", "Lists made because the held resourceVersion expired (410 Gone)."),
		restarts:  counter("watch_restarts_total", "Watches that ended and were restarted, by reason (closed: ended normally).", "reason"),
		errors:    counter("errors_total", "List and watch errors, by reason.", "reason"),
		objects:   gauge("objects", "Objects in the informer's store."),
		depth:     gauge("queue_depth", "Keys waiting in the informer's DeltaFIFO."),
		lastRV:    gauge("last_resource_version", "Last resourceVersion observed (when numeric)."),
		lastEvent: gauge("last_event_timestamp_seconds", "Unix time of the last list or watch event (bookmarks included)."),
		backlog:   gauge("handler_backlog", "Notifications queued for a handler and not yet delivered.", "handler"),
		handlerDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: sub + "_handler_duration_seconds",
			Help:    "Seconds per event handler call.",
			Buckets: prometheus.ExponentialBuckets(1e-6, 4, 14)}, []string{"informer", "handler"}),
		age: &eventAge{last: map[string]time.Time{}, now: time.Now},
	}
}

func (v *informerVecs) collectors() []prometheus.Collector {
	return []prometheus.Collector{v.lists, v.watches, v.relists, v.restarts, v.errors, v.objects, v.depth,
		v.lastRV, v.lastEvent, v.backlog, v.handlerDuration, v.age}
}

// NewInformerMetrics implements cache.InformerMetricsProvider.
func (v *informerVecs) NewInformerMetrics(name string) cache.InformerMetrics {
	return &informerMetrics{
		v:       v,
		name:    name,
		lists:   v.lists.WithLabelValues(name),
		watches: v.watches.WithLabelValues(name),
		relists: v.relists.WithLabelValues(name),
		objects: v.objects.WithLabelValues(name),
		depth:   v.depth.WithLabelValues(name),
		lastRV:  v.lastRV.WithLabelValues(name),
		lastEv:  v.lastEvent.WithLabelValues(name),
	}
}

// informerMetrics is one informer's view of informerVecs, with its
// label-free series looked up once.
type informerMetrics struct {
	v                       *informerVecs
	name                    string
	lists, watches, relists prometheus.Counter
	objects, depth          prometheus.Gauge
	lastRV, lastEv          prometheus.Gauge
}

func (m *informerMetrics) IncLists()               { m.lists.Inc() }
func (m *informerMetrics) IncWatches()             { m.watches.Inc() }
func (m *informerMetrics) IncRelistsAfterExpired() { m.relists.Inc() }
func (m *informerMetrics) IncWatchRestarts(reason string) {
	m.v.restarts.WithLabelValues(m.name, reason).Inc()
}
func (m *informerMetrics) IncErrors(reason string) { m.v.errors.WithLabelValues(m.name, reason).Inc() }
func (m *informerMetrics) SetObjects(n int)        { m.objects.Set(float64(n)) }
func (m *informerMetrics) SetQueueDepth(n int)     { m.depth.Set(float64(n)) }

// ObserveEvent records the event's time and, when it is a number, its
// resourceVersion (resourceVersions are opaque; etcd's are integers).
func (m *informerMetrics) ObserveEvent(at time.Time, rv string) {
	m.lastEv.Set(float64(at.UnixNano()) / 1e9)
	m.v.age.set(m.name, at)
	if n, err := strconv.ParseUint(rv, 10, 64); err == nil {
		m.lastRV.Set(float64(n))
	}
}

func (m *informerMetrics) NewHandlerMetrics(handler string) cache.HandlerMetrics {
	return handlerMetrics{
		backlog:  m.v.backlog.WithLabelValues(m.name, handler),
		duration: m.v.handlerDuration.WithLabelValues(m.name, handler),
	}
}

type handlerMetrics struct {
	backlog  prometheus.Gauge
	duration prometheus.Observer
}

func (h handlerMetrics) SetBacklog(n int)               { h.backlog.Set(float64(n)) }
func (h handlerMetrics) ObserveLatency(d time.Duration) { h.duration.Observe(d.Seconds()) }

// eventAge reports, at scrape time, the seconds since each informer's last
// event: typedinformer_informer_last_event_age_seconds{informer}.
type eventAge struct {
	mu   sync.Mutex
	last map[string]time.Time
	now  func() time.Time
}

var eventAgeDesc = prometheus.NewDesc("typedinformer_informer_last_event_age_seconds",
	"Seconds since the informer's last list or watch event (bookmarks included), at scrape time.",
	[]string{"informer"}, nil)

func (a *eventAge) set(informer string, at time.Time) {
	a.mu.Lock()
	a.last[informer] = at
	a.mu.Unlock()
}

// Describe implements prometheus.Collector.
func (a *eventAge) Describe(ch chan<- *prometheus.Desc) { ch <- eventAgeDesc }

// Collect implements prometheus.Collector.
func (a *eventAge) Collect(ch chan<- prometheus.Metric) {
	a.mu.Lock()
	defer a.mu.Unlock()
	now := a.now()
	for name, at := range a.last {
		ch <- prometheus.MustNewConstMetric(eventAgeDesc, prometheus.GaugeValue, now.Sub(at).Seconds(), name)
	}
}
