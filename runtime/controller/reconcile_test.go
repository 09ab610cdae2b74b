package controller

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/typedinformer/typedinformer/internal/testutil"
	"github.com/typedinformer/typedinformer/runtime/workqueue"
)

// TestReconcileOutcomes checks what each outcome does to the request: a
// retry after the rate limiter's delay (1s, from a limiter starting at 1s),
// a retry after RequeueAfter, or nothing.
func TestReconcileOutcomes(t *testing.T) {
	boom := errors.New("boom")
	tests := []struct {
		name         string
		first        answer
		outcome      Outcome
		retryAfter   time.Duration // 0: never retried
		numRequeues  int           // after the first call
		wantTerminal bool
	}{
		{"success forgets", answer{}, OutcomeSuccess, 0, 0, false},
		{"error is rate limited", answer{err: boom}, OutcomeError, time.Second, 1, false},
		{"terminal error is not retried", answer{err: TerminalError(boom)}, OutcomeError, 0, 0, true},
		{"wrapped terminal error is not retried", answer{err: errors.Join(errors.New("ctx"), TerminalError(boom))}, OutcomeError, 0, 0, true},
		{"requeue is rate limited", answer{res: Result{Requeue: true}}, OutcomeRequeue, time.Second, 1, false},
		{"requeue after forgets and waits", answer{res: Result{RequeueAfter: 30 * time.Second}}, OutcomeRequeueAfter, 30 * time.Second, 0, false},
		{"requeue after wins over requeue", answer{res: Result{Requeue: true, RequeueAfter: 5 * time.Second}}, OutcomeRequeueAfter, 5 * time.Second, 0, false},
		{"error wins over result", answer{res: Result{RequeueAfter: time.Hour}, err: boom}, OutcomeError, time.Second, 1, false},
		{"panic is recovered and retried", answer{panic: true}, OutcomePanic, time.Second, 1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := newFakeClock()
			rec := newRecorder()
			met := &metricsRecorder{}
			limiter := workqueue.NewTypedItemExponentialFailureRateLimiter[Request](time.Second, time.Hour)
			c, err := New("test", rec, Options{Clock: clk, RateLimiter: limiter, Metrics: met})
			if err != nil {
				t.Fatal(err)
			}
			startController(t, c)
			req := Request{Namespace: "ns", Name: "obj"}
			// Prime the limiter so that a Forget is visible.
			limiter.When(req)
			limiter.When(req)
			limiter.Forget(req)
			rec.script(req, tt.first)
			c.Queue().Add(req)
			testutil.Eventually(t, "first reconcile", func() bool {
				outs, _, _ := met.snapshot()
				return len(outs) == 1
			})
			outs, errs, _ := met.snapshot()
			if outs[0] != tt.outcome {
				t.Fatalf("outcome %q, want %q", outs[0], tt.outcome)
			}
			if got := IsTerminal(errs[0]); got != tt.wantTerminal {
				t.Fatalf("IsTerminal(%v) = %v, want %v", errs[0], got, tt.wantTerminal)
			}
			if n := c.Queue().NumRequeues(req); n != tt.numRequeues {
				t.Fatalf("NumRequeues = %d, want %d", n, tt.numRequeues)
			}
			probe := 0
			if tt.retryAfter == 0 {
				clk.Step(24 * time.Hour)
				settle(t, c, rec, &probe)
				if n := rec.count(req); n != 1 {
					t.Fatalf("reconciled %d times, want once", n)
				}
				return
			}
			testutil.Eventually(t, "retry timer", clk.HasWaiters)
			clk.Step(tt.retryAfter - time.Millisecond)
			settle(t, c, rec, &probe)
			if n := rec.count(req); n != 1 {
				t.Fatalf("retried before %v", tt.retryAfter)
			}
			clk.Step(time.Millisecond)
			testutil.Eventually(t, "retry", func() bool { return rec.count(req) == 2 })
			// The retry succeeded: nothing else comes back.
			clk.Step(24 * time.Hour)
			settle(t, c, rec, &probe)
			if n := rec.count(req); n != 2 {
				t.Fatalf("reconciled %d times, want 2", n)
			}
		})
	}
}

func TestReconcilePanicNotRecoveredWhenDisabledIsRespected(t *testing.T) {
	off := false
	c, err := New("test", ReconcilerFunc(func(context.Context, Request) (Result, error) { panic("x") }), Options{RecoverPanic: &off})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("panic was recovered with RecoverPanic=false")
		}
	}()
	c.reconcile(context.Background(), Request{Name: "a"})
}

func TestNewValidates(t *testing.T) {
	if _, err := New("", newRecorder(), Options{}); err == nil {
		t.Fatal("empty name accepted")
	}
	if _, err := New("x", nil, Options{}); err == nil {
		t.Fatal("nil reconciler accepted")
	}
	c, err := New("x", newRecorder(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if c.opts.MaxConcurrentReconciles != 1 || c.opts.CacheSyncTimeout != 2*time.Minute || !c.recover || !c.lowInitial {
		t.Fatalf("defaults not applied: %+v recover=%v", c.opts, c.recover)
	}
}

func TestSameKeyNeverConcurrent(t *testing.T) {
	var (
		mu       sync.Mutex
		inFlight = map[Request]bool{}
		overlap  atomic.Int32
		total    atomic.Int32
	)
	release := make(chan struct{})
	r := ReconcilerFunc(func(_ context.Context, req Request) (Result, error) {
		mu.Lock()
		if inFlight[req] {
			overlap.Add(1)
		}
		inFlight[req] = true
		mu.Unlock()
		<-release
		mu.Lock()
		inFlight[req] = false
		mu.Unlock()
		total.Add(1)
		return Result{}, nil
	})
	met := &metricsRecorder{}
	c, err := New("test", r, Options{MaxConcurrentReconciles: 4, Metrics: met})
	if err != nil {
		t.Fatal(err)
	}
	stop := startController(t, c)
	// Registered after startController, so that a failing test releases the
	// reconciles before its cleanup waits for them.
	releaseAll := sync.OnceFunc(func() { close(release) })
	t.Cleanup(releaseAll)
	keys := []Request{{Name: "a"}, {Name: "b"}}
	for _, k := range keys {
		c.Queue().Add(k)
	}
	// Both keys are in Reconcile; adding them again must not start a second
	// reconcile of either while the first runs.
	testutil.Eventually(t, "two reconciles in flight", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return inFlight[keys[0]] && inFlight[keys[1]]
	})
	for range 10 {
		for _, k := range keys {
			c.Queue().Add(k)
		}
	}
	releaseAll()
	testutil.Eventually(t, "re-adds reconciled", func() bool { return total.Load() == 4 })
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if overlap.Load() != 0 {
		t.Fatalf("%d overlapping reconciles of one key", overlap.Load())
	}
	if _, _, maxW := met.snapshot(); maxW != 4 {
		t.Fatalf("max workers metric = %d", maxW)
	}
}

func TestGateHoldsWorkers(t *testing.T) {
	gate := make(chan struct{})
	rec := newRecorder()
	met := &metricsRecorder{}
	c, err := New("test", rec, Options{Gate: gate, Metrics: met})
	if err != nil {
		t.Fatal(err)
	}
	startController(t, c)
	req := Request{Name: "a"}
	c.Queue().Add(req)
	if _, _, maxW := met.snapshot(); maxW != 0 || rec.count(req) != 0 {
		t.Fatal("workers ran before the gate opened")
	}
	if c.Queue().Len() != 1 {
		t.Fatalf("Len = %d; the request must wait in the queue", c.Queue().Len())
	}
	close(gate)
	testutil.Eventually(t, "reconcile after the gate", func() bool { return rec.count(req) == 1 })
}

func TestStartTwiceFails(t *testing.T) {
	c, _ := New("test", newRecorder(), Options{})
	startController(t, c)
	testutil.Eventually(t, "started", func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		return c.started
	})
	if err := c.Start(context.Background()); err == nil {
		t.Fatal("second Start succeeded")
	}
}

func TestStopDrainsInFlightAndDropsQueued(t *testing.T) {
	entered := make(chan struct{})
	release := make(chan struct{})
	var calls atomic.Int32
	r := ReconcilerFunc(func(ctx context.Context, req Request) (Result, error) {
		if calls.Add(1) == 1 {
			close(entered)
			<-release
		}
		return Result{}, nil
	})
	c, _ := New("test", r, Options{})
	stop := startController(t, c)
	// Registered after startController, so that a failing test releases the
	// reconcile before its cleanup waits for it.
	releaseAll := sync.OnceFunc(func() { close(release) })
	t.Cleanup(releaseAll)
	c.Queue().Add(Request{Name: "a"})
	<-entered
	c.Queue().Add(Request{Name: "b"})
	done := make(chan error, 1)
	go func() { done <- stop() }()
	testutil.Eventually(t, "queue shutting down", c.Queue().ShuttingDown)
	select {
	case <-done:
		t.Fatal("Start returned with a reconcile in flight")
	default:
	}
	releaseAll()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n := calls.Load(); n != 1 {
		t.Fatalf("%d reconciles; the request queued at stop must be dropped", n)
	}
}
