// Package informertest is test support that needs runtime/cache itself:
// registering a handler, running an informer for the length of a test and
// waiting for informers to sync. It is apart from testutil because
// runtime/cache's in-package tests import testutil, so testutil cannot
// import runtime/cache; only external test packages (cache_test, e2e)
// import this one.
//
// It is not an API: only the project's own _test.go files import it.
package informertest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/typedinformer/typedinformer/internal/testutil"
	"github.com/typedinformer/typedinformer/runtime/cache"
)

// AddHandler registers h on inf and returns its registration, failing t
// (and stopping the test) if AddEventHandler returns an error.
func AddHandler[T cache.Object](t testing.TB, inf cache.SharedIndexInformer[T], h cache.ResourceEventHandler[T]) cache.ResourceEventHandlerRegistration {
	t.Helper()
	reg, err := inf.AddEventHandler(h)
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

// Run starts inf on its own goroutine under a child context of parent and
// returns stop, which cancels that context and waits for Run to return,
// failing t if it has not within testutil.WaitLimit. stop may be called
// more than once (later calls do nothing) and is also registered as a
// cleanup of t, so an informer never outlives its test.
func Run(t testing.TB, parent context.Context, inf cache.AnyInformer) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(parent)
	done := make(chan struct{})
	go func() {
		defer close(done)
		inf.Run(ctx)
	}()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			select {
			case <-done:
			case <-time.After(testutil.WaitLimit):
				t.Errorf("informer %s did not stop within %v", inf.Name(), testutil.WaitLimit)
			}
		})
	}
	t.Cleanup(stop)
	return stop
}

// WaitSynced waits up to limit for every syncer to sync, failing t (and
// stopping the test) with cache.WaitForSync's error: the informers that had
// not synced by then, or those that synced with errors.
func WaitSynced(t testing.TB, limit time.Duration, syncers ...cache.Syncer) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	if err := cache.WaitForSync(ctx, syncers...); err != nil {
		t.Fatalf("waiting up to %v for sync: %v", limit, err)
	}
}
