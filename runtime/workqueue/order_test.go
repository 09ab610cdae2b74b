package workqueue

import (
	"slices"
	"strconv"
	"testing"
	"time"
)

// TestQueueKeepsOrderAndCollapsesRepeatedAdds adds items each twice in a row
// and every tenth again later while it is still queued: the queue must hold
// each item once, in the order of its first Add, across the sizes where its
// slot table and rings grow.
func TestQueueKeepsOrderAndCollapsesRepeatedAdds(t *testing.T) {
	for _, n := range []int{1, 63, 64, 65, 323, 5000} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			q := NewTypedWithConfig(TypedQueueConfig[string]{})
			defer q.ShutDown()
			var want []string
			for i := range n {
				k := "ns/item-" + strconv.Itoa(i)
				want = append(want, k)
				q.Add(k)
				q.Add(k)
				if i >= 10 && i%10 == 0 {
					q.Add(want[i-10])
				}
			}
			if got := q.Len(); got != n {
				t.Fatalf("Len = %d, want %d", got, n)
			}
			if got := getN(t, q, n); !slices.Equal(got, want) {
				t.Fatalf("items came out in another order or were lost: got %d items, first differing at %d", len(got), firstDiff(got, want))
			}
			if got := q.Len(); got != 0 {
				t.Fatalf("Len = %d after draining", got)
			}
		})
	}
}

func firstDiff(a, b []string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestQueueAddBeforeDoneRequeuesBehindLaterAdds checks that a worker's own
// Add of the item it processes is held until its Done: the item is then
// queued again once, behind an item added after it.
func TestQueueAddBeforeDoneRequeuesBehindLaterAdds(t *testing.T) {
	q := NewTypedWithConfig(TypedQueueConfig[string]{})
	defer q.ShutDown()
	q.Add("a")
	item, _ := q.Get()
	q.Add("a") // held: "a" is processing
	q.Add("b")
	q.Done(item)
	if got := q.Len(); got != 2 {
		t.Fatalf("Len = %d, want 2 (b, then a again)", got)
	}
	if got := getN(t, q, 2); !slices.Equal(got, []string{"b", "a"}) {
		t.Fatalf("got %v, want [b a]", got)
	}
}

// TestQueueAddWakesBlockedGet passes items one at a time to workers that
// block in Get between them: every Add must reach a waiting worker.
func TestQueueAddWakesBlockedGet(t *testing.T) {
	for _, workers := range []int{1, 3} {
		t.Run(strconv.Itoa(workers), func(t *testing.T) {
			q := NewTypedWithConfig(TypedQueueConfig[string]{})
			got := make(chan string)
			wg := startWorkers(q, workers, func(item string) {
				q.Done(item)
				got <- item
			})
			for i := range 2000 {
				want := "ns/item-" + strconv.Itoa(i)
				q.Add(want)
				select {
				case item := <-got:
					if item != want {
						t.Fatalf("round %d: worker got %q, want %q", i, item, want)
					}
				case <-time.After(10 * time.Second):
					t.Fatalf("round %d: %q was added but no waiting worker got it", i, want)
				}
			}
			q.ShutDown()
			wg.Wait()
		})
	}
}

// TestQueueShutDownHandsOutQueuedItems checks that items queued when the
// queue shuts down are still handed out, and that Adds after ShutDown are
// dropped.
func TestQueueShutDownHandsOutQueuedItems(t *testing.T) {
	q := NewTypedWithConfig(TypedQueueConfig[string]{})
	q.Add("a")
	q.Add("b")
	q.ShutDown()
	q.Add("c")
	if got := q.Len(); got != 2 {
		t.Fatalf("Len = %d after ShutDown, want 2", got)
	}
	for _, want := range []string{"a", "b"} {
		item, shutdown := q.Get()
		if shutdown || item != want {
			t.Fatalf("Get = %q, %v; want %q, false", item, shutdown, want)
		}
		q.Done(item)
	}
	if _, shutdown := q.Get(); !shutdown {
		t.Fatal("Get after draining a shut-down queue must report shutdown")
	}
}
