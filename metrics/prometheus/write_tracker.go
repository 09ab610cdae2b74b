package prometheus

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/typedinformer/typedinformer/runtime/cache"
)

// newWriteWait is the histogram of how long lister reads waited for the
// program's own writes (cache.WriteTrackerOptions.WaitDuration).
func newWriteWait() prometheus.Histogram {
	return prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "typedinformer_write_tracker_wait_duration_seconds",
		Help:    "How long reads through listers waited for their informer's store to hold the program's own writes (reads that did not wait are not counted).",
		Buckets: []float64{0.0005, 0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10},
	})
}

// WriteWaitDuration returns the histogram to give a WriteTracker
// (cache.WriteTrackerOptions.WaitDuration):
// typedinformer_write_tracker_wait_duration_seconds.
func (m *Metrics) WriteWaitDuration() cache.HistogramMetric { return m.writeWait }
