package sharding

import (
	"math"
	"testing"
)

func TestScopeSetWakesWaitersOnlyOnChange(t *testing.T) {
	half := Range{First: 0, Last: math.MaxUint64 / 2}
	s, err := NewScope(FieldUID, []Range{half})
	if err != nil {
		t.Fatal(err)
	}
	_, gen0, ch := s.Snapshot()
	// Same ranges, split differently: normalizes to the same set.
	if err := s.Set([]Range{{First: 0, Last: 10}, {First: 11, Last: math.MaxUint64 / 2}}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ch:
		t.Fatal("Set with equal ranges woke the waiter")
	default:
	}
	if err := s.Set([]Range{Full()}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ch:
	default:
		t.Fatal("Set with new ranges did not wake the waiter")
	}
	r, gen1, _ := s.Snapshot()
	if gen1 != gen0+1 || len(r) != 1 || r[0] != Full() {
		t.Fatalf("after Set(Full()): ranges %v generation %d, want [Full()] and %d", r, gen1, gen0+1)
	}
	if !s.Owns("any", "uid") {
		t.Fatal("full scope does not own an object")
	}
}

func TestScopeRejectsBadInputAndKeepsRanges(t *testing.T) {
	if _, err := NewScope(Field("object.metadata.name"), nil); err == nil {
		t.Fatal("NewScope accepted an unsupported field")
	}
	s, err := NewScope(FieldNamespace, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.Owns("default", "") {
		t.Fatal("empty scope owns an object")
	}
	if err := s.Set([]Range{{First: 5, Last: 1}}); err == nil {
		t.Fatal("Set accepted an invalid range")
	}
	if r := s.Ranges(); len(r) != 0 {
		t.Fatalf("failed Set changed the ranges to %v", r)
	}
}

// SnapshotSince counts as gained every current range that was missing at
// some generation since the one given, including ranges lost and
// regained in between, and everything when the generation is forgotten.
func TestScopeSnapshotSinceCountsRegainedRanges(t *testing.T) {
	lo := Range{First: 0, Last: math.MaxUint64 / 2}
	hi := Range{First: math.MaxUint64/2 + 1, Last: math.MaxUint64}
	for _, tc := range []struct {
		name       string
		sets       [][]Range // after the generation read
		wantGained []Range
	}{
		{name: "no change", wantGained: nil},
		{name: "grown", sets: [][]Range{{lo, hi}}, wantGained: []Range{hi}},
		{name: "shrunk", sets: [][]Range{nil}, wantGained: nil},
		{name: "lost and regained", sets: [][]Range{nil, {lo}}, wantGained: []Range{lo}},
		{name: "half lost, then grown", sets: [][]Range{{{First: 0, Last: 99}}, {lo, hi}}, wantGained: []Range{{First: 100, Last: math.MaxUint64}}},
		// lo is held throughout; hi comes and goes and is gone at the end.
		{name: "history remembered", sets: alternate([]Range{lo, hi}, []Range{lo}, scopeHistory-1), wantGained: nil},
		{name: "history forgotten: everything counts", sets: alternate([]Range{lo, hi}, []Range{lo}, scopeHistory+1), wantGained: []Range{lo}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := NewScope(FieldUID, []Range{lo})
			if err != nil {
				t.Fatal(err)
			}
			_, gen, _ := s.Snapshot()
			for _, r := range tc.sets {
				if err := s.Set(r); err != nil {
					t.Fatal(err)
				}
			}
			cur, gained, _, _ := s.SnapshotSince(gen)
			if !sameRanges(gained, tc.wantGained) {
				t.Fatalf("gained %v since generation %d (now %v), want %v", gained, gen, cur, tc.wantGained)
			}
		})
	}
}

// alternate returns n Sets alternating between a and b, ending with b.
func alternate(a, b []Range, n int) [][]Range {
	out := make([][]Range, n)
	for i := range out {
		out[i] = a
		if (n-1-i)%2 == 0 {
			out[i] = b
		}
	}
	return out
}
