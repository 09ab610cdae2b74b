package main

import (
	"context"
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"time"

	"github.com/typedinformer/typedinformer/bench/internal/scenario"
)

// crWireConfig sizes the whole-cache part: object counts, runs per size and
// mode, and how long each read is timed.
type crWireConfig struct {
	Sizes   []int
	Runs    map[int]int
	ReadFor time.Duration
}

func crWireConfigFor(cfg config) crWireConfig {
	if cfg.Name == "smoke" {
		return crWireConfig{Sizes: []int{1_000}, Runs: map[int]int{1_000: 1}, ReadFor: 10 * time.Millisecond}
	}
	runs10k, runs100k := 3, 2
	if cfg.MaxRuns > 0 {
		runs10k, runs100k = min(runs10k, cfg.MaxRuns), min(runs100k, cfg.MaxRuns)
	}
	return crWireConfig{Sizes: []int{10_000, 100_000}, Runs: map[int]int{10_000: runs10k, 100_000: runs100k}, ReadFor: 300 * time.Millisecond}
}

// crWireModes are the whole caches compared: controller-runtime's
// cache.New (the anchor) and crcache.New, default and lean.
var crWireModes = []string{scenario.ModeCRDefault, scenario.ModeCRCache, scenario.ModeCRCacheLean}

// crWireObjects are what each cache caches, one object per process.
var crWireObjects = []string{scenario.CRObjPods, scenario.CRObjFoos, scenario.CRObjUnstructured}

// crWireEncoding is the encoding every cache must have been served obj in:
// protobuf for the built-in typed Pods, JSON for a custom resource and for
// unstructured objects.
func crWireEncoding(obj string) string {
	if obj == scenario.CRObjPods {
		return scenario.EncProtobuf
	}
	return scenario.EncJSON
}

// crWireServed checks from the server's counters that a run read its
// objects through exactly one list or watch-list, in the encoding
// crWireEncoding names.
func crWireServed(obj string, r scenario.CRWireResult) error {
	served := map[string]int{}
	for _, m := range []map[string]int{r.Lists, r.WatchLists} {
		for enc, n := range m {
			served[enc] += n
		}
	}
	if want := map[string]int{crWireEncoding(obj): 1}; !maps.Equal(served, want) {
		return fmt.Errorf("the server served lists %v and watch-lists %v, want one list or watch-list in %s", r.Lists, r.WatchLists, crWireEncoding(obj))
	}
	return nil
}

type crWireSeries struct {
	secs, cpu, heap, rss, listNs, listCPU, listAllocs, getNs, getCPU, getAllocs series
	listItems                                                                   int
}

// runCRWire measures a manager's whole cache, controller-runtime's
// cache.New against crcache.New by default and with its lean informers,
// over typed Pods (protobuf), Foo custom resources (JSON) and unstructured
// Pods (JSON) served from the wire; for typed Pods also List of one
// namespace and Get. Its events/s through source.Kind are measured in
// runCREvents.
func (s *suite) runCRWire(ctx context.Context) {
	wc := crWireConfigFor(s.cfg)
	dir, err := os.MkdirTemp("", "bench-crwire-")
	if err != nil {
		s.fail(err)
		return
	}
	defer os.RemoveAll(dir)
	if err := scenario.WriteWireFixture(dir, scenario.PodsTwoManagers, wc.Sizes...); err != nil {
		s.fail(fmt.Errorf("crwire Pod fixture: %w", err))
		return
	}
	if err := scenario.WriteFooFixture(dir, wc.Sizes...); err != nil {
		s.fail(fmt.Errorf("crwire Foo fixture: %w", err))
		return
	}
	type key struct{ mode, obj string }
	for _, n := range wc.Sizes {
		data := map[key]*crWireSeries{}
		for _, m := range crWireModes {
			for _, o := range crWireObjects {
				data[key{m, o}] = &crWireSeries{}
			}
		}
		for run := 0; run < wc.Runs[n]; run++ {
			modes := slices.Clone(crWireModes)
			if run%2 == 1 {
				slices.Reverse(modes)
			}
			for _, obj := range crWireObjects {
				for _, mode := range modes {
					res, err := runScenario[scenario.CRWireResult](ctx, "crwire", "-side", "ours", "-mode", mode, "-object", obj,
						"-n", strconv.Itoa(n), "-fixture", dir, "-mindur", wc.ReadFor.String())
					if err != nil {
						s.fail(err)
						continue
					}
					r, d := res.Result, data[key{mode, obj}]
					if err := crWireServed(obj, r); err != nil {
						s.fail(fmt.Errorf("crwire %s %s n=%d: %w", mode, obj, n, err))
						continue
					}
					d.secs.add(r.SyncSeconds)
					d.cpu.add(r.SyncCPUSeconds)
					d.heap.add(r.SyncedPerObject())
					d.rss.add(float64(r.SyncPeakRSS))
					if obj == scenario.CRObjPods {
						d.listNs.add(r.ListNs)
						d.listCPU.add(r.ListCPUNs)
						d.listAllocs.add(r.ListAllocs)
						d.getCPU.add(r.GetCPUNs)
						d.getNs.add(r.GetNs)
						d.getAllocs.add(r.GetAllocs)
						d.listItems = r.ListItems
					}
					s.logf("crwire n=%d %-12s %-12s run %d/%d: sync %.2fs (cpu %.2fs), %.0f B/obj, sync peak rss %.1f MB (lists %v, watch-lists %v); List %.0f ns (cpu %.0f ns) %.0f allocs, Get %.0f ns (cpu %.0f ns) %.1f allocs",
						n, obj, mode, run+1, wc.Runs[n], r.SyncSeconds, r.SyncCPUSeconds, r.SyncedPerObject(), float64(r.SyncPeakRSS)/1e6, r.Lists, r.WatchLists,
						r.ListNs, r.ListCPUNs, r.ListAllocs, r.GetNs, r.GetCPUNs, r.GetAllocs)
				}
			}
		}
		get := func(mode, obj string) *crWireSeries { return data[key{mode, obj}] }
		for _, obj := range crWireObjects {
			def, ours, lean := get(scenario.ModeCRDefault, obj), get(scenario.ModeCRCache, obj), get(scenario.ModeCRCacheLean, obj)
			var bench string
			heapTarget, leanHeapTarget, rssTarget := atMost(0.75), atMost(0.3), atMost(0.7)
			switch obj {
			case scenario.CRObjPods:
				bench = fmt.Sprintf("manager cache, %s Pods from the wire (protobuf)", kilo(n))
			case scenario.CRObjFoos:
				bench = fmt.Sprintf("manager cache, %s Foo custom resources from the wire (JSON)", kilo(n))
			case scenario.CRObjUnstructured:
				bench = fmt.Sprintf("manager cache, %s Pods from the wire as unstructured.Unstructured (JSON)", kilo(n))
				heapTarget, leanHeapTarget, rssTarget = atMost(0.8), nil, nil
			}
			s.rows = append(s.rows,
				compareRow("15", bench, "time to synced: crcache.New vs cache.New", ours.secs, def.secs, fmtSecs, atMost(0.5)),
				compareRow("15", bench, "heap per cached object after sync + GC: crcache.New vs cache.New", ours.heap, def.heap, fmtBytes, heapTarget),
				compareRow("15", bench, info("heap per cached object after sync + GC: crcache.New lean vs cache.New", leanHeapTarget), lean.heap, def.heap, fmtBytes, leanHeapTarget),
				compareRow("15", bench, info("peak RSS of the sync: crcache.New vs cache.New", rssTarget), ours.rss, def.rss, fmtMB, rssTarget),
				compareRow("15", bench, "peak RSS of the sync: crcache.New lean vs cache.New (info)", lean.rss, def.rss, fmtMB, nil),
				compareRow("15", bench, "time to synced: crcache.New lean vs cache.New (info)", lean.secs, def.secs, fmtSecs, nil),
				compareRow("15", bench, "CPU time of the process over the sync (server included): crcache.New vs cache.New (info: less sensitive to other load than wall time)", ours.cpu, def.cpu, fmtSecs, nil),
			)
		}
		def, ours := get(scenario.ModeCRDefault, scenario.CRObjPods), get(scenario.ModeCRCache, scenario.CRObjPods)
		bench := fmt.Sprintf("manager cache, reads of %s Pods: List of one namespace (%d Pods), Get of one Pod", kilo(n), def.listItems)
		s.rows = append(s.rows,
			compareRow("15", bench, "time per List of one namespace: crcache.New vs cache.New", ours.listNs, def.listNs, fmtNs, atMost(0.1)),
			compareRow("15", bench, "heap allocations per List of one namespace: crcache.New vs cache.New", ours.listAllocs, def.listAllocs, fmtCount, atMost(0.5)),
			compareRow("15", bench, "CPU time of the process per List of one namespace: crcache.New vs cache.New (info: less sensitive to other load than wall time)", ours.listCPU, def.listCPU, fmtNs, nil),
			compareRow("15", bench, "time per Get: crcache.New vs cache.New", ours.getNs, def.getNs, fmtNs, atMost(0.5)),
			compareRow("15", bench, "heap allocations per Get: crcache.New vs cache.New (info)", ours.getAllocs, def.getAllocs, fmtCount, nil),
			compareRow("15", bench, "CPU time of the process per Get: crcache.New vs cache.New (info)", ours.getCPU, def.getCPU, fmtNs, nil),
		)
	}
	s.notes = append(s.notes, "Row 15 builds a manager's whole cache both ways, controller-runtime v0.25's cache.New (the anchor, client-go's informers over controller-runtime's ListWatch) and crcache.New (the runtime's informers over runtime/wire), each with every option at its default but a static RESTMapper, and crcache.New with its lean informers (cache.Options.NewInformer: clientgo.NewInformerFunc(clientgo.WithLean(lean.Default()))). Each process caches one kind, asked for through GetInformer before Start, from row 7's HTTP server in the same process: row 7's Pods with the two usual managers (typed: protobuf on both sides; unstructured: JSON on both sides, as controller-runtime and crcache ask for unstructured objects), or examples/crd's Foo as JSON (labels, spec data, status, and two managedFields entries: the creating client's, the same document for every Foo, and the controller's status entry). Every run is checked against the server's counters (one list or watch-list in that encoding) and the synced store holds every object. Time runs from Start until the informer's HasSynced, polled every millisecond (WaitForCacheSync, which both sides poll every 100 ms, is called after it); heap is the live heap after sync and GC less the heap before the cache existed, per object; List of one namespace returns every Pod of fixture namespace team-0 (N/100), and Get cycles through 1,000 Pods spread over the fixture, both with their default deep copies, timed for at least the read time of the run. Events/s through source.Kind is row 12's workload with the cache built by crcache.New.")
}

// info marks metric as information only when it has no target.
func info(metric string, t *target) string {
	if t == nil {
		return metric + " (info)"
	}
	return metric
}
