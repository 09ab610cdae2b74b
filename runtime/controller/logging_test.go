package controller

import (
	"context"
	"strings"
	"testing"

	"k8s.io/klog/v2"
	"k8s.io/klog/v2/ktesting"

	"github.com/typedinformer/typedinformer/internal/testutil"
)

// loggingReconciler logs through the logger of the context it is given.
type loggingReconciler struct{}

func (loggingReconciler) Reconcile(ctx context.Context, _ Request) (Result, error) {
	klog.FromContext(ctx).Info("reconciling from the user's code")
	return Result{}, nil
}

// TestStartUsesTheContextLogger checks contextual logging: without
// Options.Logger, the controller's own lines and the logger handed to
// Reconcile come from the logger in Start's context, with the controller's
// name and the request as keys.
func TestStartUsesTheContextLogger(t *testing.T) {
	logger := ktesting.NewLogger(t, ktesting.NewConfig(ktesting.BufferLogs(true)))
	c, err := New("logcheck", loggingReconciler{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(klog.NewContext(context.Background(), logger))
	done := make(chan error, 1)
	go func() { done <- c.Start(ctx) }()
	c.Queue().Add(Request{Namespace: "ns", Name: "a"})
	buf := logger.GetSink().(ktesting.Underlier).GetBuffer()
	testutil.Eventually(t, "the reconciler's log line", func() bool {
		return strings.Contains(buf.String(), "reconciling from the user's code")
	})
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{
		`Starting workers controller="logcheck"`,
		`reconciling from the user's code controller="logcheck" request="ns/a"`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the context's logger did not get %s; it got:\n%s", want, out)
		}
	}
}
