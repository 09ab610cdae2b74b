package workqueue

import (
	"math/rand/v2"
	"testing"
)

// TestSlotTableMatchesMap drives the slot table with random inserts and removes over
// hashes chosen to collide (few distinct low bits, so runs are long and wrap
// around the table) and checks every lookup against a plain map.
func TestSlotTableMatchesMap(t *testing.T) {
	for _, tc := range []struct {
		name    string
		hashes  uint32 // hashes are drawn from [0, hashes) * stride
		stride  uint32
		ops     int
		maxLive int
	}{
		{name: "distinct", hashes: 1 << 30, stride: 1, ops: 20000, maxLive: 3000},
		{name: "same home cell", hashes: 1, stride: 1, ops: 2000, maxLive: 40},
		{name: "few homes", hashes: 8, stride: 1 << 20, ops: 20000, maxLive: 200},
		{name: "wrap at table end", hashes: 4, stride: 63, ops: 20000, maxLive: 50},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, 2))
			var x slotTable
			want := map[int32]uint32{} // slot -> hash
			var live []int32
			next := int32(0)
			check := func() {
				t.Helper()
				if x.n != len(want) {
					t.Fatalf("n = %d, want %d", x.n, len(want))
				}
				pages := identityPages(next)
				for s, h := range want {
					if got := findItem(&x, pages, s, h); got != s {
						t.Fatalf("find(slot %d, hash %#x) = %d", s, h, got)
					}
				}
				if got := findItem(&x, pages, -1, 12345); got != -1 {
					t.Fatalf("find of an absent item returned slot %d", got)
				}
			}
			for op := range tc.ops {
				if len(live) < tc.maxLive && (len(live) == 0 || rng.IntN(2) == 0) {
					h := rng.Uint32N(tc.hashes) * tc.stride
					x.insert(h, next)
					want[next] = h
					live = append(live, next)
					next++
				} else {
					k := rng.IntN(len(live))
					s := live[k]
					live[k] = live[len(live)-1]
					live = live[:len(live)-1]
					x.remove(want[s], s)
					delete(want, s)
				}
				if op%97 == 0 {
					check()
				}
			}
			for _, s := range live {
				x.remove(want[s], s)
				delete(want, s)
			}
			check()
		})
	}
}

// identityPages returns slot pages in which slot i holds item i, for every
// i below n: findItem over them finds slot s when asked for item s.
func identityPages(n int32) []*slotPage[int32] {
	var pages []*slotPage[int32]
	for i := int32(0); i < n; i++ {
		if i%slotPageSize == 0 {
			pages = append(pages, new(slotPage[int32]))
		}
		pages[i/slotPageSize].slots[i%slotPageSize].item = i
	}
	return pages
}

func TestSlotTableShrinksAfterBurst(t *testing.T) {
	var x slotTable
	const burst = 100_000
	for i := range int32(burst) {
		x.insert(uint32(i)*2654435761, i)
	}
	big := len(x.ents)
	for i := range int32(burst) {
		x.remove(uint32(i)*2654435761, i)
	}
	// The queue keeps working with a handful of items, as long as the
	// table is large.
	for i := range int32(big) {
		s := burst + i
		x.insert(uint32(s)*2654435761, s)
		x.remove(uint32(s)*2654435761, s)
	}
	if x.n != 0 || len(x.ents) > keepSlotTableSize {
		t.Fatalf("after a %d-entry burst and %d small operations: n = %d, table = %d cells (peak %d); want 0 and at most %d",
			burst, big, x.n, len(x.ents), big, keepSlotTableSize)
	}
}

// TestSlotTableResizesAreAmortized swings the number of entries between a low
// and a high mark, as a queue's backlog does when a producer outruns its
// workers in bursts, and checks that the cells allocated by resizes stay
// within a small constant per insert or remove.
func TestSlotTableResizesAreAmortized(t *testing.T) {
	for _, tc := range []struct {
		name      string
		low, high int
		cycles    int
	}{
		{name: "empty to 50k", low: 0, high: 50_000, cycles: 20},
		{name: "100 to 20k", low: 100, high: 20_000, cycles: 50},
		{name: "1k to 3k", low: 1000, high: 3000, cycles: 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var x slotTable
			allocated, ops := 0, 0
			size := len(x.ents)
			note := func() {
				ops++
				if len(x.ents) != size {
					size = len(x.ents)
					allocated += size
				}
			}
			var live []int32
			next := int32(0)
			for range tc.cycles {
				for len(live) < tc.high {
					x.insert(uint32(next)*2654435761, next)
					live = append(live, next)
					next++
					note()
				}
				for len(live) > tc.low {
					s := live[len(live)-1]
					live = live[:len(live)-1]
					x.remove(uint32(s)*2654435761, s)
					note()
				}
			}
			per := float64(allocated) / float64(ops)
			t.Logf("%d cells allocated by resizes over %d operations (%.2f per operation)", allocated, ops, per)
			if per > 1.5 {
				t.Fatalf("%d cells allocated by resizes over %d operations (%.2f per operation), want at most 1.5", allocated, ops, per)
			}
		})
	}
}
