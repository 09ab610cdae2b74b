package main

import "math"

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
}
