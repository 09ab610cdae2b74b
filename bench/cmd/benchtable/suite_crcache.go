package main

import (
	"context"
	"fmt"
	"slices"
	"strconv"

	"github.com/typedinformer/typedinformer/bench/internal/scenario"
)

// crModes are the controller-runtime cache's informer choices row 12
// compares; client-go's (controller-runtime's default) is the anchor.
var crModes = []string{scenario.ModeCRDefault, scenario.ModeCROurs, scenario.ModeCROursLean}

type crSeries struct{ heap, rss, secs, rate series }

// runCRCache measures row 12, a controller-runtime cache (as a manager
// builds it) with its default informers and with ours through
// cache.Options.NewInformer: heap, time to synced and peak RSS over Pods
// decoded from the wire by controller-runtime's own REST client, then
// events/s through source.Kind over already-decoded objects (row 2's
// workload).
func (s *suite) runCRCache(ctx context.Context) {
	dc := decodeConfigFor(s.cfg)
	path, cleanup, err := writeFixture("crcache", scenario.WriteTwoManagerFixture, slices.Max(dc.Sizes))
	if err != nil {
		s.fail(err)
		return
	}
	defer cleanup()
	for _, n := range dc.Sizes {
		data := map[string]*crSeries{}
		for _, m := range crModes {
			data[m] = &crSeries{}
		}
		for run := 0; run < dc.Runs[n]; run++ {
			for _, mode := range crOrder(run) {
				res, err := runScenario[scenario.CRCacheResult](ctx, "crcache", "-side", "ours", "-mode", mode,
					"-n", strconv.Itoa(n), "-fixture", path)
				if err != nil {
					s.fail(err)
					continue
				}
				r, d := res.Result, data[mode]
				d.heap.add(r.SyncedPerObject())
				d.rss.add(float64(r.SyncPeakRSS))
				d.secs.add(r.SyncSeconds)
				d.rate.add(r.EventsPerSecond())
				s.logf("crcache n=%d %-12s run %d/%d: sync %.2fs, %.0f B/obj, sync peak rss %.1f MB, %.0f updates/s",
					n, mode, run+1, dc.Runs[n], r.SyncSeconds, r.SyncedPerObject(), float64(r.SyncPeakRSS)/1e6, r.EventsPerSecond())
			}
		}
		def, ours, lean := data[scenario.ModeCRDefault], data[scenario.ModeCROurs], data[scenario.ModeCROursLean]
		bench := "controller-runtime cache, Pods from the wire, " + kilo(n)
		s.rows = append(s.rows,
			compareRow("12", bench, "heap per cached Pod after sync + GC: ours lean vs controller-runtime's default", lean.heap, def.heap, fmtBytes, atMost(0.35)),
			compareRow("12", bench, "heap per cached Pod after sync + GC: both default (info)", ours.heap, def.heap, fmtBytes, nil),
			compareRow("12", bench, "time to synced: ours lean vs default (info)", lean.secs, def.secs, fmtSecs, nil),
			compareRow("12", bench, "time to synced: both default (info)", ours.secs, def.secs, fmtSecs, nil),
			compareRow("12", bench, "peak RSS of the sync: ours lean vs default (info)", lean.rss, def.rss, fmtMB, nil),
			compareRow("12", bench, "peak RSS of the sync: both default (info)", ours.rss, def.rss, fmtMB, nil),
			compareRow("12", bench, "update events/s from the wire through source.Kind, both default (info: decoding dominates)", ours.rate, def.rate, fmtRate, nil),
		)
	}
	s.runCREvents(ctx)
	s.notes = append(s.notes, "Row 12 builds a controller-runtime v0.25 cache as a manager does (cache.New with a static RESTMapper). Its heap, time and RSS rows cache Pods with the two managedFields entries every Pod of a ReplicaSet has (kube-controller-manager's, shared by a template; the kubelet's, naming the Pod's IP), served as API server JSON through an in-process transport to controller-runtime's own REST client, so both sides decode the same bytes the same way; its events/s from the wire replace 90% of the Pods through watch MODIFIED events, decoding dominating both sides. Its events/s rows with a target feed row 2's already-decoded Pods and updates: cache.Options.NewInformer hands every side the same in-memory ListerWatcher in place of controller-runtime's, and a counting handler behind source.Kind (one per handler, as a controller's Watches) sees every add and update. The anchor is controller-runtime's default informer (client-go's); ours is clientgo.NewSharedIndexInformer, lean is clientgo.WithLean(lean.Default()).")
}

// runCREvents measures row 12's events/s over already-decoded objects: row
// 2's keys and updates, one counting handler behind source.Kind; and the
// same through a cache built by crcache.New.
func (s *suite) runCREvents(ctx context.Context) {
	modes := append(slices.Clone(crModes), scenario.ModeCRCache, scenario.ModeCRCacheLean)
	data := map[string]*series{}
	for _, m := range modes {
		data[m] = &series{}
	}
	for run := 0; run < s.cfg.EventRuns; run++ {
		order := slices.Clone(modes)
		if run%2 == 1 {
			slices.Reverse(order)
		}
		for _, mode := range order {
			res, err := runScenario[scenario.CREventsResult](ctx, "crevents", "-side", "ours", "-mode", mode,
				"-keys", strconv.Itoa(s.cfg.EventKeys), "-handlers", "1", "-total", strconv.Itoa(s.cfg.EventTotal))
			if err != nil {
				s.fail(err)
				continue
			}
			r := res.Result
			data[mode].add(r.EventsPerSecond())
			s.logf("crevents %-12s run %d/%d: %.3fs, %.0f events/s, %.2f allocs/event",
				mode, run+1, s.cfg.EventRuns, r.Seconds, r.EventsPerSecond(), r.AllocsPerEvent())
		}
	}
	def := data[scenario.ModeCRDefault]
	bench := fmt.Sprintf("controller-runtime cache, decoded Pods, %s distinct updates over %s keys", kilo(s.cfg.EventTotal), kilo(s.cfg.EventKeys))
	s.rows = append(s.rows,
		compareRow("12", bench, "update events/s through source.Kind to a counting handler: both default", *data[scenario.ModeCROurs], *def, fmtRate, atLeast(2)),
		compareRow("12", bench, "update events/s through source.Kind to a counting handler: ours lean vs default (info: the lean transform compares each update's containers with the shared ones, about 20 µs that a decode from the wire hides)", *data[scenario.ModeCROursLean], *def, fmtRate, nil),
		compareRow("15", bench, "update events/s through source.Kind to a counting handler: crcache.New vs cache.New", *data[scenario.ModeCRCache], *def, fmtRate, atLeast(2)),
		compareRow("15", bench, "update events/s through source.Kind to a counting handler: crcache.New lean vs cache.New (info)", *data[scenario.ModeCRCacheLean], *def, fmtRate, nil),
	)
}

// crOrder is the order of crModes in run number run: reversed every other
// run, so that neither side always runs first.
func crOrder(run int) []string {
	order := slices.Clone(crModes)
	if run%2 == 1 {
		slices.Reverse(order)
	}
	return order
}
