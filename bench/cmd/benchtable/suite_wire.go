package main

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"

	"github.com/typedinformer/typedinformer/bench/internal/scenario"
)

// wireConfig sizes row 7's wire part: the Pod counts and runs per size.
type wireConfig struct {
	Sizes []int
	Runs  map[int]int
}

func wireConfigFor(cfg config) wireConfig {
	if cfg.Name == "smoke" {
		return wireConfig{Sizes: []int{1_000}, Runs: map[int]int{1_000: 1}}
	}
	runs10k, runs100k := 5, 2
	if cfg.MaxRuns > 0 {
		runs10k, runs100k = min(runs10k, cfg.MaxRuns), min(runs100k, cfg.MaxRuns)
	}
	return wireConfig{Sizes: []int{10_000, 100_000}, Runs: map[int]int{10_000: runs10k, 100_000: runs100k}}
}

// wireRun names one side with one encoding.
type wireRun struct {
	side scenario.Side
	enc  string
}

var wireRuns = []wireRun{
	{scenario.ClientGo, scenario.EncJSON},
	{scenario.Ours, scenario.EncJSON},
	{scenario.ClientGo, scenario.EncProtobuf},
	{scenario.Ours, scenario.EncProtobuf},
}

type wireSeries struct{ secs, cpu, rss, heap series }

// runWire measures row 7 from the wire: Pods with the two usual managers
// served by a real HTTP server to a real client-go clientset, list+watch,
// as JSON and as protobuf; ours decodes through runtime/wire.
func (s *suite) runWire(ctx context.Context) {
	wc := wireConfigFor(s.cfg)
	dir, err := os.MkdirTemp("", "bench-wire-")
	if err != nil {
		s.fail(err)
		return
	}
	defer os.RemoveAll(dir)
	if err := scenario.WriteWireFixture(dir, wc.Sizes...); err != nil {
		s.fail(fmt.Errorf("wire fixture: %w", err))
		return
	}
	data := map[int]map[wireRun]*wireSeries{}
	for _, n := range wc.Sizes {
		data[n] = map[wireRun]*wireSeries{}
		for _, r := range wireRuns {
			data[n][r] = &wireSeries{}
		}
		for run := 0; run < wc.Runs[n]; run++ {
			order := slices.Clone(wireRuns)
			if run%2 == 1 {
				slices.Reverse(order)
			}
			for _, wr := range order {
				res, err := runScenario[scenario.WireResult](ctx, "wire", "-side", string(wr.side), "-mode", wr.enc,
					"-n", strconv.Itoa(n), "-fixture", dir)
				if err != nil {
					s.fail(err)
					continue
				}
				r, d := res.Result, data[n][wr]
				if r.Lists[wr.enc] == 0 || len(r.Lists) != 1 || r.WatchLists != 0 {
					s.fail(fmt.Errorf("wire n=%d %s %s: the server served lists %v (Accept %q) and refused %d watch-lists, want %s lists only", n, wr.side, wr.enc, r.Lists, r.Accepts, r.WatchLists, wr.enc))
					continue
				}
				d.secs.add(r.SyncSeconds)
				d.cpu.add(r.SyncCPUSeconds)
				d.rss.add(float64(r.SyncPeakRSS))
				d.heap.add(r.SyncedPerObject())
				s.logf("wire n=%d %-9s %-8s run %d/%d: %.2fs (cpu %.2fs), peak rss %.1f MB, %.0f B/obj (lists %v, watches %d)",
					n, wr.side, wr.enc, run+1, wc.Runs[n], r.SyncSeconds, r.SyncCPUSeconds, float64(r.SyncPeakRSS)/1e6, r.SyncedPerObject(), r.Lists, r.Watches)
			}
		}
	}
	for _, n := range wc.Sizes {
		d := data[n]
		for _, enc := range []string{scenario.EncJSON, scenario.EncProtobuf} {
			ours, cg := d[wireRun{scenario.Ours, enc}], d[wireRun{scenario.ClientGo, enc}]
			timeTarget := atMost(0.5)
			if enc == scenario.EncProtobuf {
				timeTarget = atMost(0.8)
			}
			bench := fmt.Sprintf("from the wire: %s Pods over HTTP, %s, list+watch", kilo(n), enc)
			s.rows = append(s.rows,
				compareRow("7", bench, "time from Run until the handler saw every add", ours.secs, cg.secs, fmtSecs, timeTarget),
				compareRow("7", bench, "CPU time (user+system, server included) over the same span (info)", ours.cpu, cg.cpu, fmtSecs, nil),
				compareRow("7", bench, "peak RSS of the sync", ours.rss, cg.rss, fmtMB, atMost(0.6)),
				compareRow("7", bench, "heap per cached Pod after sync + GC", ours.heap, cg.heap, fmtBytes, atMost(0.8)),
			)
		}
	}
	s.notes = append(s.notes, "Row 7's \"from the wire\" rows serve Pods with only kube-controller-manager's and the kubelet's managedFields (the kubelet entry names each Pod's IP) from fixture files through a real HTTP server (httptest, loopback TCP) in the measured process to a real client-go v0.37.2 clientset; list+watch on both sides (watch-list off). JSON rows set rest.Config.ContentType to JSON on both sides; protobuf rows leave it unset, and both prefer protobuf as client-go's clientset does for Pods (the server checks which encoding each side's list asked for). Ours lists through runtime/wire (items decoded one at a time from the response stream, no list object) over the clientset's REST client; client-go through the typed clientset.")
}
