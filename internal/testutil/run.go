package testutil

import (
	"context"
	"testing"
)

// Factory is a set of informers that starts and shuts down, such as a
// generated SharedInformerFactory.
type Factory interface {
	// Start starts the informers; they run until ctx is done.
	Start(ctx context.Context)
	// Shutdown waits for the informers to stop.
	Shutdown()
}

// Runner runs until its context is done, such as a controller.
type Runner interface {
	// Start runs until ctx is done and returns nil, or returns an error.
	Start(ctx context.Context) error
}

// RunController starts inf, then runs c on its own goroutine. When t ends
// it cancels both, waits for c to return, failing t on c's error, and then
// shuts inf down.
func RunController(t testing.TB, inf Factory, c Runner) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	inf.Start(ctx)
	go func() { done <- c.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("controller: %v", err)
		}
		inf.Shutdown()
	})
}
