package prometheus

import (
	"math/bits"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Handler metrics are collected at scrape time from plain atomic counters:
// the informer calls SetBacklog for every notification it hands a handler
// and records the handler's latency for every batch it delivers, so the
// write side must cost no more than an atomic add (no label lookup, no
// float compare-and-swap); the scrape turns the counters into a gauge and
// a histogram.

// Latency buckets: upper bounds latencyBase·4^i seconds for i in
// [0, latencyBuckets), as prometheus.ExponentialBuckets(1e-6, 4, 14) gives,
// plus +Inf.
const (
	latencyBaseNanos = 1000 // 1 µs
	latencyBuckets   = 14
)

var (
	handlerBacklogDesc = prometheus.NewDesc("typedinformer_informer_handler_backlog",
		"Notifications queued for a handler and not yet delivered.",
		[]string{"informer", "handler"}, nil)
	handlerDurationDesc = prometheus.NewDesc("typedinformer_informer_handler_duration_seconds",
		"Seconds per event handler call (calls delivered back to back in one batch count at the batch's mean).",
		[]string{"informer", "handler"}, nil)
	// latencyUpperBounds are the buckets' upper bounds in seconds.
	latencyUpperBounds = prometheus.ExponentialBuckets(latencyBaseNanos/1e9, 4, latencyBuckets)
)

// latencyBucket returns the index of the bucket of a call that took ns
// nanoseconds: the first i with ns <= 1000·4^i, or latencyBuckets (+Inf).
func latencyBucket(ns int64) int {
	if ns <= latencyBaseNanos {
		return 0
	}
	// x = ceil(ns/1000) >= 2; the smallest i with 4^i >= x is
	// ceil(log2(x)/2) = (bits.Len64(x-1)+1)/2.
	x := uint64((ns + latencyBaseNanos - 1) / latencyBaseNanos)
	i := (bits.Len64(x-1) + 1) / 2
	if i > latencyBuckets {
		return latencyBuckets
	}
	return i
}

// handlerSeries is one (informer, handler) pair's backlog and latency.
// Listeners of the same pair (e.g. two factories' informers of one
// resource, each with a handler of one name) share it, as they would share
// a Vec's child.
type handlerSeries struct {
	informer, handler string
	backlog           atomic.Int64
	// buckets are per-bucket (not cumulative) call counts; the last is
	// +Inf. sumNanos is the calls' total duration.
	buckets  [latencyBuckets + 1]atomic.Uint64
	sumNanos atomic.Int64
}

// SetBacklog implements cache.HandlerMetrics.
func (h *handlerSeries) SetBacklog(n int) { h.backlog.Store(int64(n)) }

// ObserveLatency implements cache.HandlerMetrics.
func (h *handlerSeries) ObserveLatency(d time.Duration) {
	h.buckets[latencyBucket(int64(d))].Add(1)
	h.sumNanos.Add(int64(d))
}

// ObserveBatchLatency implements cache.BatchLatencyObserver: calls
// observations of total/calls each.
func (h *handlerSeries) ObserveBatchLatency(calls int, total time.Duration) {
	if calls <= 0 {
		return
	}
	h.buckets[latencyBucket(int64(total)/int64(calls))].Add(uint64(calls))
	h.sumNanos.Add(int64(total))
}

// handlerCollector reports every handlerSeries at scrape time.
type handlerCollector struct {
	mu     sync.Mutex
	series map[[2]string]*handlerSeries
}

// get returns the series of (informer, handler), creating it once.
func (c *handlerCollector) get(informer, handler string) *handlerSeries {
	c.mu.Lock()
	defer c.mu.Unlock()
	k := [2]string{informer, handler}
	if s, ok := c.series[k]; ok {
		return s
	}
	if c.series == nil {
		c.series = map[[2]string]*handlerSeries{}
	}
	s := &handlerSeries{informer: informer, handler: handler}
	c.series[k] = s
	return s
}

// Describe implements prometheus.Collector.
func (c *handlerCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- handlerBacklogDesc
	ch <- handlerDurationDesc
}

// Collect implements prometheus.Collector. The buckets and the sum are
// read one after the other while calls may go on, so one scrape may count
// a call in the buckets and not yet in the sum (or the reverse); the next
// scrape is consistent again.
func (c *handlerCollector) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	all := make([]*handlerSeries, 0, len(c.series))
	for _, s := range c.series {
		all = append(all, s)
	}
	c.mu.Unlock()
	for _, s := range all {
		ch <- prometheus.MustNewConstMetric(handlerBacklogDesc, prometheus.GaugeValue, float64(s.backlog.Load()), s.informer, s.handler)
		cumulative := make(map[float64]uint64, latencyBuckets)
		var n uint64
		for i, ub := range latencyUpperBounds {
			n += s.buckets[i].Load()
			cumulative[ub] = n
		}
		n += s.buckets[latencyBuckets].Load()
		ch <- prometheus.MustNewConstHistogram(handlerDurationDesc, n, float64(s.sumNanos.Load())/1e9, cumulative, s.informer, s.handler)
	}
}
