package main

import (
	"context"
	"fmt"
	"strconv"

	"github.com/typedinformer/typedinformer/bench/internal/scenario"
)

// writeTrackerN and writeTrackerWrites size row 14: the Pods cached, and
// the writes read back per run (a tenth of that in smoke runs).
const (
	writeTrackerN      = 10_000
	writeTrackerWrites = 200
)

// runWriteTracker measures row 14: lister Get and List of an informer with
// a WriteTracker attached and no write pending, against the same informer
// without one (the feature must cost nothing when unused), and the time a
// read of the program's own write takes against the watch latency of that
// write (it may wait for the event, and no longer).
func (s *suite) runWriteTracker(ctx context.Context) {
	n, writes := writeTrackerN, writeTrackerWrites
	if s.cfg.IndexN < writeTrackerN {
		n, writes = s.cfg.IndexN, writeTrackerWrites/10
	}
	var getOff, getOn, listOff, listOn, read, watch series
	for run := 0; run < s.cfg.IndexRuns; run++ {
		res, err := runScenario[scenario.WriteTrackerResult](ctx, "writetracker", "-side", string(scenario.Ours),
			"-n", strconv.Itoa(n), "-mindur", s.cfg.IndexMinDur.String(), "-total", strconv.Itoa(writes))
		if err != nil {
			s.fail(err)
			continue
		}
		r := res.Result
		getOff.add(r.GetOffNs)
		getOn.add(r.GetOnNs)
		listOff.add(r.ListOffNs)
		listOn.add(r.ListOnNs)
		rd, wt := series(r.ReadSeconds), series(r.WatchSeconds)
		if rd.ok() && wt.ok() {
			read.add(rd.median())
			watch.add(wt.median())
		}
		s.logf("writetracker n=%d run %d/%d: Get %.0f/%.0f ns, List %.0f/%.0f ns (off/on); read after write %.3f ms, watch latency %.3f ms (medians of %d)",
			n, run+1, s.cfg.IndexRuns, r.GetOffNs, r.GetOnNs, r.ListOffNs, r.ListOnNs, rd.median()*1e3, wt.median()*1e3, len(r.ReadSeconds))
	}
	bench := "lister reads with a WriteTracker attached and no write pending vs without one, " + kilo(n) + " Pods"
	s.rows = append(s.rows,
		compareRow("14", bench, "time per Get", getOn, getOff, fmtNs, atMost(1.05)),
		compareRow("14", bench, "time per List of every Pod", listOn, listOff, fmtNs, atMost(1.05)),
		readAfterWriteRow(read, watch),
	)
	s.notes = append(s.notes, fmt.Sprintf("Row 14 runs two informers of the runtime over one in-memory API server; the anchor is the same informer without a WriteTracker. Its last line times %d updates each recorded in the tracker and read back at once through the tracked lister: ours is the median time from the write's return to that Get returning the write, the anchor the median time from the write's return to the informer's handler receiving its event (the watch latency); the target is the watch latency plus 1 ms.", writes))
}

// readAfterWriteRow compares the read's wait with the watch latency: the
// target is an absolute margin, not a ratio.
func readAfterWriteRow(read, watch series) row {
	const bench = "a lister Get of the program's own write, issued as the write returns"
	r := row{Num: "14", Bench: bench, Metric: "time until the read returns the write", Target: "≤ watch latency + 1 ms", Ours: "no data", Anchor: "no data", Ratio: "—", Result: "not measured"}
	if !read.ok() || !watch.ok() {
		return r
	}
	r.Ours, r.Anchor = fmtUs(read.median()), fmtUs(watch.median())
	r.Ratio = fmt.Sprintf("%.2fx", read.median()/watch.median())
	r.Result = "met"
	if read.median() > watch.median()+1e-3 {
		r.Result = "**MISSED**"
	}
	return r
}
