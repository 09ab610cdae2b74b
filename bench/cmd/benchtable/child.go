package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"time"

	"github.com/typedinformer/typedinformer/bench/internal/scenario"
)

// runChild runs one scenario on one side in this process and prints its
// result as JSON on stdout. The parent starts one process per measurement
// and reads that JSON, plus the process's peak RSS from its rusage.
func runChild(args []string) (err error) {
	if len(args) == 0 {
		return fmt.Errorf("child: missing scenario (sync, events, index, queue)")
	}
	name, args := args[0], args[1:]
	fs := flag.NewFlagSet("child "+name, flag.ContinueOnError)
	sideFlag := fs.String("side", "", "ours or client-go")
	n := fs.Int("n", 10_000, "objects (sync, index); bytes per event (bigevents)")
	keys := fs.Int("keys", 10_000, "keys (events)")
	handlers := fs.Int("handlers", 1, "handlers (events)")
	total := fs.Int("total", 1_000_000, "updates (events); events (bigevents)")
	workers := fs.Int("workers", 1, "workers (queue)")
	adds := fs.Int("adds", 1_000_000, "adds (queue)")
	queueKeys := fs.Int("queue-keys", 10_000, "distinct keys the adds cycle over (queue)")
	workIters := fs.Int("work-iters", 0, "iterations of busy work per item, see scenario.Spin (queue)")
	reps := fs.Int("reps", 1, "runs in this process; the one with the median time is reported (queue)")
	minDur := fs.Duration("mindur", 200*time.Millisecond, "minimum measured time per lookup kind (index); per read kind (crwire)")
	mode := fs.String("mode", "", "sync mode (decode): list, watchlist or lean; encoding (wire): json or protobuf; cache mode (crcache, crevents, crwire)")
	wireSync := fs.String("sync", scenario.WireList, "sync mode (wire): list, watchlist, lean or floor")
	wirePods := fs.String("pods", scenario.PodsTwoManagers, "fixture (wire): two (the two usual managers) or rich (up to three more)")
	syncProfile := fs.String("sync-cpuprofile", "", "write a CPU profile of the sync span only to this file (wire)")
	fixtureFile := fs.String("fixture", "", "decode fixture file (decode, crcache); fixture directory (wire, crwire)")
	adapter := fs.Bool("adapter", false, "ours with the Prometheus adapter as informer metrics (events-metrics)")
	shards := fs.Int("shards", 1, "members of the ring (shard)")
	object := fs.String("object", scenario.CRObjPods, "what the cache caches (crwire): pods, foos or unstructured")
	noShare := fs.Bool("no-share", false, "ours keeps each object's managedFields bytes its own (sync; for the bookkeeping row)")
	syncedHeap := fs.String("synced-heapprofile", "", "write a heap profile right after the sync, the cache full, to this file (crwire)")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the scenario to this file (for looking into a row by hand)")
	memProfile := fs.String("memprofile", "", "write a heap profile (every allocation the scenario made, and what is live at its end) to this file (for looking into a row by hand)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	side, err := scenario.ParseSide(*sideFlag)
	if err != nil {
		return fmt.Errorf("child %s: -side: %w", name, err)
	}
	scenario.QuietLogs()
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return fmt.Errorf("child %s: -cpuprofile: %w", name, err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return fmt.Errorf("child %s: -cpuprofile: %w", name, err)
		}
		defer pprof.StopCPUProfile()
	}

	if *syncedHeap != "" {
		// As for -memprofile: allocations of a few hundred bytes per
		// object show up by their call sites.
		runtime.MemProfileRate = 4096
	}
	if *memProfile != "" {
		// Sampling every 4 KB instead of every 512 KB: a row's allocations
		// of a few hundred bytes per object show up by their call sites.
		runtime.MemProfileRate = 4096
		defer func() {
			if werr := writeHeapProfile(*memProfile); werr != nil && err == nil {
				err = fmt.Errorf("child %s: -memprofile: %w", name, werr)
			}
		}()
	}

	var res any
	switch name {
	case "sync":
		res, err = scenario.Sync(side, *n, *noShare)
	case "events":
		res, err = scenario.Events(side, *keys, *handlers, *total)
	case "events-metrics":
		res, err = scenario.EventsMetrics(*adapter, *keys, *handlers, *total)
	case "index":
		res, err = scenario.Index(side, *n, *minDur)
	case "queue":
		res, err = scenario.QueueMedian(side, *workers, *adds, *queueKeys, *workIters, *reps)
	case "shard":
		res, err = scenario.Shard(*n, *shards)
	case "selector":
		res, err = scenario.Selector(*n)
	case "decode":
		res, err = scenario.Decode(side, *mode, *n, *fixtureFile)
	case "wire":
		res, err = scenario.Wire(scenario.WireOptions{Side: side, Enc: *mode, Sync: *wireSync, Pods: *wirePods, N: *n, Dir: *fixtureFile, CPUProfile: *syncProfile})
	case "bigevents":
		body, one, berr := scenario.BigEventsBody(*n, *total)
		if berr != nil {
			return fmt.Errorf("child %s: %w", name, berr)
		}
		res, err = scenario.BigEvents(side, body, one)
	case "dynamic":
		res, err = scenario.Dynamic(side, *wirePods, *n, *fixtureFile)
	case "crcache":
		res, err = scenario.CRCache(*mode, *n, *fixtureFile)
	case "crwire":
		res, err = scenario.CRWire(scenario.CRWireOptions{Mode: *mode, Object: *object, N: *n, Dir: *fixtureFile, ReadFor: *minDur, HeapProfile: *syncedHeap})
	case "writetracker":
		res, err = scenario.WriteTracker(*n, *minDur, *total)
	case "crevents":
		res, err = scenario.CREvents(*mode, *keys, *handlers, *total)
	default:
		return fmt.Errorf("child: unknown scenario %q", name)
	}
	if err != nil {
		return fmt.Errorf("child %s: %w", name, err)
	}
	return json.NewEncoder(os.Stdout).Encode(res)
}

// writeHeapProfile writes the heap profile to path, after a GC so that its
// live figures are current.
func writeHeapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	runtime.GC()
	if err := pprof.WriteHeapProfile(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
