package workqueue

import (
	"strconv"
	"testing"
	"time"
)

// TestInboxKeepsOrderAndCollapsesAcrossFlushes adds enough items to fill
// the inbox several times, each one twice in a row and every tenth again
// later while it is still queued: the queue must hold each item once, in
// the order of its first Add, whichever side moved it in.
func TestInboxKeepsOrderAndCollapsesAcrossFlushes(t *testing.T) {
	for _, n := range []int{1, inboxFlush - 1, inboxFlush, inboxFlush + 1, 5*inboxFlush + 3} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			q := New(Options[string]{})
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
			if got := getN(t, q, n); !equal(got, want) {
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

// TestInboxAddBeforeDoneRequeuesBehindLaterAdds checks that a worker's own
// Add of the item it processes is seen by its Done even while the Add waits
// in the inbox: the item is queued again once, behind an item added after
// it, as if the Adds had gone straight into the queue.
func TestInboxAddBeforeDoneRequeuesBehindLaterAdds(t *testing.T) {
	q := New(Options[string]{})
	defer q.ShutDown()
	q.Add("a")
	item, _ := q.Get()
	q.Add("a") // pending in the inbox: nobody waits and it is not full
	q.Add("b")
	q.Done(item)
	if got := q.Len(); got != 2 {
		t.Fatalf("Len = %d, want 2 (b, then a again)", got)
	}
	if got := getN(t, q, 2); !equal(got, []string{"b", "a"}) {
		t.Fatalf("got %v, want [b a]", got)
	}
}

// TestInboxAddWakesBlockedGet passes items one at a time to workers that
// block in Get between them: every Add must reach a waiting worker even
// though nothing else takes the queue mutex.
func TestInboxAddWakesBlockedGet(t *testing.T) {
	for _, workers := range []int{1, 3} {
		t.Run(strconv.Itoa(workers), func(t *testing.T) {
			q := New(Options[string]{})
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

// TestInboxShutDown checks that items waiting in the inbox when the queue
// shuts down are still handed out, and that Adds after ShutDown are dropped.
func TestInboxShutDown(t *testing.T) {
	q := New(Options[string]{})
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
