package controller

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/typedinformer/typedinformer/runtime/cache"
)

// Request names the object to reconcile. Name is set; Namespace is empty for
// cluster-scoped objects. Requests are the work queue's items.
type Request struct {
	Namespace string
	Name      string
}

// String returns the object's store key, "namespace/name" or "name".
func (r Request) String() string { return cache.NewObjectName(r.Namespace, r.Name).String() }

// RequestFor returns the Request of obj.
func RequestFor(obj interface {
	GetNamespace() string
	GetName() string
}) Request {
	return Request{Namespace: obj.GetNamespace(), Name: obj.GetName()}
}

// Result tells the controller what to do with a request that reconciled
// without error.
type Result struct {
	// Requeue retries the request after the rate limiter's delay. Ignored
	// when RequeueAfter is set.
	Requeue bool
	// RequeueAfter retries the request once after this delay, and resets its
	// backoff.
	RequeueAfter time.Duration
}

// IsZero reports whether r asks for nothing.
func (r Result) IsZero() bool { return r == Result{} }

// Reconciler brings the world in line with the object a Request names. It
// is called with at most one Request of the same key at a time, by up to
// Options.MaxConcurrentReconciles goroutines. ctx carries a logger with the
// controller's name and the request, and is cancelled when the controller
// stops.
type Reconciler interface {
	// Reconcile handles one request; see Result and TerminalError for what
	// its return values make the controller do.
	Reconcile(ctx context.Context, req Request) (Result, error)
}

// ReconcilerFunc adapts a function to a Reconciler.
type ReconcilerFunc func(ctx context.Context, req Request) (Result, error)

// Reconcile calls f.
func (f ReconcilerFunc) Reconcile(ctx context.Context, req Request) (Result, error) {
	return f(ctx, req)
}

// terminalError marks an error that retrying will not fix.
type terminalError struct{ err error }

func (e *terminalError) Error() string { return "terminal error: " + e.err.Error() }
func (e *terminalError) Unwrap() error { return e.err }

// Is makes errors.Is(err, TerminalError(nil)) true for every terminal
// error.
func (e *terminalError) Is(target error) bool {
	_, ok := target.(*terminalError)
	return ok
}

// TerminalError wraps err so that the controller does not retry the request:
// it logs the error, counts it, and forgets the request's backoff. err may
// be wrapped further; IsTerminal still sees it.
func TerminalError(err error) error {
	if err == nil {
		err = errors.New("nil terminal error")
	}
	return &terminalError{err: err}
}

// IsTerminal reports whether err is, or wraps, a TerminalError.
func IsTerminal(err error) bool {
	var t *terminalError
	return errors.As(err, &t)
}

// panicError is the error a recovered panic becomes.
type panicError struct {
	value any
}

func (e *panicError) Error() string { return fmt.Sprintf("panic: %v [recovered]", e.value) }
