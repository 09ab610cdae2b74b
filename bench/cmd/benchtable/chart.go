package main

// chartPoint is one x value of a chart with both sides' medians (NaN when
// a side has no data).
type chartPoint struct {
	x            float64
	ours, anchor float64
}

// chartData holds the series the report draws as SVG charts.
type chartData struct {
	queueWork, queueNoWork []chartPoint // adds drained per second against workers
}
