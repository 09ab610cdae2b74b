package sharding

import (
	"math"
	"math/rand/v2"
	"testing"
)

// inSet is the reference membership test the set operations are checked
// against.
func inSet(rs []Range, h uint64) bool {
	for _, r := range rs {
		if r.First <= h && h <= r.Last {
			return true
		}
	}
	return false
}

func TestRangeSetOperationsAgainstMembership(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	// Small values so that random probes hit bounds and neighbours.
	randRanges := func() []Range {
		var rs []Range
		for range rng.IntN(5) {
			a, b := rng.Uint64N(64), rng.Uint64N(64)
			rs = append(rs, Range{First: min(a, b), Last: max(a, b)})
		}
		return rs
	}
	for trial := range 2000 {
		a, b := randRanges(), randRanges()
		u, in, sub := Union(a, b), Intersect(a, b), Subtract(a, b)
		for h := uint64(0); h < 66; h++ {
			ia, ib := inSet(a, h), inSet(b, h)
			if got := inSet(u, h); got != (ia || ib) {
				t.Fatalf("trial %d: Union(%v, %v) = %v: %d in it = %v", trial, a, b, u, h, got)
			}
			if got := inSet(in, h); got != (ia && ib) {
				t.Fatalf("trial %d: Intersect(%v, %v) = %v: %d in it = %v", trial, a, b, in, h, got)
			}
			if got := inSet(sub, h); got != (ia && !ib) {
				t.Fatalf("trial %d: Subtract(%v, %v) = %v: %d in it = %v", trial, a, b, sub, h, got)
			}
		}
		if Overlaps(a, b) != (len(in) > 0) {
			t.Fatalf("trial %d: Overlaps disagrees with Intersect", trial)
		}
	}
}

func TestRangeSetEdgesOfTheSpace(t *testing.T) {
	top := Range{First: math.MaxUint64 - 1, Last: math.MaxUint64}
	if got := Subtract([]Range{Full()}, []Range{top}); len(got) != 1 || got[0] != (Range{0, math.MaxUint64 - 2}) {
		t.Fatalf("Full() minus the top two values = %v", got)
	}
	if got := Subtract([]Range{Full()}, []Range{{0, 0}}); len(got) != 1 || got[0] != (Range{1, math.MaxUint64}) {
		t.Fatalf("Full() minus 0 = %v", got)
	}
	if got := Subtract([]Range{top}, []Range{Full()}); len(got) != 0 {
		t.Fatalf("anything minus Full() = %v", got)
	}
	if s := SpaceOf([]Range{Full(), Full()}); s != 1 {
		t.Fatalf("SpaceOf(Full(), Full()) = %v", s)
	}
}

func TestFormatParseRangesRoundTrip(t *testing.T) {
	rs, err := Assign([]string{"a", "b", "c"}, 64)
	if err != nil {
		t.Fatal(err)
	}
	for m, want := range rs {
		got, err := ParseRanges(FormatRanges(want))
		if err != nil {
			t.Fatalf("%s: %v", m, err)
		}
		if len(Subtract(got, want)) != 0 || len(Subtract(want, got)) != 0 {
			t.Fatalf("%s: round trip changed %v to %v", m, want, got)
		}
	}
	if got, err := ParseRanges(""); err != nil || got != nil {
		t.Fatalf(`ParseRanges("") = %v, %v`, got, err)
	}
	for _, bad := range []string{"x", "0-", "00000000000000ff-0000000000000001", "1-2,zz-3"} {
		if _, err := ParseRanges(bad); err == nil {
			t.Errorf("ParseRanges(%q) accepted", bad)
		}
	}
}
