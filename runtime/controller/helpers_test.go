package controller

import (
	"context"
	"sync"
	"testing"
	"time"

	testingclock "k8s.io/utils/clock/testing"

	"github.com/typedinformer/typedinformer/internal/testutil"
	"github.com/typedinformer/typedinformer/runtime/workqueue"
)

func newFakeClock() *testingclock.FakeClock {
	return testingclock.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
}

// recorder is a Reconciler that records calls and answers from a script.
type recorder struct {
	mu      sync.Mutex
	calls   map[Request]int
	order   []Request
	answers map[Request][]answer
}

type answer struct {
	res   Result
	err   error
	panic bool
}

func newRecorder() *recorder {
	return &recorder{calls: map[Request]int{}, answers: map[Request][]answer{}}
}

// script makes the next calls for req return answers in turn, then success.
func (r *recorder) script(req Request, answers ...answer) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.answers[req] = append(r.answers[req], answers...)
}

func (r *recorder) Reconcile(_ context.Context, req Request) (Result, error) {
	r.mu.Lock()
	r.calls[req]++
	r.order = append(r.order, req)
	var a answer
	if as := r.answers[req]; len(as) > 0 {
		a, r.answers[req] = as[0], as[1:]
	}
	r.mu.Unlock()
	if a.panic {
		panic("scripted panic")
	}
	return a.res, a.err
}

func (r *recorder) count(req Request) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.calls[req]
}

// metricsRecorder keeps every observed outcome.
type metricsRecorder struct {
	mu       sync.Mutex
	outcomes []Outcome
	errs     []error
	maxW     int
	active   []int
}

func (m *metricsRecorder) ObserveReconcile(_ string, o Outcome, err error, _ time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.outcomes = append(m.outcomes, o)
	m.errs = append(m.errs, err)
}

func (m *metricsRecorder) SetActiveWorkers(_ string, n int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.active = append(m.active, n)
}

func (m *metricsRecorder) SetMaxWorkers(_ string, n int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.maxW = n
}

func (m *metricsRecorder) snapshot() ([]Outcome, []error, int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]Outcome(nil), m.outcomes...), append([]error(nil), m.errs...), m.maxW
}

// startController runs c.Start in the background; the returned func cancels
// it and returns Start's error.
func startController(t *testing.T, c *Controller) func() error {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	errCh := make(chan error, 1)
	go func() { errCh <- c.Start(ctx) }()
	var once sync.Once
	var err error
	stop := func() error {
		once.Do(func() {
			cancel()
			err = <-errCh
		})
		return err
	}
	t.Cleanup(func() { _ = stop() })
	return stop
}

// settle sends a probe request through the single worker and waits for it
// to be reconciled: anything that was already queued ahead of it has been
// reconciled too.
func settle(t *testing.T, c *Controller, rec *recorder, probe *int) {
	t.Helper()
	*probe++
	req := Request{Name: "probe", Namespace: string(rune('a' + *probe%26))}
	before := rec.count(req)
	c.Queue().Add(req)
	testutil.Eventually(t, "probe reconcile", func() bool { return rec.count(req) > before })
}

var _ workqueue.TypedRateLimiter[Request] = (*workqueue.TypedItemExponentialFailureRateLimiter[Request])(nil)
