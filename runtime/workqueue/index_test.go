package workqueue

import (
	"math/rand/v2"
	"testing"
)

// TestIndexMatchesMap drives the index with random inserts and removes over
// hashes chosen to collide (few distinct low bits, so runs are long and wrap
// around the table) and checks every lookup against a plain map.
func TestIndexMatchesMap(t *testing.T) {
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
			var x index
			want := map[int32]uint32{} // slot -> hash
			var live []int32
			next := int32(0)
			check := func() {
				t.Helper()
				if x.n != len(want) {
					t.Fatalf("n = %d, want %d", x.n, len(want))
				}
				for s, h := range want {
					if got := x.find(h, func(c int32) bool { return c == s }); got != s {
						t.Fatalf("find(slot %d, hash %#x) = %d", s, h, got)
					}
				}
				if got := x.find(12345, func(int32) bool { return true }); got >= 0 && want[got] != 12345 {
					t.Fatalf("find of an absent hash returned slot %d", got)
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

func TestIndexShrinksAfterBurst(t *testing.T) {
	var x index
	for i := range int32(100_000) {
		x.insert(uint32(i)*2654435761, i)
	}
	big := len(x.ents)
	for i := range int32(100_000) {
		x.remove(uint32(i)*2654435761, i)
	}
	if x.n != 0 || len(x.ents) > keepIndexSize || len(x.ents) >= big {
		t.Fatalf("after draining 100k entries: n = %d, table = %d cells (peak %d); want 0 and at most %d", x.n, len(x.ents), big, keepIndexSize)
	}
}
