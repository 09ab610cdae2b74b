package testutil

import (
	"sync"
	"testing"
)

// EverFalse evaluates cond over and over on a goroutine of its own until
// the returned function is called, which stops the sampling and reports
// whether cond was ever false. It may be called more than once (later calls
// return the same answer) and is also called when t ends. cond must be safe
// to call concurrently with the code under test; a brief false between two
// samples can be missed, so a false result is evidence, not proof.
func EverFalse(t testing.TB, cond func() bool) (stop func() bool) {
	quit := make(chan struct{})
	done := make(chan bool)
	go func() {
		flipped := false
		for {
			select {
			case <-quit:
				done <- flipped
				return
			default:
			}
			if !cond() {
				flipped = true
			}
		}
	}()
	var once sync.Once
	var res bool
	stop = func() bool {
		once.Do(func() {
			close(quit)
			res = <-done
		})
		return res
	}
	t.Cleanup(func() { stop() })
	return stop
}
