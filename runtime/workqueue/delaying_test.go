package workqueue

import (
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	testingclock "k8s.io/utils/clock/testing"
)

func TestAddAfterFiresAtDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk, q := newClockedQueue[string](t)

		q.AddAfter("a", time.Second)
		if q.Len() != 0 || q.waitingLen() != 1 {
			t.Fatalf("Len = %d, waiting = %d; want 0 and 1", q.Len(), q.waitingLen())
		}
		synctest.Wait() // the delay goroutine waits on clk
		step(clk, 999*time.Millisecond)
		wantLen(t, q, 0, "item became ready before its deadline")
		step(clk, time.Millisecond)
		wantLen(t, q, 1, "waiting for the item to become ready")
		if q.waitingLen() != 0 {
			t.Fatalf("waiting = %d after the deadline", q.waitingLen())
		}
	})
}

func TestAddAfterEarlierDeadlineWins(t *testing.T) {
	tests := []struct {
		name    string
		delays  []time.Duration
		readyAt time.Duration
	}{
		{"earlier second add", []time.Duration{10 * time.Second, 2 * time.Second}, 2 * time.Second},
		{"later second add does not postpone", []time.Duration{2 * time.Second, 10 * time.Second}, 2 * time.Second},
		{"three adds", []time.Duration{5 * time.Second, 3 * time.Second, 4 * time.Second}, 3 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				clk, q := newClockedQueue[string](t)
				for _, d := range tt.delays {
					q.AddAfter("a", d)
				}
				if q.waitingLen() != 1 {
					t.Fatalf("waiting = %d, want one entry per item", q.waitingLen())
				}
				synctest.Wait() // the delay goroutine waits on clk
				step(clk, tt.readyAt-time.Millisecond)
				wantLen(t, q, 0, "ready too early")
				step(clk, time.Millisecond)
				wantLen(t, q, 1, "waiting for ready")
				getN(t, q, 1)
				// The later deadlines were merged away: nothing fires again.
				step(clk, time.Hour)
				if q.waitingLen() != 0 || q.Len() != 0 {
					t.Fatalf("waiting = %d, Len = %d after the merged deadline", q.waitingLen(), q.Len())
				}
			})
		})
	}
}

func TestAddAfterOrdersByDeadlineWithOneTimer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk, q := newClockedQueue[int](t)
		// Added in scrambled order; must come out by deadline.
		for _, i := range []int{5, 1, 9, 3, 7, 2, 8, 4, 6, 0} {
			q.AddAfter(i, time.Duration(i+1)*time.Second)
		}
		synctest.Wait() // the delay goroutine waits on clk
		if n := clk.Waiters(); n != 1 {
			t.Fatalf("%d timers for 10 delayed items, want 1 (one goroutine, one timer)", n)
		}
		var got []int
		for want := range 10 {
			synctest.Wait() // the delay goroutine waits on clk
			step(clk, time.Second)
			wantLen(t, q, 1, "waiting for next item")
			item, _ := q.Get()
			q.Done(item)
			if item != want {
				t.Fatalf("item %d came out at step %d", item, want)
			}
			got = append(got, item)
		}
		if len(got) != 10 {
			t.Fatalf("got %v", got)
		}
	})
}

func TestAddAfterNonPositiveIsImmediate(t *testing.T) {
	for _, d := range []time.Duration{0, -time.Second} {
		q := NewTypedWithConfig(TypedQueueConfig[string]{Clock: newFakeClock()})
		q.AddAfter("a", d)
		wantLen(t, q, 1, fmt.Sprintf("AddAfter(%v)", d))
		q.ShutDown()
	}
}

func TestAddAfterDroppedOnShutDown(t *testing.T) {
	clk := newFakeClock()
	q := NewTypedWithConfig(TypedQueueConfig[string]{Clock: clk})
	q.AddAfter("a", time.Second)
	waitArmed(t, q, clk)
	q.ShutDown() // waits for the delay goroutine to end
	if clk.HasWaiters() {
		t.Fatal("the delay goroutine left its timer behind")
	}
	clk.Step(time.Hour)
	q.AddAfter("b", time.Second)
	if _, shutdown := q.Get(); !shutdown {
		t.Fatal("a delayed item was handed out after ShutDown")
	}
}

func TestAddAfterEarlierItemWakesLoop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk, q := newClockedQueue[string](t)
		q.AddAfter("late", time.Hour)
		synctest.Wait() // the delay goroutine waits on clk
		q.AddAfter("soon", time.Second)
		// The loop must re-arm its timer for the new earliest deadline.
		synctest.Wait() // the delay goroutine waits on clk
		wantLen(t, q, 0, "an item became ready before its deadline")
		step(clk, time.Second)
		wantLen(t, q, 1, "waiting for soon ready")
		if got, _ := q.Get(); got != "soon" {
			t.Fatalf("got %q", got)
		}
	})
}

// step advances clk by d inside a synctest bubble and waits until every
// goroutine of the bubble (the queue's delay goroutine) has reacted.
func step(clk *testingclock.FakeClock, d time.Duration) {
	clk.Step(d)
	synctest.Wait()
}

// newClockedQueue returns a queue on a new fake clock, shut down when t
// ends (inside the synctest bubble t belongs to, if any).
func newClockedQueue[T comparable](t *testing.T) (*testingclock.FakeClock, *Typed[T]) {
	clk := newFakeClock()
	q := NewTypedWithConfig(TypedQueueConfig[T]{Clock: clk})
	t.Cleanup(q.ShutDown)
	return clk, q
}
