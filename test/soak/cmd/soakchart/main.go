// Command soakchart draws one SVG of a soak run from its work dir: the
// goroutines and the heap after GC of every replica at each quiescent
// point (report.json), and the event latency (write to handler) per
// minute, p50 and p99, from the replicas' traces, with the faults
// injected marked along the time axis.
//
// Usage: soakchart -work-dir DIR -out chart.svg
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"
)

// report is the part of report.json the chart needs.
type report struct {
	Seed     uint64 `json:"seed"`
	Duration string `json:"duration"`
	FaultLog []struct {
		Kind string    `json:"kind"`
		At   time.Time `json:"at"`
	} `json:"faultLog"`
	Quiescent []struct {
		At      time.Time `json:"at"`
		Runtime map[string]struct {
			Goroutines int    `json:"goroutines"`
			HeapAlloc  uint64 `json:"heapAlloc"`
		} `json:"runtime"`
	} `json:"quiescentPoints"`
}

// record is a trace line; At is set on events by newer controllers, else
// the event is placed at the time of the trace's previous timed record.
type record struct {
	Kind         string `json:"kind"`
	Op           string `json:"op"`
	Start        int64  `json:"start"`
	End          int64  `json:"end"`
	At           int64  `json:"at"`
	LatencyNanos int64  `json:"latencyNanos"`
}

type event struct {
	at      time.Time
	latency time.Duration
}

func main() {
	dir := flag.String("work-dir", "", "the soak's work dir (report.json and *.trace.jsonl)")
	out := flag.String("out", "", "the SVG to write (default stdout)")
	flag.Parse()
	if err := run(*dir, *out); err != nil {
		fmt.Fprintln(os.Stderr, "soakchart:", err)
		os.Exit(1)
	}
}

func run(dir, out string) error {
	if dir == "" {
		return fmt.Errorf("-work-dir is required")
	}
	b, err := os.ReadFile(filepath.Join(dir, "report.json"))
	if err != nil {
		return err
	}
	var rep report
	if err := json.Unmarshal(b, &rep); err != nil {
		return fmt.Errorf("%s: %w", filepath.Join(dir, "report.json"), err)
	}
	if len(rep.Quiescent) == 0 {
		return fmt.Errorf("%s: no quiescent points", filepath.Join(dir, "report.json"))
	}
	traces, err := filepath.Glob(filepath.Join(dir, "*.trace.jsonl"))
	if err != nil {
		return err
	}
	var events []event
	for _, t := range traces {
		ev, err := readEvents(t)
		if err != nil {
			return err
		}
		events = append(events, ev...)
	}
	w := io.Writer(os.Stdout)
	if out != "" {
		f, err := os.Create(out)
		if err != nil {
			return err
		}
		defer f.Close()
		w = f
	}
	draw(w, &rep, events)
	return nil
}

func readEvents(path string) ([]event, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []event
	var last int64
	s := bufio.NewScanner(f)
	s.Buffer(make([]byte, 1<<20), 1<<20)
	for s.Scan() {
		var r record
		if json.Unmarshal(s.Bytes(), &r) != nil {
			continue
		}
		switch r.Kind {
		case "start":
			last = r.Start
		case "end":
			last = r.End
		case "event":
			at := r.At
			if at == 0 {
				at = last
			}
			if r.Op == "update" && at != 0 {
				out = append(out, event{time.Unix(0, at), time.Duration(r.LatencyNanos)})
			}
		}
	}
	return out, s.Err()
}

// Layout: three panels stacked, sharing the time axis.
const (
	width, left, right = 960.0, 70.0, 20.0
	panelH, gap, top   = 170.0, 50.0, 40.0
)

func draw(w io.Writer, rep *report, events []event) {
	t0 := rep.Quiescent[0].At
	tEnd := rep.Quiescent[len(rep.Quiescent)-1].At
	for _, e := range events {
		if e.at.After(tEnd) {
			tEnd = e.at
		}
	}
	span := max(tEnd.Sub(t0).Minutes(), 1.0/60)
	x := func(t time.Time) float64 { return left + (width-left-right)*t.Sub(t0).Minutes()/span }
	height := top + 3*panelH + 3*gap + 120
	fmt.Fprintf(w, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" font-family="sans-serif" font-size="11">`+"\n", width, height)
	fmt.Fprintf(w, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(w, `<text x="%.0f" y="20" font-size="14">soak seed %d, %s under load and faults (x: minutes since the first quiescent point)</text>`+"\n", left, rep.Seed, rep.Duration)

	names := map[string]bool{}
	for _, qp := range rep.Quiescent {
		for n := range qp.Runtime {
			names[n] = true
		}
	}
	sorted := slices.Sorted(func(yield func(string) bool) {
		for n := range names {
			if !yield(n) {
				return
			}
		}
	})
	series := func(val func(g int, h uint64) float64) map[string][][2]float64 {
		m := map[string][][2]float64{}
		for _, qp := range rep.Quiescent {
			for n, st := range qp.Runtime {
				m[n] = append(m[n], [2]float64{x(qp.At), val(st.Goroutines, st.HeapAlloc)})
			}
		}
		return m
	}
	gor := series(func(g int, _ uint64) float64 { return float64(g) })
	heap := series(func(_ int, h uint64) float64 { return float64(h) / (1 << 20) })
	y0 := top
	linePanel(w, y0, "goroutines per replica (at quiescent points)", sorted, gor, span)
	y0 += panelH + gap
	linePanel(w, y0, "heap after GC per replica, MiB", sorted, heap, span)
	y0 += panelH + gap
	latencyPanel(w, y0, events, t0, span, x)
	faultStrip(w, y0+panelH+24, rep, x)
	fmt.Fprintln(w, "</svg>")
}

func color(name string) string {
	if strings.HasPrefix(name, "elected") {
		if strings.HasSuffix(name, "0") {
			return "#d95f02"
		}
		return "#e6ab02"
	}
	palette := []string{"#1b9e77", "#7570b3", "#66a61e", "#1f78b4", "#a6761d", "#666666"}
	h := 0
	for _, c := range name {
		h = h*31 + int(c)
	}
	return palette[(h%len(palette)+len(palette))%len(palette)]
}

func axes(w io.Writer, y0 float64, title string, yMax float64, unit string, span float64) {
	fmt.Fprintf(w, `<text x="%.0f" y="%.0f" font-size="12">%s</text>`+"\n", left, y0-6, title)
	fmt.Fprintf(w, `<rect x="%.0f" y="%.0f" width="%.0f" height="%.0f" fill="none" stroke="#999"/>`+"\n", left, y0, width-left-right, panelH)
	for i := 0; i <= 4; i++ {
		v := yMax * float64(i) / 4
		y := y0 + panelH - panelH*float64(i)/4
		fmt.Fprintf(w, `<text x="%.0f" y="%.0f" text-anchor="end">%.4g%s</text>`+"\n", left-4, y+4, v, unit)
		fmt.Fprintf(w, `<line x1="%.0f" x2="%.0f" y1="%.1f" y2="%.1f" stroke="#eee"/>`+"\n", left, width-right, y, y)
	}
	step := math.Max(1, math.Round(span/10))
	for m := 0.0; m <= span+1e-9; m += step {
		xx := left + (width-left-right)*m/span
		fmt.Fprintf(w, `<text x="%.1f" y="%.0f" text-anchor="middle">%.0f</text>`+"\n", xx, y0+panelH+13, m)
	}
}

func linePanel(w io.Writer, y0 float64, title string, names []string, s map[string][][2]float64, span float64) {
	yMax := 0.0
	for _, pts := range s {
		for _, p := range pts {
			yMax = math.Max(yMax, p[1])
		}
	}
	yMax = niceCeil(yMax * 1.1)
	axes(w, y0, title, yMax, "", span)
	for _, n := range names {
		pts := s[n]
		var sb strings.Builder
		for _, p := range pts {
			fmt.Fprintf(&sb, "%.1f,%.1f ", p[0], y0+panelH-panelH*p[1]/yMax)
		}
		fmt.Fprintf(w, `<polyline points="%s" fill="none" stroke="%s" stroke-width="1.2"><title>%s</title></polyline>`+"\n", sb.String(), color(n), n)
		for _, p := range pts {
			fmt.Fprintf(w, `<circle cx="%.1f" cy="%.1f" r="1.6" fill="%s"/>`+"\n", p[0], y0+panelH-panelH*p[1]/yMax, color(n))
		}
	}
	fmt.Fprintf(w, `<text x="%.0f" y="%.0f" text-anchor="end" fill="#d95f02">elected-0</text><text x="%.0f" y="%.0f" text-anchor="end" fill="#e6ab02">elected-1</text><text x="%.0f" y="%.0f" text-anchor="end" fill="#1b9e77">sharded-* (joining and leaving)</text>`+"\n",
		width-right-250, y0-6, width-right-190, y0-6, width-right, y0-6)
}

// latencyPanel draws p50 and p99 per minute on a log scale.
func latencyPanel(w io.Writer, y0 float64, events []event, t0 time.Time, span float64, x func(time.Time) float64) {
	bins := map[int][]time.Duration{}
	for _, e := range events {
		m := int(e.at.Sub(t0).Minutes())
		if m >= 0 {
			bins[m] = append(bins[m], e.latency)
		}
	}
	const lo, hi = 1e-3, 10.0 // seconds, log scale
	y := func(d time.Duration) float64 {
		s := math.Min(math.Max(d.Seconds(), lo), hi)
		return y0 + panelH - panelH*(math.Log10(s)-math.Log10(lo))/(math.Log10(hi)-math.Log10(lo))
	}
	fmt.Fprintf(w, `<text x="%.0f" y="%.0f" font-size="12">event latency, write to handler (updates), per minute: p50 (blue), p99 (red); log scale</text>`+"\n", left, y0-6)
	fmt.Fprintf(w, `<rect x="%.0f" y="%.0f" width="%.0f" height="%.0f" fill="none" stroke="#999"/>`+"\n", left, y0, width-left-right, panelH)
	for _, v := range []time.Duration{time.Millisecond, 10 * time.Millisecond, 100 * time.Millisecond, time.Second, 10 * time.Second} {
		fmt.Fprintf(w, `<text x="%.0f" y="%.1f" text-anchor="end">%v</text><line x1="%.0f" x2="%.0f" y1="%.1f" y2="%.1f" stroke="#eee"/>`+"\n", left-4, y(v)+4, v, left, width-right, y(v), y(v))
	}
	step := math.Max(1, math.Round(span/10))
	for m := 0.0; m <= span+1e-9; m += step {
		fmt.Fprintf(w, `<text x="%.1f" y="%.0f" text-anchor="middle">%.0f</text>`+"\n", left+(width-left-right)*m/span, y0+panelH+13, m)
	}
	keys := make([]int, 0, len(bins))
	for k := range bins {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	for _, q := range []struct {
		p     float64
		color string
	}{{0.5, "#1f78b4"}, {0.99, "#e31a1c"}} {
		var sb strings.Builder
		for _, k := range keys {
			ds := bins[k]
			slices.Sort(ds)
			d := ds[int(float64(len(ds)-1)*q.p)]
			fmt.Fprintf(&sb, "%.1f,%.1f ", x(t0.Add(time.Duration(k)*time.Minute+30*time.Second)), y(d))
		}
		fmt.Fprintf(w, `<polyline points="%s" fill="none" stroke="%s" stroke-width="1.5"/>`+"\n", sb.String(), q.color)
	}
}

// faultStrip marks every fault under the latency panel, one row per kind.
func faultStrip(w io.Writer, y0 float64, rep *report, x func(time.Time) float64) {
	kinds := map[string]bool{}
	for _, f := range rep.FaultLog {
		kinds[f.Kind] = true
	}
	var ks []string
	for k := range kinds {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	row := map[string]int{}
	for i, k := range ks {
		row[k] = i
		fmt.Fprintf(w, `<text x="%.0f" y="%.0f" text-anchor="end" font-size="9">%s</text>`+"\n", left-4, y0+float64(i)*9+7, k)
	}
	for _, f := range rep.FaultLog {
		xx := x(f.At)
		if xx < left {
			continue
		}
		yy := y0 + float64(row[f.Kind])*9
		fmt.Fprintf(w, `<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="#555"/>`+"\n", xx, xx, yy, yy+7)
	}
}

// niceCeil rounds v up to 1, 2 or 5 times a power of ten.
func niceCeil(v float64) float64 {
	if v <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= v {
			return m * p
		}
	}
	return 10 * p
}
