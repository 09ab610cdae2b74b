package main

import (
	"strings"
	"testing"
)

func TestFmtItems(t *testing.T) {
	for v, want := range map[float64]string{0: "0", 999: "999", 1000: "1,000", 13525: "13,525", 1234567: "1,234,567"} {
		if got := fmtItems(v); got != want {
			t.Errorf("fmtItems(%v) = %q, want %q", v, got, want)
		}
	}
}

// The chart must be well-formed SVG that shows both sides' values and the
// ratio, and must not break on a side without data.
func TestChartSVG(t *testing.T) {
	c := chartData{
		queueWorkLabel: "5µs",
		queueWork:      []chartPoint{{x: 1, ours: 2e5, anchor: 1e5}, {x: 4, ours: 3e5, anchor: 3e5}},
	}
	cs := c.charts()
	if len(cs) != 1 {
		t.Fatalf("got %d charts, want only the one with data", len(cs))
	}
	svg := cs[0].svg()
	for _, want := range []string{"<svg", "</svg>", "ours 2.00x", "ours 1.00x", ">200<", ">100<", "5µs"} {
		if !strings.Contains(svg, want) {
			t.Errorf("chart lacks %q", want)
		}
	}
	p := point(16, nil, series{1})
	c.queueWork = append(c.queueWork, p)
	if svg := c.charts()[0].svg(); !strings.Contains(svg, "n/a") {
		t.Error("a side without data is not marked n/a")
	}
}

// The zero-allocation verdict takes a fraction of allocations per lookup,
// so one allocation every few lookups must miss it and none must meet it.
func TestZeroAllocRow(t *testing.T) {
	for _, c := range []struct {
		ours series
		want string
	}{
		{series{0, 0, 0}, "met"},
		{series{0.004, 0.001, 0.002}, "met"},
		{series{0.02, 0.03, 0.02}, "**MISSED**"},
		{series{1, 1, 1}, "**MISSED**"},
		{nil, "not measured"},
	} {
		r := zeroAllocRow("3", "b", c.ours, series{1}, series{5000, 6000})
		if r.Result != c.want {
			t.Errorf("ours %v: result %q, want %q", c.ours, r.Result, c.want)
		}
		if c.ours.ok() && !strings.Contains(r.Ours, "5,000 lookups") {
			t.Errorf("ours %v: cell %q does not say over how many lookups", c.ours, r.Ours)
		}
	}
}
