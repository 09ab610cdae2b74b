// Package parallel holds the bounded worker pool the generator's parse and
// render stages share.
package parallel

import (
	"context"
	"sync"
)

// ForEach calls fn for every index in [0, n) on up to workers
// goroutines, each with its own state from newState (a FileSet, a buffer: no
// sharing, no locks). It stops handing out work when ctx ends and returns
// ctx's error then; otherwise fn's errors by index, for the caller to pick
// from in an order that does not depend on scheduling.
func ForEach[S any](ctx context.Context, n, workers int, newState func() S, fn func(state S, i int) error) ([]error, error) {
	errs := make([]error, n)
	workers = max(1, min(workers, n))
	next := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			state := newState()
			for i := range next {
				errs[i] = fn(state, i)
			}
		})
	}
feed:
	for i := range n {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	return errs, ctx.Err()
}
