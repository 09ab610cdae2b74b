package soak

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"
)

// Report is what a run found. Passed is false when any check failed.
type Report struct {
	Seed     uint64 `json:"seed"`
	Duration string `json:"duration"`
	WorkDir  string `json:"workDir"`
	Passed   bool   `json:"passed"`
	// Failures say what failed, one line each.
	Failures []string `json:"failures,omitempty"`

	Faults    map[string]int   `json:"faults"`
	FaultLog  []FaultRecord    `json:"faultLog"`
	Quiescent []QuiescentPoint `json:"quiescentPoints"`

	QuiescentPassed int `json:"quiescentPassed"`
	Divergences     int `json:"divergences"`
	// DoubleReconciles are reconciles of one key by two replicas that
	// overlap in time, neither of them across a pause of its replica.
	DoubleReconciles []string `json:"doubleReconciles,omitempty"`
	// PausedInFlight are overlaps where one reconcile was in flight when
	// its replica was SIGSTOPped: it resumes after its Lease expired, and
	// nothing but a fencing token checked by the server could stop its
	// write. Reported, not failed.
	PausedInFlight []string `json:"pausedInFlight,omitempty"`
	// Unfenced are reconciles a replica started while its Lease, by the
	// renewals seen on the server, had expired.
	Unfenced []string `json:"unfenced,omitempty"`
	// StaleReads are lister reads a replica made that returned something
	// older than a write of its own that had returned before the read
	// began (the controller's read checker traces them).
	StaleReads []string `json:"staleReads,omitempty"`
	// LeakSlopes are per replica incarnation, per minute, over its
	// quiescent points.
	LeakSlopes map[string]Slope `json:"leakSlopes"`
	Latency    Latencies        `json:"latency"`
	Writes     int64            `json:"writes"`
	WriteFails int64            `json:"writeFailures"`
	Reconciles int              `json:"reconciles"`
}

// Slope is the least-squares growth per minute.
type Slope struct {
	GoroutinesPerMin float64 `json:"goroutinesPerMin"`
	HeapBytesPerMin  float64 `json:"heapBytesPerMin"`
	ConnsPerMin      float64 `json:"connsPerMin"`
	Points           int     `json:"points"`
}

// Latencies are percentiles over the whole run. Event latency is from the
// load generator's write to the Foo informer's handler, over updates: an
// add may be an old object entering a sharded replica's scope.
type Latencies struct {
	Events       int           `json:"events"`
	EventP50     time.Duration `json:"eventP50"`
	EventP99     time.Duration `json:"eventP99"`
	EventMax     time.Duration `json:"eventMax"`
	Reconciles   int           `json:"reconciles"`
	ReconcileP50 time.Duration `json:"reconcileP50"`
	ReconcileP99 time.Duration `json:"reconcileP99"`
}

// traceRecord mirrors a line of the controller's --trace-file.
type traceRecord struct {
	Kind            string `json:"kind"`
	Op              string `json:"op,omitempty"`
	Replica         string `json:"replica"`
	Key             string `json:"key"`
	Start           int64  `json:"start,omitempty"`
	End             int64  `json:"end,omitempty"`
	ResourceVersion string `json:"resourceVersion,omitempty"`
	LatencyNanos    int64  `json:"latencyNanos,omitempty"`
	At              int64  `json:"at,omitempty"`
	Error           string `json:"error,omitempty"`
}

// reconcileSpan is one reconcile of a key by a replica.
type reconcileSpan struct {
	replica    string
	group      string
	key        string
	start, end int64
	// open: the replica died before it ended; end is its exit.
	open bool
}

func readTrace(path string) ([]traceRecord, error) {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []traceRecord
	s := bufio.NewScanner(f)
	for s.Scan() {
		var rec traceRecord
		if err := json.Unmarshal(s.Bytes(), &rec); err != nil {
			continue // the last line of a replica killed mid-write
		}
		out = append(out, rec)
	}
	return out, s.Err()
}

// spans pairs a replica's starts and ends; a start never ended is closed
// at the replica's next exit (or now).
func (rep *replica) spans(recs []traceRecord, now int64) []reconcileSpan {
	rep.mu.Lock()
	exits := slices.Clone(rep.exits)
	rep.mu.Unlock()
	open := map[string]int64{}
	var out []reconcileSpan
	for _, rec := range recs {
		switch rec.Kind {
		case "start":
			if prev, ok := open[rec.Key]; ok {
				// An earlier incarnation's start, never ended.
				out = append(out, reconcileSpan{rep.name, rep.group, rec.Key, prev, exitAfter(exits, prev, now), true})
			}
			open[rec.Key] = rec.Start
		case "end":
			if rec.Start != 0 {
				out = append(out, reconcileSpan{rep.name, rep.group, rec.Key, rec.Start, rec.End, false})
			}
			delete(open, rec.Key)
		}
	}
	for k, s := range open {
		out = append(out, reconcileSpan{rep.name, rep.group, k, s, exitAfter(exits, s, now), true})
	}
	return out
}

func exitAfter(exits []time.Time, t, now int64) int64 {
	for _, e := range exits {
		if e.UnixNano() >= t {
			return e.UnixNano()
		}
	}
	return now
}

func (rep *replica) pausedDuring(s reconcileSpan) bool {
	rep.mu.Lock()
	defer rep.mu.Unlock()
	for _, p := range rep.pauses {
		to := p.To
		if to == 0 {
			to = s.end
		}
		if p.From <= s.end && s.start <= to {
			return true
		}
	}
	return false
}

// finish analyses the traces and settles the verdict.
func (r *run) finish() {
	rep := r.report
	now := time.Now().UnixNano()
	var spans []reconcileSpan
	var events, recLat []time.Duration
	byName := map[string]*replica{}
	for _, p := range slices.Concat(r.replicas, r.retired) {
		byName[p.name] = p
		recs, err := readTrace(p.trace)
		if err != nil {
			rep.Failures = append(rep.Failures, fmt.Sprintf("reading %s: %v", p.trace, err))
		}
		for _, rec := range recs {
			switch {
			case rec.Kind == "event" && rec.Op == "update":
				events = append(events, time.Duration(rec.LatencyNanos))
			case rec.Kind == "stale":
				rep.StaleReads = append(rep.StaleReads, fmt.Sprintf("%s read %s at %s: %s", rec.Replica, rec.Key, stamp3(rec.At), rec.Error))
			}
		}
		ss := p.spans(recs, now)
		for _, s := range ss {
			if !s.open {
				recLat = append(recLat, time.Duration(s.end-s.start))
			}
			if r.leases != nil && !r.leases.heldAt(s.replica, time.Unix(0, s.start)) {
				rep.Unfenced = append(rep.Unfenced, fmt.Sprintf("%s started %s at %s without a valid Lease",
					s.replica, s.key, time.Unix(0, s.start).Format(time.RFC3339Nano)))
			}
		}
		spans = append(spans, ss...)
	}
	rep.Reconciles = len(spans)
	rep.DoubleReconciles, rep.PausedInFlight = overlaps(spans, func(s reconcileSpan) bool {
		return byName[s.replica].pausedDuring(s)
	})
	sortDurations(events)
	sortDurations(recLat)
	rep.Latency = Latencies{
		Events: len(events), EventP50: percentile(events, 0.5), EventP99: percentile(events, 0.99), EventMax: percentile(events, 1),
		Reconciles: len(recLat), ReconcileP50: percentile(recLat, 0.5), ReconcileP99: percentile(recLat, 0.99),
	}
	rep.Writes, rep.WriteFails = r.load.writes.Load(), r.load.failed.Load()
	rep.LeakSlopes = r.slopes()
	for i, qp := range rep.Quiescent {
		if qp.Passed {
			rep.QuiescentPassed++
		}
		rep.Divergences += len(qp.Divergences)
		for _, d := range qp.Divergences {
			rep.Failures = append(rep.Failures, fmt.Sprintf("quiescent point %d: divergence: %s", i+1, d))
		}
		for _, l := range qp.Leaks {
			rep.Failures = append(rep.Failures, fmt.Sprintf("quiescent point %d: leak: %s", i+1, l))
		}
	}
	for _, d := range rep.DoubleReconciles {
		rep.Failures = append(rep.Failures, "double reconcile: "+d)
	}
	for _, u := range rep.Unfenced {
		rep.Failures = append(rep.Failures, "unfenced: "+u)
	}
	for _, st := range rep.StaleReads {
		rep.Failures = append(rep.Failures, "stale read: "+st)
	}
	for _, f := range rep.FaultLog {
		if f.Error != "" {
			rep.Failures = append(rep.Failures, fmt.Sprintf("fault %s did not heal: %s", f.Kind, f.Error))
		}
	}
	if len(rep.Quiescent) < 2 {
		rep.Failures = append(rep.Failures, fmt.Sprintf("only %d quiescent points: nothing was checked after a fault", len(rep.Quiescent)))
	}
	rep.Passed = len(rep.Failures) == 0
}

// overlaps finds reconciles of one key by two replicas that overlap in
// time. Those where either reconcile's replica was paused meanwhile
// (paused reports it) are returned apart, in pausedInFlight.
func overlaps(spans []reconcileSpan, paused func(reconcileSpan) bool) (double, pausedInFlight []string) {
	spans = slices.Clone(spans)
	sort.Slice(spans, func(i, j int) bool { return spans[i].start < spans[j].start })
	active := map[string][]reconcileSpan{}
	for _, s := range spans {
		var kept []reconcileSpan
		for _, a := range active[s.key] {
			if a.end <= s.start {
				continue
			}
			kept = append(kept, a)
			if a.replica == s.replica {
				continue
			}
			msg := fmt.Sprintf("%s: %s [%s, %s] and %s [%s, %s]", s.key,
				a.replica, stamp3(a.start), stamp3(a.end), s.replica, stamp3(s.start), stamp3(s.end))
			if paused(a) || paused(s) {
				pausedInFlight = append(pausedInFlight, msg)
			} else {
				double = append(double, msg)
			}
		}
		active[s.key] = append(kept, s)
	}
	return double, pausedInFlight
}

func stamp3(ns int64) string { return time.Unix(0, ns).Format("15:04:05.000") }

// slopes fits goroutines and heap over time per replica incarnation that
// saw at least two quiescent points.
func (r *run) slopes() map[string]Slope {
	type pt struct {
		t  float64
		st runtimeStats
	}
	series := map[string][]pt{}
	t0 := r.started
	// Incarnations are not recorded per point; a restart shows as a
	// baseline change, so the series is per replica name.
	for _, qp := range r.report.Quiescent {
		for name, st := range qp.Runtime {
			series[name] = append(series[name], pt{qp.At.Sub(t0).Minutes(), st})
		}
	}
	out := map[string]Slope{}
	for name, ps := range series {
		if len(ps) < 2 {
			continue
		}
		xs := make([]float64, len(ps))
		gs := make([]float64, len(ps))
		hs := make([]float64, len(ps))
		cs := make([]float64, len(ps))
		for i, p := range ps {
			xs[i], gs[i], hs[i], cs[i] = p.t, float64(p.st.Goroutines), float64(p.st.HeapAlloc), float64(p.st.Conns)
		}
		out[name] = Slope{GoroutinesPerMin: fit(xs, gs), HeapBytesPerMin: fit(xs, hs), ConnsPerMin: fit(xs, cs), Points: len(ps)}
	}
	return out
}

func fit(xs, ys []float64) float64 {
	var mx, my float64
	for i := range xs {
		mx += xs[i]
		my += ys[i]
	}
	n := float64(len(xs))
	mx, my = mx/n, my/n
	var num, den float64
	for i := range xs {
		num += (xs[i] - mx) * (ys[i] - my)
		den += (xs[i] - mx) * (xs[i] - mx)
	}
	if den == 0 {
		return 0
	}
	return num / den
}

// Write stores report.json and report.txt in dir.
func (rep *Report) Write(dir string) error {
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "report.json"), append(b, '\n'), 0o644); err != nil {
		return err
	}
	var sb strings.Builder
	rep.Text(&sb)
	return os.WriteFile(filepath.Join(dir, "report.txt"), []byte(sb.String()), 0o644)
}

// Text renders the report for people.
func (rep *Report) Text(w io.Writer) {
	verdict := "PASS"
	if !rep.Passed {
		verdict = "FAIL"
	}
	fmt.Fprintf(w, "soak %s: seed %d, %s under load and faults, work dir %s\n", verdict, rep.Seed, rep.Duration, rep.WorkDir)
	total := 0
	for _, k := range slices.Sorted(maps.Keys(rep.Faults)) {
		total += rep.Faults[k]
	}
	fmt.Fprintf(w, "faults injected: %d\n", total)
	for _, k := range slices.Sorted(maps.Keys(rep.Faults)) {
		fmt.Fprintf(w, "  %-16s %d\n", k, rep.Faults[k])
	}
	fmt.Fprintf(w, "quiescent checks passed: %d of %d\n", rep.QuiescentPassed, len(rep.Quiescent))
	for i, qp := range rep.Quiescent {
		fmt.Fprintf(w, "  %d: settled in %v, %d objects, %d divergences, %d leaks\n", i+1, qp.Settled, qp.Objects, len(qp.Divergences), len(qp.Leaks))
	}
	fmt.Fprintf(w, "divergences: %d\n", rep.Divergences)
	if n := len(rep.Quiescent); n > 0 && len(rep.Quiescent[n-1].Orphans) > 0 {
		fmt.Fprintf(w, "ConfigMaps left for the garbage collector at the end (not failed): %d\n", len(rep.Quiescent[n-1].Orphans))
		for _, o := range rep.Quiescent[n-1].Orphans {
			fmt.Fprintf(w, "  %s\n", o)
		}
	}
	fmt.Fprintf(w, "double reconciles: %d (and %d overlaps by a reconcile in flight across a SIGSTOP, not counted)\n", len(rep.DoubleReconciles), len(rep.PausedInFlight))
	fmt.Fprintf(w, "reconciles started without a valid Lease: %d\n", len(rep.Unfenced))
	fmt.Fprintf(w, "stale reads of a replica's own writes: %d\n", len(rep.StaleReads))
	fmt.Fprintf(w, "leak slopes (per minute):\n")
	for _, k := range slices.Sorted(maps.Keys(rep.LeakSlopes)) {
		s := rep.LeakSlopes[k]
		fmt.Fprintf(w, "  %-12s goroutines %+.1f, heap %+.0f B, API server connections %+.2f over %d points\n", k, s.GoroutinesPerMin, s.HeapBytesPerMin, s.ConnsPerMin, s.Points)
	}
	l := rep.Latency
	fmt.Fprintf(w, "event latency (write to handler, updates): p50 %v, p99 %v, max %v over %d events\n", l.EventP50, l.EventP99, l.EventMax, l.Events)
	fmt.Fprintf(w, "reconcile latency: p50 %v, p99 %v over %d reconciles\n", l.ReconcileP50, l.ReconcileP99, l.Reconciles)
	fmt.Fprintf(w, "writes: %d (%d failed during faults)\n", rep.Writes, rep.WriteFails)
	for _, f := range rep.Failures {
		fmt.Fprintf(w, "FAILED: %s\n", f)
	}
	if !rep.Passed {
		fmt.Fprintf(w, "reproduce with: make soak SEED=%d DURATION=%s\n", rep.Seed, rep.Duration)
	}
}
