package prometheus

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/typedinformer/typedinformer/runtime/workqueue"
)

// workqueueVecs are client-go's workqueue metrics, same names, label and
// buckets, so that existing dashboards read them unchanged.
type workqueueVecs struct {
	depth          *prometheus.GaugeVec
	adds           *prometheus.CounterVec
	latency        *prometheus.HistogramVec
	workDuration   *prometheus.HistogramVec
	unfinished     *prometheus.GaugeVec
	longestRunning *prometheus.GaugeVec
	retries        *prometheus.CounterVec
}

func newWorkqueueVecs() *workqueueVecs {
	// 10ns to 10^3 s, one bucket per decade, as client-go's.
	buckets := prometheus.ExponentialBuckets(10e-9, 10, 12)
	name := []string{"name"}
	return &workqueueVecs{
		depth: prometheus.NewGaugeVec(prometheus.GaugeOpts{Subsystem: "workqueue", Name: "depth",
			Help: "Current depth of the work queue."}, name),
		adds: prometheus.NewCounterVec(prometheus.CounterOpts{Subsystem: "workqueue", Name: "adds_total",
			Help: "Items added to the work queue (duplicates collapsed into a queued item not counted)."}, name),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{Subsystem: "workqueue", Name: "queue_duration_seconds",
			Help: "Seconds an item waits in the work queue before a worker gets it.", Buckets: buckets}, name),
		workDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Subsystem: "workqueue", Name: "work_duration_seconds",
			Help: "Seconds a worker spends on an item.", Buckets: buckets}, name),
		unfinished: prometheus.NewGaugeVec(prometheus.GaugeOpts{Subsystem: "workqueue", Name: "unfinished_work_seconds",
			Help: "Sum of the ages of the items being worked on; a large value with no progress means stuck workers."}, name),
		longestRunning: prometheus.NewGaugeVec(prometheus.GaugeOpts{Subsystem: "workqueue", Name: "longest_running_processor_seconds",
			Help: "Age of the oldest item being worked on."}, name),
		retries: prometheus.NewCounterVec(prometheus.CounterOpts{Subsystem: "workqueue", Name: "retries_total",
			Help: "Items re-added with a delay or a rate limit."}, name),
	}
}

func (v *workqueueVecs) collectors() []prometheus.Collector {
	return []prometheus.Collector{v.depth, v.adds, v.latency, v.workDuration, v.unfinished, v.longestRunning, v.retries}
}

func (v *workqueueVecs) NewDepthMetric(name string) workqueue.GaugeMetric {
	return v.depth.WithLabelValues(name)
}

func (v *workqueueVecs) NewAddsMetric(name string) workqueue.CounterMetric {
	return v.adds.WithLabelValues(name)
}

func (v *workqueueVecs) NewLatencyMetric(name string) workqueue.HistogramMetric {
	return v.latency.WithLabelValues(name)
}

func (v *workqueueVecs) NewWorkDurationMetric(name string) workqueue.HistogramMetric {
	return v.workDuration.WithLabelValues(name)
}

func (v *workqueueVecs) NewUnfinishedWorkSecondsMetric(name string) workqueue.SettableGaugeMetric {
	return v.unfinished.WithLabelValues(name)
}

func (v *workqueueVecs) NewLongestRunningProcessorSecondsMetric(name string) workqueue.SettableGaugeMetric {
	return v.longestRunning.WithLabelValues(name)
}

func (v *workqueueVecs) NewRetriesMetric(name string) workqueue.CounterMetric {
	return v.retries.WithLabelValues(name)
}
