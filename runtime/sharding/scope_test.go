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
