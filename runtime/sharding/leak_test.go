package sharding

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"k8s.io/klog/v2/ktesting"

	"github.com/typedinformer/typedinformer/runtime/sharding/shardingtest"
)

// packageGoroutines returns the stack of every goroutine other than the
// caller, in the caller's synctest bubble (outside one: in none),
// that is running code of this package's non-test files. Test helpers and
// the test's own goroutines do not count; a Ring's goroutines do, whatever
// the Drainer or LeaseClient they are blocked in.
func packageGoroutines() []string {
	buf := make([]byte, 1<<16)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	_, self, _, _ := runtime.Caller(0)
	dir := filepath.Dir(self) + "/"
	stacks := strings.Split(string(buf), "\n\n")
	// The first stack is the caller's: its header names its bubble.
	bubble := bubbleOf(stacks[0])
	var out []string
	for _, st := range stacks[1:] {
		if bubbleOf(st) != bubble {
			continue
		}
		for _, line := range strings.Split(st, "\n") {
			file, _, ok := strings.Cut(strings.TrimSpace(line), ":")
			if ok && strings.HasPrefix(file, dir) && !strings.Contains(file[len(dir):], "/") && !strings.HasSuffix(file, "_test.go") {
				out = append(out, st)
				break
			}
		}
	}
	return out
}

// bubbleOf returns the synctest bubble named in the header of a
// goroutine's stack ("goroutine 7 [select, synctest bubble 1]:"), or "".
func bubbleOf(stack string) string {
	header, _, _ := strings.Cut(stack, "\n")
	_, id, ok := strings.Cut(header, "synctest bubble ")
	if !ok {
		return ""
	}
	id, _, _ = strings.Cut(id, "]")
	id, _, _ = strings.Cut(id, ",")
	return id
}

// stuckDrainer models a controller whose reconciles ignore cancellation:
// every Drain blocks until its context ends.
type stuckDrainer struct {
	abandoning chan struct{} // receives once per abandoning Drain
}

func (d *stuckDrainer) Drain(ctx context.Context, _ []Range, abandon bool) error {
	if abandon {
		select {
		case d.abandoning <- struct{}{}:
		default:
		}
	}
	<-ctx.Done()
	return ctx.Err()
}

// TestRingRunLeavesNoGoroutine runs a Ring until it fences itself (its
// renewals fail past the deadline) while the Drainer told to abandon is
// still busy, then stops it, and checks that no goroutine running the
// package's code is left once Run has returned: everything Run started,
// including the abandoning drain, must be owned and waited for by Run.
func TestRingRunLeavesNoGoroutine(t *testing.T) {
	for _, keep := range []bool{true, false} {
		t.Run(fmt.Sprintf("KeepLeaseOnStop=%v", keep), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				logger := ktesting.NewLogger(t, ktesting.NewConfig())
				store := shardingtest.NewLeases()
				cut := make(chan struct{})
				store.Fail = func(verb, _ string) error {
					select {
					case <-cut:
						return errors.New("partitioned")
					default:
						return nil
					}
				}
				r, err := NewRing(RingConfig{Name: "ring", Identity: "a", Field: FieldUID, Leases: store,
					LeaseDuration: 10 * time.Second, RenewPeriod: 50 * time.Millisecond, SafetyMargin: 200 * time.Millisecond,
					VNodes: 16, KeepLeaseOnStop: keep, Logger: &logger})
				if err != nil {
					t.Fatal(err)
				}
				d := &stuckDrainer{abandoning: make(chan struct{}, 1)}
				r.AddDrainer(d)
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				done := make(chan error, 1)
				go func() { done <- r.Run(ctx) }()
				time.Sleep(time.Second)
				synctest.Wait()
				if h := r.Held().Ranges(); len(h) != 1 || h[0] != Full() {
					t.Fatalf("alone, the ring holds %v; want the whole space", h)
				}
				close(cut)
				<-d.abandoning // fenced: the abandoning drain is running
				if h := r.Held().Ranges(); len(h) != 0 {
					t.Fatalf("fenced, the ring still holds %v", h)
				}
				cancel()
				if err := <-done; err != nil {
					t.Fatal(err)
				}
				synctest.Wait()
				if left := packageGoroutines(); len(left) > 0 {
					t.Errorf("%d goroutine(s) running the package's code outlived Run:\n\n%s", len(left), strings.Join(left, "\n\n"))
					// Let leftovers that wait on the fake clock finish, so
					// that the bubble reports only the failure above.
					time.Sleep(10 * time.Minute)
				}
			})
		})
	}
}
