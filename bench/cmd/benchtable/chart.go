package main

import (
	"encoding/xml"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"
)

// chartPoint is one x value of a chart with both sides' medians (NaN when
// a side has no data).
type chartPoint struct {
	x            float64
	ours, anchor float64
}

// point builds a chartPoint from both sides' series.
func point(x float64, ours, anchor series) chartPoint {
	p := chartPoint{x: x, ours: math.NaN(), anchor: math.NaN()}
	if ours.ok() {
		p.ours = ours.median()
	}
	if anchor.ok() {
		p.anchor = anchor.median()
	}
	return p
}

// chartData holds the series the report draws as SVG charts.
type chartData struct {
	syncTime, syncPeak, syncBookkeeping []chartPoint // per object, against N
	events                              []chartPoint // updates/s against handlers
	queueWork, queueNoWork              []chartPoint // adds drained per second against workers
	queueProcessed                      []chartPoint // items processed with work, against workers
	queueWorkLabel                      string       // the work per item, e.g. "5µs"
}

// chart is one SVG bar chart: for each x category, ours beside the anchor.
type chart struct {
	File, Title, XLabel, YLabel string
	XFormat                     func(float64) string
	YFormat                     func(float64) string
	Points                      []chartPoint
}

// charts returns the report's charts from the collected data; a chart
// without any point is left out.
func (d chartData) charts() []chart {
	count := func(v float64) string { return kilo(int(v)) }
	all := []chart{
		{File: "bench-sync-time.svg", Title: "Initial sync: time per object", XLabel: "Pods", YLabel: "µs per object", XFormat: count, YFormat: func(v float64) string { return fmtG(v * 1e6) }, Points: d.syncTime},
		{File: "bench-sync-peak.svg", Title: "Initial sync: peak heap growth per object", XLabel: "Pods", YLabel: "bytes per object", XFormat: count, YFormat: fmtG, Points: d.syncPeak},
		{File: "bench-sync-bookkeeping.svg", Title: "Bookkeeping per object, served list dropped", XLabel: "Pods", YLabel: "bytes per object", XFormat: count, YFormat: fmtG, Points: d.syncBookkeeping},
		{File: "bench-events.svg", Title: "Update events delivered to every handler", XLabel: "handlers", YLabel: "updates/s (thousands)", XFormat: count, YFormat: func(v float64) string { return fmtG(v / 1e3) }, Points: d.events},
		{File: "bench-queue-work.svg", Title: "Workqueue, " + d.queueWorkLabel + " of work per item: adds drained per second", XLabel: "workers", YLabel: "adds/s (thousands)", XFormat: count, YFormat: func(v float64) string { return fmtG(v / 1e3) }, Points: d.queueWork},
		{File: "bench-queue-processed.svg", Title: "Workqueue, " + d.queueWorkLabel + " of work per item: items processed (reconciles; fewer is better)", XLabel: "workers", YLabel: "items (thousands)", XFormat: count, YFormat: func(v float64) string { return fmtG(v / 1e3) }, Points: d.queueProcessed},
		{File: "bench-queue-nowork.svg", Title: "Workqueue, no work: adds drained per second", XLabel: "workers", YLabel: "adds/s (thousands)", XFormat: count, YFormat: func(v float64) string { return fmtG(v / 1e3) }, Points: d.queueNoWork},
	}
	var out []chart
	for _, c := range all {
		if len(c.Points) > 0 {
			out = append(out, c)
		}
	}
	return out
}

// fmtG prints v with at most three significant digits and no exponent.
func fmtG(v float64) string {
	switch {
	case v == 0:
		return "0"
	case math.Abs(v) >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case math.Abs(v) >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

// Colours of the two sides in every chart.
const (
	oursColour   = "#2b6cb0"
	anchorColour = "#a0aec0"
)

// svg draws c as a standalone SVG document: grouped bars (ours, then the
// anchor) per x category, a y axis from 0 with gridlines, value labels on
// the bars and a legend. It needs no fonts or scripts beyond the SVG
// defaults, so it renders the same on GitHub and in a browser.
func (c chart) svg() string {
	const (
		width, height          = 640, 360
		left, right, top, bott = 70, 20, 50, 60
	)
	plotW, plotH := float64(width-left-right), float64(height-top-bott)
	maxY := 0.0
	for _, p := range c.Points {
		for _, v := range []float64{p.ours, p.anchor} {
			if !math.IsNaN(v) && v > maxY {
				maxY = v
			}
		}
	}
	step := niceStep(maxY / 4)
	top4 := step * math.Ceil(maxY/step)
	if top4 == 0 {
		top4 = 1
		step = 0.25
	}
	y := func(v float64) float64 { return float64(top) + plotH*(1-v/top4) }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", width, height, width, height)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="white"/>`+"\n", width, height)
	fmt.Fprintf(&b, `<text x="%d" y="22" font-size="15" font-weight="bold">%s</text>`+"\n", left, xmlEscape(c.Title))
	for v := 0.0; v <= top4*1.0001; v += step {
		fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#e2e8f0"/>`+"\n", left, width-right, y(v), y(v))
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" text-anchor="end">%s</text>`+"\n", left-6, y(v)+4, xmlEscape(c.YFormat(v)))
	}
	fmt.Fprintf(&b, `<text transform="translate(16 %.0f) rotate(-90)" text-anchor="middle">%s</text>`+"\n", float64(top)+plotH/2, xmlEscape(c.YLabel))
	group := plotW / float64(len(c.Points))
	barW := group * 0.3
	for i, p := range c.Points {
		x0 := float64(left) + group*float64(i) + group*0.2
		for j, v := range []float64{p.ours, p.anchor} {
			colour := oursColour
			if j == 1 {
				colour = anchorColour
			}
			x := x0 + float64(j)*barW
			if math.IsNaN(v) {
				fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle">n/a</text>`+"\n", x+barW/2, y(0)-4)
				continue
			}
			fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"/>`+"\n", x, y(v), barW, y(0)-y(v), colour)
			fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle" font-size="11">%s</text>`+"\n", x+barW/2, y(v)-4, xmlEscape(c.YFormat(v)))
		}
		if !math.IsNaN(p.ours) && !math.IsNaN(p.anchor) && p.anchor != 0 {
			fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle" fill="#4a5568" font-size="11">ours %.2fx</text>`+"\n", x0+barW, height-bott+32, p.ours/p.anchor)
		}
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle">%s</text>`+"\n", x0+barW, height-bott+16, xmlEscape(c.XFormat(p.x)))
	}
	fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#2d3748"/>`+"\n", left, width-right, y(0), y(0))
	fmt.Fprintf(&b, `<text x="%.0f" y="%d" text-anchor="middle">%s</text>`+"\n", float64(left)+plotW/2, height-8, xmlEscape(c.XLabel))
	lx := width - right - 190
	fmt.Fprintf(&b, `<rect x="%d" y="30" width="12" height="12" fill="%s"/><text x="%d" y="40">ours</text>`+"\n", lx, oursColour, lx+16)
	fmt.Fprintf(&b, `<rect x="%d" y="30" width="12" height="12" fill="%s"/><text x="%d" y="40">client-go v0.37.2</text>`+"\n", lx+60, anchorColour, lx+76)
	b.WriteString("</svg>\n")
	return b.String()
}

// niceStep rounds raw up to 1, 2 or 5 times a power of ten.
func niceStep(raw float64) float64 {
	if raw <= 0 || math.IsNaN(raw) || math.IsInf(raw, 0) {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= raw {
			return m * p
		}
	}
	return 10 * p
}

func xmlEscape(s string) string {
	var b strings.Builder
	if err := xml.EscapeText(&b, []byte(s)); err != nil {
		return ""
	}
	return b.String()
}

// writeCharts writes every chart as an SVG file into dir and returns the
// charts written.
func writeCharts(dir string, d chartData) ([]chart, error) {
	var out []chart
	for _, c := range d.charts() {
		if err := writeFileAtomic(filepath.Join(dir, c.File), []byte(c.svg())); err != nil {
			return out, err
		}
		out = append(out, c)
	}
	return out, nil
}
