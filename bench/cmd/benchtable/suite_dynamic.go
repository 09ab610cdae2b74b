package main

import (
	"context"
	"fmt"
	"os"
	"strconv"

	"github.com/typedinformer/typedinformer/bench/internal/scenario"
)

type dynamicSeries struct{ secs, heap, rss series }

// runDynamic measures row 13: client-go's dynamic informer factory and
// clientgo/dynamicinformer over unstructured Pods served as JSON to a
// dynamic client, time to synced and heap per cached object, at row 7's
// sizes and run counts.
func (s *suite) runDynamic(ctx context.Context) {
	wc := wireConfigFor(s.cfg)
	dir, err := os.MkdirTemp("", "bench-dynamic-")
	if err != nil {
		s.fail(err)
		return
	}
	defer os.RemoveAll(dir)
	if err := scenario.WriteWireFixture(dir, scenario.PodsTwoManagers, wc.Sizes...); err != nil {
		s.fail(fmt.Errorf("dynamic fixture: %w", err))
		return
	}
	for _, n := range wc.Sizes {
		data := map[scenario.Side]*dynamicSeries{scenario.Ours: {}, scenario.ClientGo: {}}
		for run := 0; run < wc.Runs[n]; run++ {
			order := []scenario.Side{scenario.ClientGo, scenario.Ours}
			if run%2 == 1 {
				order[0], order[1] = order[1], order[0]
			}
			for _, side := range order {
				res, err := runScenario[scenario.DynamicResult](ctx, "dynamic", "-side", string(side), "-pods", scenario.PodsTwoManagers,
					"-n", strconv.Itoa(n), "-fixture", dir)
				if err != nil {
					s.fail(err)
					continue
				}
				r, d := res.Result, data[side]
				d.secs.add(r.SyncSeconds)
				d.heap.add(r.SyncedPerObject())
				d.rss.add(float64(r.SyncPeakRSS))
				s.logf("dynamic n=%d %-9s run %d/%d: %.2fs, %.0f B/obj, sync peak rss %.1f MB (lists %v, watch-lists %v)",
					n, side, run+1, wc.Runs[n], r.SyncSeconds, r.SyncedPerObject(), float64(r.SyncPeakRSS)/1e6, r.Lists, r.WatchLists)
			}
		}
		ours, cg := data[scenario.Ours], data[scenario.ClientGo]
		bench := "dynamic informer factory, unstructured Pods from the wire (JSON), " + kilo(n)
		s.rows = append(s.rows,
			compareRow("13", bench, "time to synced", ours.secs, cg.secs, fmtSecs, atMost(0.5)),
			compareRow("13", bench, "heap per cached Pod after sync + GC", ours.heap, cg.heap, fmtBytes, atMost(0.8)),
			compareRow("13", bench, "peak RSS of the sync (info)", ours.rss, cg.rss, fmtMB, nil),
		)
	}
	s.notes = append(s.notes, "Row 13 runs client-go's dynamicinformer factory and clientgo/dynamicinformer's, both with their defaults (watch-list streaming), for Pods with the two usual managedFields entries served as API server JSON over loopback HTTP to one dynamic.NewForConfig client per process; client-go's decodes through the dynamic client into unstructured maps, ours reads the same client's REST client and decodes each item's JSON straight into its map with runtime/wire. Time runs from Start to the handler having seen every add and the informer having synced.")
}
