package workqueue

import "time"

// GaugeMetric is a value that goes up and down (queue depth).
type GaugeMetric interface {
	// Inc adds one.
	Inc()
	// Dec subtracts one.
	Dec()
}

// SettableGaugeMetric is a gauge set to an absolute value.
type SettableGaugeMetric interface {
	// Set replaces the value.
	Set(float64)
}

// CounterMetric is a monotonically increasing count.
type CounterMetric interface {
	// Inc adds one.
	Inc()
}

// HistogramMetric records observations, in seconds for durations.
type HistogramMetric interface {
	// Observe records one value.
	Observe(float64)
}

// MetricsProvider creates the metrics of a named queue. Its method set is the
// one Kubernetes' workqueue metrics adapters implement, so an existing
// Prometheus adapter can be passed as is. Each method is called once per
// queue, from its constructor.
type MetricsProvider interface {
	// NewDepthMetric returns the gauge of items queued (Len).
	NewDepthMetric(name string) GaugeMetric
	// NewAddsMetric returns the counter of adds that queued an item
	// (collapsed duplicates are not counted).
	NewAddsMetric(name string) CounterMetric
	// NewLatencyMetric returns the histogram of seconds from Add to Get.
	NewLatencyMetric(name string) HistogramMetric
	// NewWorkDurationMetric returns the histogram of seconds from Get to Done.
	NewWorkDurationMetric(name string) HistogramMetric
	// NewUnfinishedWorkSecondsMetric returns the gauge of the sum of the ages
	// of the items being processed, updated periodically.
	NewUnfinishedWorkSecondsMetric(name string) SettableGaugeMetric
	// NewLongestRunningProcessorSecondsMetric returns the gauge of the age of
	// the oldest item being processed, updated periodically.
	NewLongestRunningProcessorSecondsMetric(name string) SettableGaugeMetric
	// NewRetriesMetric returns the counter of calls to AddAfter,
	// AddRateLimited, and AddWithOpts with a delay or rate limit.
	NewRetriesMetric(name string) CounterMetric
}

// queueMetrics holds a queue's metrics; a nil *queueMetrics is "no metrics"
// and every call site checks for nil before reading the clock.
type queueMetrics struct {
	depth          GaugeMetric
	adds           CounterMetric
	latency        HistogramMetric
	workDuration   HistogramMetric
	unfinished     SettableGaugeMetric
	longestRunning SettableGaugeMetric
	retries        CounterMetric
}

func newQueueMetrics(p MetricsProvider, name string) *queueMetrics {
	if p == nil {
		return nil
	}
	return &queueMetrics{
		depth:          p.NewDepthMetric(name),
		adds:           p.NewAddsMetric(name),
		latency:        p.NewLatencyMetric(name),
		workDuration:   p.NewWorkDurationMetric(name),
		unfinished:     p.NewUnfinishedWorkSecondsMetric(name),
		longestRunning: p.NewLongestRunningProcessorSecondsMetric(name),
		retries:        p.NewRetriesMetric(name),
	}
}

// seconds converts a duration to float seconds for histograms.
func seconds(d time.Duration) float64 { return d.Seconds() }
