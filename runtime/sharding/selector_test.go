package sharding

import (
	"math"
	"strings"
	"testing"
)

func TestSelectorFormat(t *testing.T) {
	got, err := Selector(FieldUID, []Range{{First: 0xabcdef0000000000, Last: math.MaxUint64}, {First: 0, Last: 0x0fff}})
	if err != nil {
		t.Fatal(err)
	}
	want := "shardRange(object.metadata.uid, '0x0000000000000000', '0x0000000000001000') || " +
		"shardRange(object.metadata.uid, '0xabcdef0000000000', '0x10000000000000000')"
	if got != want {
		t.Errorf("Selector =\n %s\nwant\n %s", got, want)
	}
	got, err = Selector(FieldNamespace, []Range{Full()})
	if err != nil {
		t.Fatal(err)
	}
	if want := "shardRange(object.metadata.namespace, '0x0000000000000000', '0x10000000000000000')"; got != want {
		t.Errorf("Selector(Full()) = %s, want %s", got, want)
	}
	// Adjacent ranges merge into one clause.
	got, err = Selector(FieldUID, []Range{{0, 9}, {10, 19}})
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(got, "shardRange("); n != 1 {
		t.Errorf("adjacent ranges rendered as %d clauses: %s", n, got)
	}
}

func TestSelectorErrors(t *testing.T) {
	for name, tc := range map[string]struct {
		field  Field
		ranges []Range
		want   string
	}{
		"field":    {Field("object.metadata.name"), []Range{Full()}, "object.metadata.name"},
		"empty":    {FieldUID, nil, "no ranges"},
		"inverted": {FieldUID, []Range{{First: 3, Last: 2}}, "range 0"},
	} {
		s, err := Selector(tc.field, tc.ranges)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Selector = %q, %v; want an error naming %q", name, s, err, tc.want)
		}
	}
}

// TestSelectorLengthLimit checks that the worst case Assign can produce
// (MaxVNodes+1 clauses on the longer field) fits MaxSelectorLength, and
// that a longer selector is refused rather than sent.
func TestSelectorLengthLimit(t *testing.T) {
	ranges := disjointRanges(MaxVNodes + 1)
	s, err := Selector(FieldNamespace, ranges)
	if err != nil {
		t.Fatalf("worst case for MaxVNodes: %v", err)
	}
	if len(s) > MaxSelectorLength {
		t.Fatalf("len = %d > %d", len(s), MaxSelectorLength)
	}
	if s, err := Selector(FieldNamespace, disjointRanges(1200)); err == nil || !strings.Contains(err.Error(), "over the apiserver's limit") {
		t.Errorf("1200 clauses: len %d, err %v; want a length error", len(s), err)
	}
}

// disjointRanges returns n non-adjacent single-value ranges.
func disjointRanges(n int) []Range {
	out := make([]Range, n)
	for i := range out {
		h := uint64(i) * 2
		out[i] = Range{First: h, Last: h}
	}
	return out
}
