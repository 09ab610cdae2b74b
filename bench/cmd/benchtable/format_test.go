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
