package workqueue

import (
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/typedinformer/typedinformer/internal/testutil"
)

func TestPriorityOrder(t *testing.T) {
	type add struct {
		item string
		prio int
	}
	tests := []struct {
		name    string
		noPrio  bool
		adds    []add
		want    []string
		wantPri []int
	}{
		{
			name:    "initial list behind live events",
			adds:    []add{{"list-1", PriorityLow}, {"list-2", PriorityLow}, {"live-1", PriorityDefault}, {"list-3", PriorityLow}, {"live-2", PriorityDefault}},
			want:    []string{"live-1", "live-2", "list-1", "list-2", "list-3"},
			wantPri: []int{0, 0, PriorityLow, PriorityLow, PriorityLow},
		},
		{
			name:    "re-add at higher priority moves the item up",
			adds:    []add{{"a", PriorityLow}, {"b", PriorityLow}, {"c", PriorityDefault}, {"b", PriorityDefault}},
			want:    []string{"c", "b", "a"},
			wantPri: []int{0, 0, PriorityLow},
		},
		{
			name:    "re-add at lower priority keeps the higher",
			adds:    []add{{"a", PriorityDefault}, {"b", PriorityDefault}, {"a", PriorityLow}},
			want:    []string{"a", "b"},
			wantPri: []int{0, 0},
		},
		{
			name:    "three levels",
			adds:    []add{{"low", -5}, {"mid", 0}, {"high", 7}, {"low2", -5}, {"high2", 7}},
			want:    []string{"high", "high2", "mid", "low", "low2"},
			wantPri: []int{7, 7, 0, -5, -5},
		},
		{
			name:    "priorities disabled: plain FIFO",
			noPrio:  true,
			adds:    []add{{"list-1", PriorityLow}, {"live-1", PriorityDefault}, {"list-2", PriorityLow}},
			want:    []string{"list-1", "live-1", "list-2"},
			wantPri: []int{0, 0, 0},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := NewTypedWithConfig(TypedQueueConfig[string]{DisablePriority: tt.noPrio})
			defer q.ShutDown()
			for _, a := range tt.adds {
				q.AddWithOpts(AddOpts{Priority: a.prio}, a.item)
			}
			wantLen(t, q, len(tt.want), "queue length")
			var got []string
			var pris []int
			for range tt.want {
				item, p, _ := q.GetWithPriority()
				q.Done(item)
				got, pris = append(got, item), append(pris, p)
			}
			if !slices.Equal(got, tt.want) || !slices.Equal(pris, tt.wantPri) {
				t.Fatalf("got %v %v, want %v %v", got, pris, tt.want, tt.wantPri)
			}
		})
	}
}

func TestPriorityWhileProcessing(t *testing.T) {
	q := NewTypedWithConfig(TypedQueueConfig[string]{})
	defer q.ShutDown()
	q.AddWithOpts(AddOpts{Priority: PriorityLow}, "a")
	item, p, _ := q.GetWithPriority()
	if p != PriorityLow {
		t.Fatalf("priority %d", p)
	}
	q.AddWithOpts(AddOpts{Priority: PriorityLow}, "a")
	q.AddWithOpts(AddOpts{Priority: PriorityDefault}, "a") // raises the held re-add
	q.AddWithOpts(AddOpts{Priority: PriorityLow}, "b")
	q.Done(item)
	item, p, _ = q.GetWithPriority()
	if item != "a" || p != PriorityDefault {
		t.Fatalf("got %q at %d, want a re-queued at the highest priority it was added with", item, p)
	}
}

func TestAddWithOptsDelayAndRateLimit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := newFakeClock()
		q := NewTypedWithConfig(TypedQueueConfig[string]{Clock: clk, RateLimiter: NewTypedItemExponentialFailureRateLimiter[string](3*time.Second, time.Minute)})
		defer q.ShutDown()
		q.AddWithOpts(AddOpts{After: time.Second, Priority: PriorityLow}, "after", "after2")
		q.AddWithOpts(AddOpts{RateLimited: true, After: time.Second}, "limited") // 3s from the limiter wins
		q.AddWithOpts(AddOpts{}, "now")
		if q.Len() != 1 || q.waitingLen() != 3 {
			t.Fatalf("Len = %d, waiting = %d", q.Len(), q.waitingLen())
		}
		getN(t, q, 1)
		synctest.Wait() // the delay goroutine waits on clk
		step(clk, time.Second)
		wantLen(t, q, 2, "after items")
		_, p, _ := q.GetWithPriority()
		if p != PriorityLow {
			t.Fatalf("a delayed item lost its priority: %d", p)
		}
		synctest.Wait()
		step(clk, 2*time.Second-time.Millisecond)
		wantLen(t, q, 1, "limited item ready before its 3s")
		step(clk, time.Millisecond)
		wantLen(t, q, 2, "limited item")
		if q.NumRequeues("limited") != 1 {
			t.Fatalf("NumRequeues = %d", q.NumRequeues("limited"))
		}
	})
}

// TestPriorityConcurrent checks that raising priorities while workers run
// neither loses nor duplicates items.
func TestPriorityConcurrent(t *testing.T) {
	q := NewTypedWithConfig(TypedQueueConfig[int]{})
	const n = 500
	var mu sync.Mutex
	seen := map[int]int{}
	wg := startWorkers(q, 4, func(item int) {
		mu.Lock()
		seen[item]++
		mu.Unlock()
		q.Done(item)
	})
	for i := range n {
		q.AddWithOpts(AddOpts{Priority: PriorityLow}, i)
		q.AddWithOpts(AddOpts{Priority: i % 3}, i)
	}
	testutil.Eventually(t, "all items", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(seen) == n
	})
	q.ShutDownWithDrain()
	wg.Wait()
	wantLen(t, q, 0, "after drain")
}
