package main

import (
	"fmt"
	"math"
	"slices"
	"strconv"
)

// median returns the median of xs (the mean of the two middle values for an
// even count), or NaN for none.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	m := len(s) / 2
	if len(s)%2 == 1 {
		return s[m]
	}
	return (s[m-1] + s[m]) / 2
}

// series collects one metric of one side over repeated runs.
type series []float64

func (s *series) add(v float64)  { *s = append(*s, v) }
func (s series) median() float64 { return median(s) }
func (s series) ok() bool        { return len(s) > 0 }

// formatters turn a median into a table cell.
func fmtMs(v float64) string { return fmt.Sprintf("%.0f ms", v*1e3) }
func fmtSecs(v float64) string {
	if v < 1 {
		return fmt.Sprintf("%.0f ms", v*1e3)
	}
	return fmt.Sprintf("%.2f s", v)
}
func fmtMB(v float64) string    { return fmt.Sprintf("%.1f MB", v/1e6) }
func fmtBytes(v float64) string { return fmt.Sprintf("%.0f B", v) }
func fmtCount(v float64) string { return fmt.Sprintf("%.1f", v) }
func fmtUs(v float64) string    { return fmt.Sprintf("%.2f µs", v*1e6) }
func fmtNs(v float64) string {
	if v >= 1e6 {
		return fmt.Sprintf("%.2f ms", v/1e6)
	}
	return fmt.Sprintf("%.1f µs", v/1e3)
}
func fmtRate(v float64) string {
	switch {
	case v >= 1e6:
		return fmt.Sprintf("%.2fM/s", v/1e6)
	case v >= 1e3:
		return fmt.Sprintf("%.0fk/s", v/1e3)
	}
	return fmt.Sprintf("%.0f/s", v)
}

// fmtItems prints a count with thousands separators: 13,525.
func fmtItems(v float64) string {
	s := strconv.FormatFloat(math.Round(v), 'f', 0, 64)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
