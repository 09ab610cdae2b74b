package prometheus

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// collectHistogram returns the one histogram c reports for desc's name.
func collectHistogram(t *testing.T, c prometheus.Collector) *dto.Histogram {
	t.Helper()
	ch := make(chan prometheus.Metric, 16)
	c.Collect(ch)
	close(ch)
	for m := range ch {
		var out dto.Metric
		if err := m.Write(&out); err != nil {
			t.Fatal(err)
		}
		if h := out.GetHistogram(); h != nil {
			return h
		}
	}
	t.Fatal("no histogram collected")
	return nil
}

// TestHandlerLatencyMatchesPrometheusHistogram feeds the same durations,
// bucket edges included, to a handler series and to client_golang's own
// histogram with the buckets it replaced: every cumulative bucket, the
// count and the sum must agree.
func TestHandlerLatencyMatchesPrometheusHistogram(t *testing.T) {
	ref := prometheus.NewHistogram(prometheus.HistogramOpts{Name: "ref", Buckets: prometheus.ExponentialBuckets(1e-6, 4, 14)})
	c := &handlerCollector{}
	s := c.get("pods", "h")
	var ds []time.Duration
	for ub := time.Duration(latencyBaseNanos); ub < 10*time.Minute; ub *= 4 {
		ds = append(ds, ub-1, ub, ub+1)
	}
	ds = append(ds, 0, -time.Nanosecond, 3*time.Hour, 7*time.Microsecond, 250*time.Millisecond)
	for _, d := range ds {
		s.ObserveLatency(d)
		ref.Observe(d.Seconds())
	}
	var want dto.Metric
	if err := ref.Write(&want); err != nil {
		t.Fatal(err)
	}
	got := collectHistogram(t, c)
	if got.GetSampleCount() != want.GetHistogram().GetSampleCount() {
		t.Fatalf("count %d, want %d", got.GetSampleCount(), want.GetHistogram().GetSampleCount())
	}
	if g, w := got.GetSampleSum(), want.GetHistogram().GetSampleSum(); g < w*(1-1e-9) || g > w*(1+1e-9) {
		t.Fatalf("sum %v, want %v", g, w)
	}
	wb := want.GetHistogram().GetBucket()
	if len(got.GetBucket()) != len(wb) {
		t.Fatalf("%d buckets, want %d", len(got.GetBucket()), len(wb))
	}
	for i, b := range got.GetBucket() {
		if b.GetUpperBound() != wb[i].GetUpperBound() || b.GetCumulativeCount() != wb[i].GetCumulativeCount() {
			t.Errorf("bucket %d: le=%v count %d, want le=%v count %d", i, b.GetUpperBound(), b.GetCumulativeCount(), wb[i].GetUpperBound(), wb[i].GetCumulativeCount())
		}
	}
}

// TestHandlerBatchLatency: a batch counts as its calls, each at the mean,
// with the exact total in the sum; series of one (informer, handler) pair
// are shared.
func TestHandlerBatchLatency(t *testing.T) {
	c := &handlerCollector{}
	s := c.get("pods", "h")
	if c.get("pods", "h") != s {
		t.Fatal("a second handler of one name got a series of its own")
	}
	s.ObserveBatchLatency(3, 30*time.Microsecond) // mean 10 µs: the le=16µs bucket
	s.ObserveBatchLatency(0, time.Second)         // ignored
	h := collectHistogram(t, c)
	if h.GetSampleCount() != 3 || h.GetSampleSum() != 30e-6 {
		t.Fatalf("count %d sum %v, want 3 and 30e-6", h.GetSampleCount(), h.GetSampleSum())
	}
	for _, b := range h.GetBucket() {
		want := uint64(0)
		if b.GetUpperBound() >= 16e-6 {
			want = 3
		}
		if b.GetCumulativeCount() != want {
			t.Errorf("le=%v: %d, want %d", b.GetUpperBound(), b.GetCumulativeCount(), want)
		}
	}
}

// TestParseRV: decimal resourceVersions parse as strconv would; anything
// else (empty, signs, letters, too long) is not numeric.
func TestParseRV(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
		ok   bool
	}{{"1", 1, true}, {"0", 0, true}, {"123456789012345678", 123456789012345678, true}, {"1234567890123456789", 0, false},
		{"", 0, false}, {"-1", 0, false}, {"+1", 0, false}, {"12a", 0, false}, {"a", 0, false}, {"1 ", 0, false}} {
		got, ok := parseRV(c.in)
		if got != c.want || ok != c.ok {
			t.Errorf("parseRV(%q) = %d, %v; want %d, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}
