package sharding

import (
	"math"
	"reflect"
	"testing"
)

func TestRangeContainsIsInclusive(t *testing.T) {
	r := Range{First: 10, Last: 20}
	for h, want := range map[uint64]bool{9: false, 10: true, 15: true, 20: true, 21: false} {
		if got := r.Contains(h); got != want {
			t.Errorf("%v.Contains(%d) = %v, want %v", r, h, got, want)
		}
	}
	if !Full().Contains(0) || !Full().Contains(math.MaxUint64) {
		t.Errorf("Full() does not contain both ends of the space")
	}
	if got := Full().Size(); got != math.Pow(2, 64) {
		t.Errorf("Full().Size() = %g, want 2^64", got)
	}
	if got := (Range{First: 5, Last: 4}).Size(); got != 0 {
		t.Errorf("invalid range Size() = %g, want 0", got)
	}
}

func TestRangeStringIsHalfOpen(t *testing.T) {
	if got, want := Full().String(), "[0x0000000000000000, 0x10000000000000000)"; got != want {
		t.Errorf("Full().String() = %q, want %q", got, want)
	}
	if got, want := (Range{First: 0xa, Last: 0xff}).String(), "[0x000000000000000a, 0x0000000000000100)"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

func TestNormalize(t *testing.T) {
	in := []Range{{30, 40}, {0, 9}, {10, 12}, {35, 50}, {52, 60}, {math.MaxUint64 - 1, math.MaxUint64}, {100, math.MaxUint64}}
	orig := append([]Range(nil), in...)
	got, err := Normalize(in)
	if err != nil {
		t.Fatal(err)
	}
	want := []Range{{0, 12}, {30, 50}, {52, 60}, {100, math.MaxUint64}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Normalize = %v, want %v", got, want)
	}
	if !reflect.DeepEqual(in, orig) {
		t.Errorf("Normalize modified its input: %v", in)
	}
	if _, err := Normalize([]Range{{0, 1}, {5, 4}}); err == nil {
		t.Errorf("Normalize accepted an inverted range")
	}
}

func TestContainsAndOwns(t *testing.T) {
	ns, uid := "team-a-prod", "6c9b1f0e-8a7d-4c1e-9f3a-2b5d7e0c4a11"
	hn, hu := Hash(ns), Hash(uid)
	only := func(h uint64) []Range { return []Range{{First: h, Last: h}} }
	if !Owns(FieldNamespace, only(hn), ns, uid) || Owns(FieldNamespace, only(hu), ns, uid) {
		t.Errorf("Owns on namespace does not hash the namespace")
	}
	if !Owns(FieldUID, only(hu), ns, uid) || Owns(FieldUID, only(hn), ns, uid) {
		t.Errorf("Owns on uid does not hash the uid")
	}
	if Owns(Field("object.metadata.name"), []Range{Full()}, ns, uid) {
		t.Errorf("Owns accepted an unsupported field")
	}
	if Contains(nil, 0) {
		t.Errorf("no ranges contain a value")
	}
	// Cluster-scoped objects hash the empty namespace.
	if !Owns(FieldNamespace, only(0xcbf29ce484222325), "", uid) {
		t.Errorf("Owns does not hash the empty namespace as FNV-1a of no bytes")
	}
}
