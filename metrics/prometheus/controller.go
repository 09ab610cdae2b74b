package prometheus

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/typedinformer/typedinformer/runtime/controller"
)

// controllerVecs are controller-runtime's controller metrics, same names,
// labels and result values.
type controllerVecs struct {
	total      *prometheus.CounterVec
	errors     *prometheus.CounterVec
	terminal   *prometheus.CounterVec
	panics     *prometheus.CounterVec
	duration   *prometheus.HistogramVec
	active     *prometheus.GaugeVec
	maxWorkers *prometheus.GaugeVec
}

// Result label values of controller_runtime_reconcile_total.
const (
	resultSuccess      = "success"
	resultError        = "error"
	resultRequeue      = "requeue"
	resultRequeueAfter = "requeue_after"
)

func newControllerVecs() *controllerVecs {
	ctrl := []string{"controller"}
	return &controllerVecs{
		total: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "controller_runtime_reconcile_total",
			Help: "Reconcile calls per controller and result (success, error, requeue, requeue_after)."}, []string{"controller", "result"}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "controller_runtime_reconcile_errors_total",
			Help: "Reconcile calls that returned an error or panicked."}, ctrl),
		terminal: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "controller_runtime_terminal_reconcile_errors_total",
			Help: "Reconcile calls that returned a terminal error (not retried)."}, ctrl),
		panics: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "controller_runtime_reconcile_panics_total",
			Help: "Reconcile calls that panicked."}, ctrl),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "controller_runtime_reconcile_time_seconds",
			Help: "Seconds per Reconcile call.",
			Buckets: []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0,
				1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60}}, ctrl),
		active: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "controller_runtime_active_workers",
			Help: "Workers inside Reconcile."}, ctrl),
		maxWorkers: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "controller_runtime_max_concurrent_reconciles",
			Help: "Workers the controller runs (MaxConcurrentReconciles)."}, ctrl),
	}
}

func (v *controllerVecs) collectors() []prometheus.Collector {
	return []prometheus.Collector{v.total, v.errors, v.terminal, v.panics, v.duration, v.active, v.maxWorkers}
}

// ObserveReconcile implements controller.Metrics. A panic counts as an
// error result, as in controller-runtime.
func (v *controllerVecs) ObserveReconcile(name string, outcome controller.Outcome, err error, d time.Duration) {
	result := resultSuccess
	switch outcome {
	case controller.OutcomeError, controller.OutcomePanic:
		result = resultError
		v.errors.WithLabelValues(name).Inc()
		if outcome == controller.OutcomePanic {
			v.panics.WithLabelValues(name).Inc()
		} else if controller.IsTerminal(err) {
			v.terminal.WithLabelValues(name).Inc()
		}
	case controller.OutcomeRequeue:
		result = resultRequeue
	case controller.OutcomeRequeueAfter:
		result = resultRequeueAfter
	}
	v.total.WithLabelValues(name, result).Inc()
	v.duration.WithLabelValues(name).Observe(d.Seconds())
}

// SetActiveWorkers implements controller.Metrics.
func (v *controllerVecs) SetActiveWorkers(name string, n int) {
	v.active.WithLabelValues(name).Set(float64(n))
}

// SetMaxWorkers implements controller.Metrics. It also creates every
// series of the controller at 0, so that rate() sees their first increase.
func (v *controllerVecs) SetMaxWorkers(name string, n int) {
	v.maxWorkers.WithLabelValues(name).Set(float64(n))
	for _, r := range []string{resultSuccess, resultError, resultRequeue, resultRequeueAfter} {
		v.total.WithLabelValues(name, r)
	}
	v.errors.WithLabelValues(name)
	v.terminal.WithLabelValues(name)
	v.panics.WithLabelValues(name)
	v.active.WithLabelValues(name)
}
