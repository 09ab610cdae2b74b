package workqueue

import (
	"sync"
	"testing"
	"time"

	"github.com/typedinformer/typedinformer/internal/testutil"
)

// recorder is a MetricsProvider that keeps the last value of everything.
type recorder struct {
	mu     sync.Mutex
	gauges map[string]float64
	obs    map[string][]float64
}

type recMetric struct {
	r    *recorder
	name string
}

func (m recMetric) Inc() { m.add(1) }
func (m recMetric) Dec() { m.add(-1) }
func (m recMetric) add(d float64) {
	m.r.mu.Lock()
	m.r.gauges[m.name] += d
	m.r.mu.Unlock()
}
func (m recMetric) Set(v float64) {
	m.r.mu.Lock()
	m.r.gauges[m.name] = v
	m.r.mu.Unlock()
}
func (m recMetric) Observe(v float64) {
	m.r.mu.Lock()
	m.r.obs[m.name] = append(m.r.obs[m.name], v)
	m.r.mu.Unlock()
}

func (r *recorder) metric(kind, name string) recMetric        { return recMetric{r, name + "/" + kind} }
func (r *recorder) NewDepthMetric(n string) GaugeMetric       { return r.metric("depth", n) }
func (r *recorder) NewAddsMetric(n string) CounterMetric      { return r.metric("adds", n) }
func (r *recorder) NewLatencyMetric(n string) HistogramMetric { return r.metric("latency", n) }
func (r *recorder) NewWorkDurationMetric(n string) HistogramMetric {
	return r.metric("work", n)
}
func (r *recorder) NewUnfinishedWorkSecondsMetric(n string) SettableGaugeMetric {
	return r.metric("unfinished", n)
}
func (r *recorder) NewLongestRunningProcessorSecondsMetric(n string) SettableGaugeMetric {
	return r.metric("longest", n)
}
func (r *recorder) NewRetriesMetric(n string) CounterMetric { return r.metric("retries", n) }

func (r *recorder) gauge(k string) float64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.gauges[k]
}

func (r *recorder) observed(k string) []float64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]float64(nil), r.obs[k]...)
}

func TestMetrics(t *testing.T) {
	clk := newFakeClock()
	rec := &recorder{gauges: map[string]float64{}, obs: map[string][]float64{}}
	q := NewTypedWithConfig(TypedQueueConfig[string]{Name: "q", Clock: clk, MetricsProvider: rec, UnfinishedWorkUpdatePeriod: time.Second})
	defer q.ShutDown()

	q.Add("a")
	q.Add("a") // collapsed: not an add
	q.Add("b")
	if d, a := rec.gauge("q/depth"), rec.gauge("q/adds"); d != 2 || a != 2 {
		t.Fatalf("depth = %v, adds = %v; want 2 and 2", d, a)
	}
	clk.Step(3 * time.Second)
	item, _ := q.Get()
	if got := rec.observed("q/latency"); len(got) != 1 || got[0] != 3 {
		t.Fatalf("latency = %v, want [3]", got)
	}
	if rec.gauge("q/depth") != 1 {
		t.Fatalf("depth = %v after Get", rec.gauge("q/depth"))
	}
	// The unfinished-work loop reports the running item's age.
	testutil.Eventually(t, "ticker", func() bool { return clk.Waiters() >= 1 })
	clk.Step(2 * time.Second)
	testutil.Eventually(t, "unfinished work", func() bool {
		return rec.gauge("q/unfinished") == 2 && rec.gauge("q/longest") == 2
	})
	q.Done(item)
	if got := rec.observed("q/work"); len(got) != 1 || got[0] != 2 {
		t.Fatalf("work duration = %v, want [2]", got)
	}
	q.AddAfter("c", time.Second)
	q.AddRateLimited("d")
	if rec.gauge("q/retries") != 2 {
		t.Fatalf("retries = %v, want 2", rec.gauge("q/retries"))
	}
}
