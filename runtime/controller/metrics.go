package controller

import "time"

// Outcome classifies one Reconcile call for metrics.
type Outcome string

// Outcomes, as metric label values.
const (
	OutcomeSuccess      Outcome = "success"
	OutcomeError        Outcome = "error"
	OutcomeRequeue      Outcome = "requeue"
	OutcomeRequeueAfter Outcome = "requeue_after"
	OutcomePanic        Outcome = "panic"
)

// Metrics receives a controller's metrics. Implementations must be safe for
// concurrent use; they are called from the workers.
type Metrics interface {
	// ObserveReconcile is called after every Reconcile with its outcome,
	// its error (nil unless the outcome is OutcomeError or OutcomePanic;
	// IsTerminal tells terminal errors apart) and how long it took.
	ObserveReconcile(controller string, outcome Outcome, err error, duration time.Duration)
	// SetActiveWorkers is called with the number of workers inside
	// Reconcile, each time it changes.
	SetActiveWorkers(controller string, n int)
	// SetMaxWorkers is called once, when the workers start, with
	// MaxConcurrentReconciles.
	SetMaxWorkers(controller string, n int)
}

// noMetrics is the default Metrics.
type noMetrics struct{}

func (noMetrics) ObserveReconcile(string, Outcome, error, time.Duration) {}
func (noMetrics) SetActiveWorkers(string, int)                           {}
func (noMetrics) SetMaxWorkers(string, int)                              {}
