package main

import (
	"context"
	"slices"
	"strconv"

	"github.com/typedinformer/typedinformer/bench/internal/scenario"
)

// bigEventsConfig sizes row 7's large-event watch: the ConfigMap sizes,
// the events per run and the runs.
type bigEventsConfig struct {
	Sizes  []int
	Events map[int]int
	Runs   int
}

func bigEventsConfigFor(cfg config) bigEventsConfig {
	if cfg.Name == "smoke" {
		return bigEventsConfig{Sizes: []int{64 << 10}, Events: map[int]int{64 << 10: 2}, Runs: 1}
	}
	runs := 3
	if cfg.MaxRuns > 0 {
		runs = min(runs, cfg.MaxRuns)
	}
	return bigEventsConfig{Sizes: []int{1 << 20, 4 << 20}, Events: map[int]int{1 << 20: 20, 4 << 20: 5}, Runs: runs}
}

// runBigEvents measures row 7's watch of large ConfigMaps: a JSON watch
// stream of MODIFIED events of 1 MiB and 4 MiB ConfigMaps whose bytes
// arrive in 1448-byte reads (one TCP segment each), decoded by client-go's
// typed Watch and by runtime/wire over the same clientset's REST client;
// time per event.
func (s *suite) runBigEvents(ctx context.Context) {
	bc := bigEventsConfigFor(s.cfg)
	sides := []scenario.Side{scenario.ClientGo, scenario.Ours}
	for _, size := range bc.Sizes {
		secs := map[scenario.Side]*series{scenario.ClientGo: {}, scenario.Ours: {}}
		for run := 0; run < bc.Runs; run++ {
			order := slices.Clone(sides)
			if run%2 == 1 {
				slices.Reverse(order)
			}
			for _, side := range order {
				res, err := runScenario[scenario.BigEventsResult](ctx, "bigevents", "-side", string(side),
					"-n", strconv.Itoa(size), "-total", strconv.Itoa(bc.Events[size]))
				if err != nil {
					s.fail(err)
					continue
				}
				r := res.Result
				secs[side].add(r.SecondsPerEvent)
				s.logf("bigevents %s %-9s run %d/%d: %d events of %d bytes, %.4fs per event", fmtMiB(size), side, run+1, bc.Runs,
					r.Events, r.EventBytes, r.SecondsPerEvent)
			}
		}
		bench := "watch of " + fmtMiB(size) + " ConfigMaps, JSON read in " + strconv.Itoa(scenario.SegmentSize) + "-byte pieces"
		s.rows = append(s.rows, compareRow("7", bench, "time per event", *secs[scenario.Ours], *secs[scenario.ClientGo], fmtSecs, atMost(1.0)))
	}
	s.notes = append(s.notes, "Row 7's large-event watch serves a JSON watch stream of MODIFIED events of one ConfigMap (1 KiB values, 1 MiB or 4 MiB of JSON per event) through an in-process http.RoundTripper whose body returns at most 1448 bytes per read, as a large event arrives over TCP, to a real client-go clientset: client-go's typed Watch against a runtime/wire ListWatch over the same REST client; time from the request to the last event, per event.")
}

// fmtMiB names a size in KiB or MiB.
func fmtMiB(n int) string {
	if n >= 1<<20 {
		return strconv.Itoa(n>>20) + " MiB"
	}
	return strconv.Itoa(n>>10) + " KiB"
}
