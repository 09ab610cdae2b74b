package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// poll calls check every 50ms until it returns nil, ctx ends or timeout
// passes; then it returns check's last error.
func poll(ctx context.Context, timeout time.Duration, check func() error) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	t := time.NewTicker(50 * time.Millisecond)
	defer t.Stop()
	for {
		err := check()
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("after %v: %w", timeout, err)
		case <-t.C:
		}
	}
}

// eventually fails t unless check returns nil within timeout.
func eventually(t testing.TB, timeout time.Duration, what string, check func() error) {
	t.Helper()
	if err := poll(context.Background(), timeout, check); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}
