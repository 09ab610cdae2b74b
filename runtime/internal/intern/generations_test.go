package intern

import "testing"

// A key survives one turnover (in the old generation, found by Old and
// moved back by Put) and is forgotten after two; Len counts a key held in
// both generations once.
func TestGenerationsTurnOverAndForget(t *testing.T) {
	var g Generations[int]
	g.Put("a", 1, 2)
	g.Put("b", 2, 2)
	if v, ok := g.Current("a"); !ok || v != 1 {
		t.Fatalf("Current(a) = %d, %v; want 1, true", v, ok)
	}
	g.Put("c", 3, 2) // turnover: a, b are old
	if _, ok := g.Current("a"); ok {
		t.Fatal("a still current after a turnover")
	}
	if v, ok := g.Old("a"); !ok || v != 1 {
		t.Fatalf("Old(a) = %d, %v; want 1, true", v, ok)
	}
	g.Put("a", 1, 2) // moved back: current {c, a}, old {a, b}
	if n := g.Len(); n != 3 {
		t.Fatalf("Len = %d, want 3 (a counted once)", n)
	}
	g.Put("d", 4, 2) // turnover: b forgotten
	if _, ok := g.Old("b"); ok {
		t.Fatal("b remembered after two turnovers")
	}
	if _, ok := g.Current("b"); ok {
		t.Fatal("b current after two turnovers")
	}
	if v, ok := g.Old("a"); !ok || v != 1 {
		t.Fatalf("Old(a) = %d, %v after the second turnover; want 1, true", v, ok)
	}
}
