package main

import (
	"context"
	"fmt"
	"strconv"

	"github.com/typedinformer/typedinformer/bench/internal/scenario"
)

// metricsMinRuns is the least number of on/off pairs of the metrics-cost
// row in a full run: the bar is 10%, about the spread of single runs on a
// shared machine, so it takes the median of several.
const metricsMinRuns = 6

// runEventsMetrics measures the cost of the informer metrics: row 2's event
// workload on our informer with the Prometheus adapter on and off, in
// alternating child processes of the same run (ours column: on; anchor
// column: off).
func (s *suite) runEventsMetrics(ctx context.Context) {
	runs := s.cfg.EventRuns
	if runs > 1 {
		runs = max(runs, metricsMinRuns)
	}
	for _, h := range s.cfg.Handlers {
		eps := map[bool]*series{true: {}, false: {}}
		cpu := map[bool]*series{true: {}, false: {}}
		for run := 0; run < runs; run++ {
			order := []bool{true, false}
			if run%2 == 1 {
				order = []bool{false, true}
			}
			for _, on := range order {
				res, err := runScenario[scenario.EventsResult](ctx, "events-metrics", "-side", string(scenario.Ours),
					"-adapter="+strconv.FormatBool(on),
					"-keys", strconv.Itoa(s.cfg.EventKeys), "-handlers", strconv.Itoa(h), "-total", strconv.Itoa(s.cfg.EventTotal))
				if err != nil {
					s.fail(err)
					continue
				}
				r := res.Result
				eps[on].add(r.EventsPerSecond())
				if r.CPUSeconds > 0 {
					cpu[on].add(float64(r.Events) / r.CPUSeconds)
				}
				s.logf("events-metrics handlers=%d adapter=%-5v run %d/%d: %.3fs (%.3f s CPU), %.0f events/s, %.2f allocs/event",
					h, on, run+1, runs, r.Seconds, r.CPUSeconds, r.EventsPerSecond(), r.AllocsPerEvent())
			}
		}
		bench := fmt.Sprintf("events/s, adapter on vs off: row 2's workload, %s", plural(h, "handler"))
		s.rows = append(s.rows,
			compareRow("2", bench, "updates/s delivered; ours = Prometheus adapter on, anchor = off (target: on ≥ 0.9x off)",
				*eps[true], *eps[false], fmtRate, atLeast(0.9)),
			compareRow("2", bench, "updates per CPU-second (process user+system time over the same span); on vs off",
				*cpu[true], *cpu[false], fmtRate, atLeast(0.9)))
	}
	s.notes = append(s.notes, fmt.Sprintf("Metrics cost (row 2, adapter on vs off): our informer runs row 2's workload with metrics/prometheus as its metrics provider on a fresh registry (every informer metric: lists, watches, last event and resourceVersion, store and queue gauges, per-handler backlog and latency histogram; handlers named) and without a provider, in alternating child processes, at least %d of each in a full run; the cells are the medians. The second row divides by the process's CPU time over the timed span instead of wall time: on a machine shared with other work, wall time swings by more than the 10%% under test, CPU time much less.", metricsMinRuns))
}
