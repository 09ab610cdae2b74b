package workqueue

import (
	"strconv"
	"testing"
)

// TestAddYieldsOnlyWhenWorkersFallBehind checks when a producer's Add gives
// its processor to the workers: only on a move-in of the inbox that finds
// more than yieldBacklog items queued, while workers take items (a Get
// within the last yieldQuiet move-ins); never before the first Get.
func TestAddYieldsOnlyWhenWorkersFallBehind(t *testing.T) {
	q := New(Options[string]{})
	defer q.ShutDown()
	yields := 0
	q.yield = func() { yields++ }
	next := 0
	add := func(n int) {
		for range n {
			q.Add("ns/item-" + strconv.Itoa(next))
			next++
		}
	}
	work := func(n int) {
		for range n {
			item, _ := q.Get()
			q.Done(item)
		}
	}
	expect := func(want int, what string) {
		t.Helper()
		if yields != want {
			t.Fatalf("%s: %d yields, want %d (backlog %d)", what, yields, want, q.Len())
		}
	}

	// No worker yet: a backlog of any size is no reason to yield.
	add(4 * yieldBacklog)
	expect(0, "no worker has taken an item")

	// A worker took an item: from now on each move-in of a full inbox onto
	// a large backlog yields once.
	work(1)
	add(10 * inboxFlush)
	expect(10, "the backlog is large")
	// Adds that stay in the inbox move nothing in, so they do not yield.
	add(inboxFlush - 1)
	expect(10, "Adds that stayed in the inbox")
	add(1)
	expect(11, "the move-in of a full inbox")

	// The workers catch up to well under yieldBacklog queued: a full inbox
	// on top leaves the backlog at most yieldBacklog, and the producer goes
	// on without yielding.
	work(q.Len() - (yieldBacklog - 2*inboxFlush))
	add(inboxFlush)
	if n := q.Len(); n > yieldBacklog {
		t.Fatalf("backlog %d, want at most %d for this step", n, yieldBacklog)
	}
	expect(11, "a small backlog")

	// The workers stop taking items: the producer yields on the large
	// backlog for fewer than yieldQuiet move-ins, then no more.
	add((yieldQuiet + 8) * inboxFlush)
	if got := yields - 11; got == 0 || got >= yieldQuiet {
		t.Fatalf("%d yields after the last Get, want between 1 and %d", got, yieldQuiet-1)
	}
	before := yields
	add(100 * inboxFlush)
	expect(before, "long after the last Get")

	// A Get makes the workers count as taking items again.
	work(1)
	add(inboxFlush)
	expect(before+1, "the move-in after a new Get")
}
