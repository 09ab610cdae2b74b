package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/typedinformer/typedinformer/bench/internal/scenario"
)

// config sizes every part of a suite run.
type config struct {
	Name        string
	SyncRuns    int   // runs per side at the largest size
	SyncRunsMin int   // runs per side at the smaller sizes, which are cheap
	SyncCompare []int // sizes of row 1
	SyncScaling []int // sizes of row 6 (ascending)
	EventRuns   int
	EventKeys   int
	EventTotal  int
	Handlers    []int
	IndexRuns   int
	IndexN      int
	IndexMinDur time.Duration
	QueueRuns   int
	QueueReps   int // runs inside each child process; the median one counts
	QueueAdds   int
	QueueKeys   int
	QueueWork   time.Duration // busy work per item in the work variant
	Workers     []int
	GenRuns     int
	GenPackages int // 0: every +genclient package
	MaxRuns     int // set by capRuns: at most this many runs per side and cell of any row (0: no cap)
}

func fullConfig() config {
	return config{
		Name:        "full",
		SyncRuns:    5,
		SyncRunsMin: 9,
		SyncCompare: []int{10_000, 100_000},
		SyncScaling: []int{1_000, 10_000, 100_000},
		EventRuns:   3,
		EventKeys:   10_000,
		EventTotal:  300_000,
		Handlers:    []int{1, 2, 4},
		IndexRuns:   5,
		IndexN:      100_000,
		IndexMinDur: 300 * time.Millisecond,
		// On 2 busy cores a single run, tens of milliseconds without work,
		// varies by 2x: 9 processes per side and cell, each reporting the
		// median of 5 runs.
		QueueRuns: 9,
		QueueReps: 5,
		QueueAdds: 1_000_000,
		QueueKeys: 10_000,
		QueueWork: 5 * time.Microsecond,
		Workers:   []int{1, 4, 16},
		GenRuns:   3,
	}
}

// smokeConfig runs every scenario once on tiny inputs: it proves the suite
// builds and runs, and its numbers mean nothing.
func smokeConfig() config {
	return config{
		Name:        "smoke",
		SyncRuns:    1,
		SyncRunsMin: 1,
		SyncCompare: []int{1_000},
		SyncScaling: []int{200, 1_000},
		EventRuns:   1,
		EventKeys:   500,
		EventTotal:  5_000,
		Handlers:    []int{1, 4},
		IndexRuns:   1,
		IndexN:      1_000,
		IndexMinDur: time.Millisecond,
		QueueRuns:   1,
		QueueReps:   1,
		QueueAdds:   4_000,
		QueueKeys:   500,
		QueueWork:   5 * time.Microsecond,
		Workers:     []int{1, 4, 16},
		GenRuns:     1,
		GenPackages: 2,
	}
}

// suite runs the measurements and accumulates table rows, notes and errors.
type suite struct {
	cfg   config
	tools genTools
	rows  []row
	notes []string
	errs  []error
	log   io.Writer
	// chart collects the medians the report's charts are drawn from.
	chart chartData
	// queueWorkIters is the calibrated busy work per item of row 4.
	queueWorkIters int
	// parts are the parts to run; nil: all of them.
	parts []string
}

// partNames are the suite's parts in table order, as -only names them.
var partNames = []string{"sync", "shard", "decode", "wire", "bigevents", "events", "events-metrics", "index", "queue", "generator", "genclient", "genhelpers", "controller-runtime", "crcache", "dynamic", "writetracker", "selector"}

// parseParts parses -only: a comma-separated subset of partNames, or ""
// for all of them.
func parseParts(only string) ([]string, error) {
	if only == "" {
		return nil, nil
	}
	var parts []string
	for _, p := range strings.Split(only, ",") {
		p = strings.TrimSpace(p)
		if !slices.Contains(partNames, p) {
			return nil, fmt.Errorf("-only: unknown part %q (want some of %s)", p, strings.Join(partNames, ","))
		}
		parts = append(parts, p)
	}
	return parts, nil
}

// capRuns returns c with every per-side run count at most n (n <= 0: c
// unchanged). What each run measures stays the same.
func (c config) capRuns(n int) config {
	if n <= 0 {
		return c
	}
	for _, r := range []*int{&c.SyncRuns, &c.SyncRunsMin, &c.EventRuns, &c.IndexRuns, &c.QueueRuns, &c.GenRuns} {
		*r = min(*r, n)
	}
	c.MaxRuns = n
	return c
}

func (s *suite) logf(format string, args ...any) {
	fmt.Fprintf(s.log, "%s  "+format+"\n", append([]any{time.Now().Format("15:04:05")}, args...)...)
}

func (s *suite) fail(err error) {
	s.logf("ERROR: %v", err)
	s.errs = append(s.errs, err)
}

// sides returns both sides, the first one alternating with run so that
// neither always goes first.
func sides(run int) []scenario.Side {
	if run%2 == 0 {
		return []scenario.Side{scenario.Ours, scenario.ClientGo}
	}
	return []scenario.Side{scenario.ClientGo, scenario.Ours}
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

func kilo(n int) string {
	if n >= 1_000_000 && n%1_000_000 == 0 {
		return strconv.Itoa(n/1_000_000) + "M"
	}
	if n >= 1000 && n%1000 == 0 {
		return strconv.Itoa(n/1000) + "k"
	}
	return strconv.Itoa(n)
}

type syncSeries struct {
	secs, peak, peakBeyond, peakTotal, rss, retained, bookkeeping, secsPerObj, peakPerObj series
}

// syncPeakTarget bounds the whole peak heap of a sync against client-go's.
// Both sides copy every listed item (a corev1.Pod copy is 1280 B), which
// alone is about two thirds of client-go's peak per object; the row beyond
// those copies carries the ≤ 0.5x target for what the informer itself adds.
const syncPeakTarget = 0.85

func (s *suite) runSync(ctx context.Context) {
	sizes := slices.Clone(s.cfg.SyncScaling)
	for _, n := range s.cfg.SyncCompare {
		if !slices.Contains(sizes, n) {
			sizes = append(sizes, n)
		}
	}
	slices.Sort(sizes)
	data := map[int]map[scenario.Side]*syncSeries{}
	for _, n := range sizes {
		data[n] = map[scenario.Side]*syncSeries{scenario.Ours: {}, scenario.ClientGo: {}}
		runs := s.cfg.SyncRunsMin
		if n == sizes[len(sizes)-1] {
			runs = s.cfg.SyncRuns
		}
		for run := 0; run < runs; run++ {
			for _, side := range sides(run) {
				res, err := runScenario[scenario.SyncResult](ctx, "sync", "-side", string(side), "-n", strconv.Itoa(n))
				if err != nil {
					s.fail(err)
					continue
				}
				r, d := res.Result, data[n][side]
				d.secs.add(r.Seconds)
				d.peak.add(r.PeakGrowth())
				d.peakBeyond.add(r.PeakBeyondCopies())
				d.peakTotal.add(float64(r.PeakHeap))
				d.rss.add(float64(res.MaxRSS))
				d.retained.add(r.RetainedPerObject())
				d.secsPerObj.add(r.Seconds / float64(n))
				d.peakPerObj.add(r.PeakGrowth() / float64(n))
				bk := r.BookkeepingPerObject()
				if side == scenario.Ours {
					// Ours holds equal managedFields documents once by
					// default, so its objects are smaller than the served
					// ones and the subtraction would go negative: its
					// bookkeeping comes from a run with that sharing off.
					ns, err := runScenario[scenario.SyncResult](ctx, "sync", "-side", string(side), "-n", strconv.Itoa(n), "-no-share")
					if err != nil {
						s.fail(err)
						continue
					}
					bk = ns.Result.BookkeepingPerObject()
				}
				d.bookkeeping.add(bk)
				s.logf("sync n=%d %-9s run %d/%d: %.3fs, peak heap +%.1f MB, rss %.1f MB, retained %.0f B/obj (list live), bookkeeping %.0f B/obj (list dropped)",
					n, side, run+1, runs, r.Seconds, r.PeakGrowth()/1e6, float64(res.MaxRSS)/1e6, r.RetainedPerObject(), bk)
			}
		}
	}
	for _, n := range s.cfg.SyncCompare {
		o, a := data[n][scenario.Ours], data[n][scenario.ClientGo]
		bench := "initial sync, " + kilo(n) + " Pods"
		s.rows = append(s.rows,
			compareRow("1", bench, "time to HasSynced + handler saw all", o.secs, a.secs, fmtMs, atMost(0.5)),
			compareRow("1", bench, "peak heap above the served list (sampled HeapAlloc)", o.peak, a.peak, fmtMB, atMost(syncPeakTarget)),
			compareRow("1", bench, "peak heap per object beyond the one copy of each item both sides make", o.peakBeyond, a.peakBeyond, fmtBytes, atMost(0.5)),
			compareRow("1", bench, "peak heap of the process, list included (info)", o.peakTotal, a.peakTotal, fmtMB, nil),
			compareRow("1", bench, "peak RSS of the process, list included (info)", o.rss, a.rss, fmtMB, nil),
			compareRow("1", bench, "bookkeeping bytes per object, served list dropped (ours: managedFields sharing off)", o.bookkeeping, a.bookkeeping, fmtBytes, atMost(0.5)),
			compareRow("1", bench, "bytes retained per object beyond the list, list live (info, old row)", o.retained, a.retained, fmtBytes, nil),
		)
	}
	for _, n := range s.cfg.SyncScaling {
		o, a := data[n][scenario.Ours], data[n][scenario.ClientGo]
		bench := "scaling, " + kilo(n) + " Pods"
		s.rows = append(s.rows,
			compareRow("6", bench, "sync time per object", o.secsPerObj, a.secsPerObj, fmtUs, nil),
			compareRow("6", bench, "peak heap growth per object", o.peakPerObj, a.peakPerObj, fmtBytes, nil),
			compareRow("6", bench, "bookkeeping bytes per object, list dropped", o.bookkeeping, a.bookkeeping, fmtBytes, nil),
		)
		s.chart.syncTime = append(s.chart.syncTime, point(float64(n), o.secsPerObj, a.secsPerObj))
		s.chart.syncPeak = append(s.chart.syncPeak, point(float64(n), o.peakPerObj, a.peakPerObj))
		s.chart.syncBookkeeping = append(s.chart.syncBookkeeping, point(float64(n), o.bookkeeping, a.bookkeeping))
	}
	if len(s.cfg.SyncScaling) >= 2 {
		lo, hi := s.cfg.SyncScaling[len(s.cfg.SyncScaling)-2], s.cfg.SyncScaling[len(s.cfg.SyncScaling)-1]
		bench := "scaling, " + kilo(lo) + " → " + kilo(hi)
		for _, m := range []struct {
			metric string
			pick   func(*syncSeries) series
		}{
			{"time per object, " + kilo(hi) + " ÷ " + kilo(lo), func(d *syncSeries) series { return d.secsPerObj }},
			{"peak heap growth per object, " + kilo(hi) + " ÷ " + kilo(lo), func(d *syncSeries) series { return d.peakPerObj }},
		} {
			s.rows = append(s.rows, linearityRow(bench, m.metric,
				m.pick(data[lo][scenario.Ours]), m.pick(data[hi][scenario.Ours]),
				m.pick(data[lo][scenario.ClientGo]), m.pick(data[hi][scenario.ClientGo])))
		}
	}
}

// linearityLimit is how much the per-object cost may grow from the
// second-largest to the largest size for the growth to count as linear.
const linearityLimit = 1.5

func linearityRow(bench, metric string, oursLo, oursHi, anchorLo, anchorHi series) row {
	r := row{Num: "6", Bench: bench, Metric: metric, Ratio: "—",
		Target: fmt.Sprintf("ours ≤ %.1f (linear)", linearityLimit), Ours: "no data", Anchor: "no data", Result: "not measured"}
	if anchorLo.ok() && anchorHi.ok() {
		r.Anchor = fmt.Sprintf("%.2f", anchorHi.median()/anchorLo.median())
	}
	if oursLo.ok() && oursHi.ok() {
		f := oursHi.median() / oursLo.median()
		r.Ours = fmt.Sprintf("%.2f", f)
		if f <= linearityLimit {
			r.Result = "met"
		} else {
			r.Result = "**MISSED**"
		}
	}
	return r
}

func (s *suite) runEvents(ctx context.Context) {
	for _, h := range s.cfg.Handlers {
		eps := map[scenario.Side]*series{scenario.Ours: {}, scenario.ClientGo: {}}
		ape := map[scenario.Side]*series{scenario.Ours: {}, scenario.ClientGo: {}}
		for run := 0; run < s.cfg.EventRuns; run++ {
			for _, side := range sides(run) {
				res, err := runScenario[scenario.EventsResult](ctx, "events", "-side", string(side),
					"-keys", strconv.Itoa(s.cfg.EventKeys), "-handlers", strconv.Itoa(h), "-total", strconv.Itoa(s.cfg.EventTotal))
				if err != nil {
					s.fail(err)
					continue
				}
				r := res.Result
				eps[side].add(r.EventsPerSecond())
				ape[side].add(r.AllocsPerEvent())
				s.logf("events handlers=%d %-9s run %d/%d: %.3fs, %.0f events/s, %.2f allocs/event",
					h, side, run+1, s.cfg.EventRuns, r.Seconds, r.EventsPerSecond(), r.AllocsPerEvent())
			}
		}
		bench := fmt.Sprintf("events, %s distinct updates over %s keys, %s", kilo(s.cfg.EventTotal), kilo(s.cfg.EventKeys), plural(h, "handler"))
		s.chart.events = append(s.chart.events, point(float64(h), *eps[scenario.Ours], *eps[scenario.ClientGo]))
		s.rows = append(s.rows,
			compareRow("2", bench, "updates/s delivered to every handler", *eps[scenario.Ours], *eps[scenario.ClientGo], fmtRate, atLeast(3)),
			compareRow("2", bench, "heap allocations per update", *ape[scenario.Ours], *ape[scenario.ClientGo], fmtCount, atMost(0.33)),
		)
	}
}

func (s *suite) runIndex(ctx context.Context) {
	type key struct {
		side   scenario.Side
		index  string
		buffer bool // ours through AppendByIndex into a reused buffer
	}
	ns, allocs, lookups := map[key]*series{}, map[key]*series{}, map[key]*series{}
	hits, values := map[string]int{}, map[string]int{}
	var order []string
	for run := 0; run < s.cfg.IndexRuns; run++ {
		for _, side := range sides(run) {
			res, err := runScenario[[]scenario.IndexResult](ctx, "index", "-side", string(side),
				"-n", strconv.Itoa(s.cfg.IndexN), "-mindur", s.cfg.IndexMinDur.String())
			if err != nil {
				s.fail(err)
				continue
			}
			for _, r := range res.Result {
				k := key{side, r.Index, r.Buffer}
				if ns[k] == nil {
					ns[k], allocs[k], lookups[k] = &series{}, &series{}, &series{}
				}
				if !slices.Contains(order, r.Index) {
					order = append(order, r.Index)
				}
				hits[r.Index] = r.Hits
				values[r.Index] = r.Values
				ns[k].add(r.NsPerOp)
				allocs[k].add(r.AllocsPerOp)
				lookups[k].add(float64(r.Lookups))
				via := "ByIndex"
				if r.Buffer {
					via = "AppendByIndex"
				}
				s.logf("index %-9s %-9s %-13s run %d/%d: %.0f ns/op, %.4f allocs/op over %d lookups, %d hits",
					r.Index, side, via, run+1, s.cfg.IndexRuns, r.NsPerOp, r.AllocsPerOp, r.Lookups, r.Hits)
			}
		}
	}
	get := func(m map[key]*series, side scenario.Side, index string, buffer bool) series {
		if p := m[key{side, index, buffer}]; p != nil {
			return *p
		}
		return nil
	}
	for _, index := range order {
		bench := fmt.Sprintf("ByIndex %q, %s of %s objects, cycling all %d values", index, strconv.Itoa(hits[index]), kilo(s.cfg.IndexN), values[index])
		cg := func(m map[key]*series) series { return get(m, scenario.ClientGo, index, false) }
		s.rows = append(s.rows,
			compareRow("3", bench, "time per lookup, ours AppendByIndex into the caller's buffer", get(ns, scenario.Ours, index, true), cg(ns), fmtNs, atMost(0.5)),
			zeroAllocRow("3", bench, get(allocs, scenario.Ours, index, true), cg(allocs), get(lookups, scenario.Ours, index, true)),
			compareRow("3", bench, "time per lookup, ours plain ByIndex (new slice per call)", get(ns, scenario.Ours, index, false), cg(ns), fmtNs, atMost(0.5)),
			compareRow("3", bench, "allocations per lookup, ours plain ByIndex (info)", get(allocs, scenario.Ours, index, false), cg(allocs), fmtCount, nil),
		)
	}
}

func (s *suite) runQueue(ctx context.Context) {
	if !scenario.OursQueueAvailable() {
		for _, w := range s.cfg.Workers {
			s.rows = append(s.rows, row{Num: "4", Bench: "workqueue, " + plural(w, "worker"), Metric: "time to drain the adds",
				Ours: "not built", Anchor: "not run", Ratio: "—", Target: atMost(1).String(), Result: "not measured"})
		}
		s.notes = append(s.notes, "Row 4 is missing: this build has no runtime/workqueue to measure.")
		return
	}
	// The busy work per item is calibrated once, here, and both sides get
	// the same iteration count.
	iters := scenario.CalibrateSpin(s.cfg.QueueWork)
	s.logf("queue: %s of work per item is %d iterations of scenario.Spin", s.cfg.QueueWork, iters)
	s.queueWorkIters = iters
	s.chart.queueWorkLabel = s.cfg.QueueWork.String()
	for _, variant := range []struct {
		iters int
		label string
	}{{iters, fmt.Sprintf("%s work per item", s.cfg.QueueWork)}, {0, "no work"}} {
		for _, w := range s.cfg.Workers {
			secs := map[scenario.Side]*series{scenario.Ours: {}, scenario.ClientGo: {}}
			proc := map[scenario.Side]*series{scenario.Ours: {}, scenario.ClientGo: {}}
			rate := map[scenario.Side]*series{scenario.Ours: {}, scenario.ClientGo: {}}
			for run := 0; run < s.cfg.QueueRuns; run++ {
				for _, side := range sides(run) {
					res, err := runScenario[scenario.QueueResult](ctx, "queue", "-side", string(side),
						"-workers", strconv.Itoa(w), "-adds", strconv.Itoa(s.cfg.QueueAdds),
						"-queue-keys", strconv.Itoa(s.cfg.QueueKeys), "-work-iters", strconv.Itoa(variant.iters),
						"-reps", strconv.Itoa(s.cfg.QueueReps))
					if err != nil {
						s.fail(err)
						continue
					}
					r := res.Result
					secs[side].add(r.Seconds)
					proc[side].add(float64(r.Processed))
					rate[side].add(r.DrainRate())
					s.logf("queue %s workers=%d %-9s run %d/%d: drained in %.3fs (%.0f adds/s; the producer's adds took %.3fs), %d items processed, %.2f allocs/add",
						variant.label, w, side, run+1, s.cfg.QueueRuns, r.Seconds, r.DrainRate(), r.AddSeconds, r.Processed, r.AllocsPerAdd())
				}
			}
			bench := fmt.Sprintf("workqueue, %s adds over %s keys, %s, %s", kilo(s.cfg.QueueAdds), kilo(s.cfg.QueueKeys), variant.label, plural(w, "worker"))
			if variant.iters > 0 {
				s.rows = append(s.rows,
					compareRow("4", bench, "time to drain the adds", *secs[scenario.Ours], *secs[scenario.ClientGo], fmtMs, atMost(1)),
					compareRow("4", bench, "items processed (reconciles)", *proc[scenario.Ours], *proc[scenario.ClientGo], fmtItems, atMost(1)))
				s.chart.queueWork = append(s.chart.queueWork, point(float64(w), *rate[scenario.Ours], *rate[scenario.ClientGo]))
				s.chart.queueProcessed = append(s.chart.queueProcessed, point(float64(w), *proc[scenario.Ours], *proc[scenario.ClientGo]))
			} else {
				s.rows = append(s.rows,
					compareRow("4", bench, "adds drained per second", *rate[scenario.Ours], *rate[scenario.ClientGo], fmtRate, atLeast(1.5)),
					compareRow("4", bench, "items processed (info)", *proc[scenario.Ours], *proc[scenario.ClientGo], fmtItems, nil))
				s.chart.queueNoWork = append(s.chart.queueNoWork, point(float64(w), *rate[scenario.Ours], *rate[scenario.ClientGo]))
			}
		}
	}
}

// run executes every part of the suite in table order.
func (s *suite) run(ctx context.Context) {
	for _, p := range []struct {
		name string
		run  func(context.Context)
	}{
		{"sync", s.runSync}, {"shard", s.runShard}, {"decode", s.runDecode}, {"wire", s.runWire}, {"bigevents", s.runBigEvents}, {"events", s.runEvents}, {"events-metrics", s.runEventsMetrics},
		{"index", s.runIndex}, {"queue", s.runQueue}, {"generator", s.runGenerator}, {"genclient", s.runGenClient}, {"genhelpers", s.runGenHelpers}, {"controller-runtime", s.runCRCache}, {"crcache", s.runCRWire}, {"dynamic", s.runDynamic},
		{"writetracker", s.runWriteTracker}, {"selector", s.runSelector},
	} {
		if s.parts != nil && !slices.Contains(s.parts, p.name) {
			continue
		}
		start := time.Now()
		s.logf("suite %q: %s", s.cfg.Name, p.name)
		p.run(ctx)
		s.logf("suite %q: %s took %s", s.cfg.Name, p.name, time.Since(start).Round(time.Second))
	}
	slices.SortStableFunc(s.rows, func(a, b row) int { return compareNum(a.Num, b.Num) })
}

// ranAny reports whether the suite ran any of the parts named.
func (s *suite) ranAny(parts ...string) bool {
	if s.parts == nil {
		return true
	}
	for _, p := range parts {
		if slices.Contains(s.parts, p) {
			return true
		}
	}
	return false
}

func compareNum(a, b string) int {
	x, _ := strconv.Atoi(a)
	y, _ := strconv.Atoi(b)
	return x - y
}

// absPath resolves p against the working directory, leaving "" alone.
func absPath(p string) (string, error) {
	if p == "" {
		return "", nil
	}
	return filepath.Abs(p)
}
