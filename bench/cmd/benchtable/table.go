package main

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// target is a bound on the ratio ours/anchor.
type target struct {
	atMost bool // true: ratio <= bound; false: ratio >= bound
	bound  float64
}

func (t *target) String() string {
	if t == nil {
		return "—"
	}
	if t.atMost {
		return fmt.Sprintf("≤ %.3gx", t.bound)
	}
	return fmt.Sprintf("≥ %.3gx", t.bound)
}

func (t *target) met(ratio float64) bool {
	if t.atMost {
		return ratio <= t.bound
	}
	return ratio >= t.bound
}

func atMost(b float64) *target  { return &target{atMost: true, bound: b} }
func atLeast(b float64) *target { return &target{atMost: false, bound: b} }

// row is one line of the results table.
type row struct {
	Num, Bench, Metric string
	Ours, Anchor       string
	Ratio              string
	Target             string
	Result             string
}

// compareRow builds a row from the medians of both sides, their ratio and
// the verdict against t (nil: no target). A side with no data shows why.
func compareRow(num, bench, metric string, ours, anchor series, format func(float64) string, t *target) row {
	r := row{Num: num, Bench: bench, Metric: metric, Target: t.String(), Ours: "no data", Anchor: "no data", Ratio: "—", Result: "—"}
	if ours.ok() {
		r.Ours = format(ours.median())
	}
	if anchor.ok() {
		r.Anchor = format(anchor.median())
	}
	if !ours.ok() || !anchor.ok() {
		if t != nil {
			r.Result = "not measured"
		}
		return r
	}
	ratio := ours.median() / anchor.median()
	if math.IsNaN(ratio) || math.IsInf(ratio, 0) {
		r.Ratio = "n/a"
		return r
	}
	r.Ratio = fmt.Sprintf("%.2fx", ratio)
	if t != nil {
		if t.met(ratio) {
			r.Result = "met"
		} else {
			r.Result = "**MISSED**"
		}
	}
	return r
}

// renderTable writes rows as one markdown table.
func renderTable(rows []row) string {
	var b strings.Builder
	b.WriteString("| # | benchmark | metric (median) | ours | anchor | ours/anchor | target | result |\n")
	b.WriteString("| --- | --- | --- | ---: | ---: | ---: | --- | --- |\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s |\n",
			r.Num, r.Bench, r.Metric, r.Ours, r.Anchor, r.Ratio, r.Target, r.Result)
	}
	return b.String()
}

// zeroAllocRow is the allocations row of a lookup whose target is absolute:
// no allocation at all when the caller provides the result buffer. The
// anchor's figure is shown for reference; the verdict reads ours alone.
// zeroAllocLimit is the most allocations per lookup that count as none:
// 0 when rounded to two decimals. A lookup that allocated even once per
// hundred calls would miss it.
const zeroAllocLimit = 0.01

// zeroAllocRow is the "no allocations with the caller's buffer" row. ours
// holds, per run, the allocations over a whole timed batch divided by the
// lookups in it, and lookups the batch sizes, so the cell says over how
// many lookups the fraction was taken.
func zeroAllocRow(num, bench string, ours, anchor, lookups series) row {
	r := compareRow(num, bench, "allocations per lookup, ours into the caller's buffer (allocations in the timed batch ÷ its lookups)", ours, anchor, fmtCount, nil)
	r.Target = fmt.Sprintf("ours < %.2f", zeroAllocLimit)
	r.Result = "not measured"
	if ours.ok() {
		r.Ours = fmt.Sprintf("%.4f", ours.median())
		if lookups.ok() {
			r.Ours += " (batches of ≥ " + fmtItems(slices.Min(lookups)) + " lookups)"
		}
		if ours.median() < zeroAllocLimit {
			r.Result = "met"
		} else {
			r.Result = "**MISSED**"
		}
	}
	return r
}
