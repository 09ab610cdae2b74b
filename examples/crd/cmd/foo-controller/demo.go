package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	kubefake "k8s.io/client-go/kubernetes/fake"

	"github.com/typedinformer/typedinformer/clientgo"
	"github.com/typedinformer/typedinformer/examples/crd/pkg/controller"
	"github.com/typedinformer/typedinformer/examples/crd/pkg/fakecluster"
	samplesfake "github.com/typedinformer/typedinformer/examples/crd/pkg/generated/clientset/versioned/fake"
	"github.com/typedinformer/typedinformer/runtime/cache"
	runtimecontroller "github.com/typedinformer/typedinformer/runtime/controller"
	"github.com/typedinformer/typedinformer/runtime/informers"
)

// runDemo runs the scripted demo on an embedded fake cluster, printing to
// stdout.
func runDemo(ctx context.Context, workers int) error {
	return demo(ctx, os.Stdout, workers)
}

// lockedWriter serialises whole writes: informer handlers, workers and the
// script print from different goroutines.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// demo runs the controller on fake clientsets and a script of changes,
// printing each step's header, then the informer events and reconciles the
// step caused (the script waits for them to settle before the next step),
// then a summary.
func demo(ctx context.Context, w io.Writer, workers int) error {
	start := time.Now()
	out := &lockedWriter{w: w}
	kube := kubefake.NewClientset()
	samples := samplesfake.NewSimpleClientset()
	fakecluster.Simulate(kube, samples)
	// The controller reads its own writes back from its listers: the
	// tracker learns every write the fakes answer, and the informers wait
	// for their stores to hold it.
	writes := cache.NewWriteTracker(cache.WriteTrackerOptions{})
	clientgo.TrackFakeWrites(&kube.Fake, writes)
	clientgo.TrackFakeWrites(&samples.Fake, writes)
	activity := &demoActivity{workersStarted: make(chan struct{})}
	inf := controller.NewInformers(kube, samples, 0, informers.WithInformerMetrics(activity), informers.WithWriteTracker(writes))
	printEvents(out, inf)

	var (
		linesMu sync.Mutex
		lines   []string
		// retrying holds the requests whose last reconcile failed with an
		// error the controller retries (after a backoff, invisible to the
		// queue's Len meanwhile).
		retrying = map[runtimecontroller.Request]bool{}
	)
	observe := func(req runtimecontroller.Request, outcome controller.Outcome, err error) {
		line := fmt.Sprintf("reconcile %-12s -> %s", req, outcome)
		if err != nil {
			line = fmt.Sprintf("reconcile %-12s -> error: %v", req, err)
		}
		linesMu.Lock()
		lines = append(lines, line)
		if err != nil && !errors.Is(err, controller.ErrConflict) {
			retrying[req] = true
		} else {
			delete(retrying, req)
		}
		linesMu.Unlock()
		fmt.Fprintln(out, line)
	}
	noRetries := func() bool {
		linesMu.Lock()
		defer linesMu.Unlock()
		return len(retrying) == 0
	}
	reconciled := func() []string {
		linesMu.Lock()
		defer linesMu.Unlock()
		return lines[:len(lines):len(lines)]
	}
	opts := runtimecontroller.Options{MaxConcurrentReconciles: workers, Metrics: activity}
	c, err := controller.New(controller.NewReconciler(kube, samples, inf), inf, opts, observe)
	if err != nil {
		return err
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	inf.Start(ctx)
	defer inf.Shutdown()
	done := make(chan error, 1)
	go func() { done <- c.Start(ctx) }()
	select {
	case <-activity.workersStarted:
	case err := <-done:
		return fmt.Errorf("controller stopped before its workers started: %w", err)
	}

	s := &script{ctx: ctx, kube: kube, samples: samples, out: out, reconciled: reconciled,
		settled: func() bool {
			return activity.idle() && c.Queue().Len() == 0 && noRetries() && caughtUp(ctx, kube, samples, inf)
		}}
	runErr := s.run()
	cancel()
	if err := <-done; err != nil {
		return err
	}
	if runErr != nil {
		return runErr
	}
	reconciles, failed := activity.totals()
	fmt.Fprintf(out, "== demo: done: %d steps, %d reconciles (%d errors) in %v\n",
		s.steps, reconciles, failed, time.Since(start).Round(time.Millisecond))
	return nil
}
