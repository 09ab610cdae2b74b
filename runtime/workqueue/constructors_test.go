package workqueue_test

import (
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"golang.org/x/time/rate"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/typedinformer/typedinformer/runtime/workqueue"
)

// whens calls When n times for item and returns the delays.
func whens[T comparable](rl workqueue.TypedRateLimiter[T], item T, n int) []time.Duration {
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = rl.When(item)
	}
	return out
}

// The Typed* limiters follow client-go's sequences: exponential from the
// base, per item, reset by Forget; fast then slow; max-of; capped.
func TestCompatRateLimitersFollowClientGoSequences(t *testing.T) {
	ms := time.Millisecond
	exp := workqueue.NewTypedItemExponentialFailureRateLimiter[string](ms, 6*ms)
	if got, want := whens(exp, "a", 5), []time.Duration{ms, 2 * ms, 4 * ms, 6 * ms, 6 * ms}; !slices.Equal(got, want) {
		t.Errorf("exponential delays = %v, want %v", got, want)
	}
	if got := exp.When("b"); got != ms {
		t.Errorf("exponential delay of a second item = %v, want %v (counts are per item)", got, ms)
	}
	if n := exp.NumRequeues("a"); n != 5 {
		t.Errorf("NumRequeues(a) = %d, want 5", n)
	}
	exp.Forget("a")
	if n, d := exp.NumRequeues("a"), exp.When("a"); n != 0 || d != ms {
		t.Errorf("after Forget: NumRequeues = %d, When = %v; want 0, %v", n, d, ms)
	}

	fs := workqueue.NewTypedItemFastSlowRateLimiter[string](ms, time.Second, 2)
	if got, want := whens(fs, "a", 4), []time.Duration{ms, ms, time.Second, time.Second}; !slices.Equal(got, want) {
		t.Errorf("fast/slow delays = %v, want %v", got, want)
	}

	maxOf := workqueue.NewTypedMaxOfRateLimiter(
		workqueue.NewTypedItemExponentialFailureRateLimiter[string](ms, time.Hour),
		workqueue.NewTypedItemFastSlowRateLimiter[string](3*ms, time.Second, 1),
	)
	if got, want := whens(maxOf, "a", 3), []time.Duration{3 * ms, time.Second, time.Second}; !slices.Equal(got, want) {
		t.Errorf("max-of delays = %v, want %v", got, want)
	}
	if n := maxOf.NumRequeues("a"); n != 3 {
		t.Errorf("max-of NumRequeues = %d, want 3", n)
	}

	capped := workqueue.NewTypedWithMaxWaitRateLimiter(workqueue.NewTypedItemExponentialFailureRateLimiter[string](ms, time.Hour), 3*ms)
	if got, want := whens(capped, "a", 3), []time.Duration{ms, 2 * ms, 3 * ms}; !slices.Equal(got, want) {
		t.Errorf("capped delays = %v, want %v", got, want)
	}

	if got, want := whens(workqueue.DefaultTypedItemBasedRateLimiter[string](), "a", 3), []time.Duration{ms, 2 * ms, 4 * ms}; !slices.Equal(got, want) {
		t.Errorf("DefaultTypedItemBasedRateLimiter delays = %v, want %v", got, want)
	}
	// The bucket (burst 100) does not delay the first adds, so the per-item
	// 5ms doubling shows.
	if got, want := whens(workqueue.DefaultTypedControllerRateLimiter[string](), "a", 3), []time.Duration{5 * ms, 10 * ms, 20 * ms}; !slices.Equal(got, want) {
		t.Errorf("DefaultTypedControllerRateLimiter delays = %v, want %v", got, want)
	}
}

// TypedBucketRateLimiter is built as client-go's is, from a rate.Limiter;
// When reserves a token, and the bucket keeps no per-item state.
func TestCompatBucketRateLimiterReservesTokens(t *testing.T) {
	var rl workqueue.TypedRateLimiter[string] = &workqueue.TypedBucketRateLimiter[string]{Limiter: rate.NewLimiter(rate.Every(time.Hour), 1)}
	if d := rl.When("a"); d != 0 {
		t.Fatalf("first When = %v, want 0 (burst of 1)", d)
	}
	if d := rl.When("b"); d < 59*time.Minute {
		t.Fatalf("second When = %v, want about an hour (the bucket is shared by all items)", d)
	}
	rl.Forget("a")
	if n := rl.NumRequeues("a"); n != 0 {
		t.Fatalf("NumRequeues = %d, want 0", n)
	}
}

// delayRecorder is a caller's delaying queue that records AddAfter calls.
type delayRecorder struct {
	workqueue.TypedDelayingInterface[string]
	mu    sync.Mutex
	added []string
}

func (d *delayRecorder) AddAfter(item string, after time.Duration) {
	d.mu.Lock()
	d.added = append(d.added, item+"@"+after.String())
	d.mu.Unlock()
}

// With a DelayingQueue in the config, AddRateLimited is that queue's
// AddAfter with the limiter's delay, and Forget/NumRequeues are the
// limiter's, as in client-go.
func TestCompatRateLimitingQueueOverCallersDelayingQueue(t *testing.T) {
	rec := &delayRecorder{TypedDelayingInterface: workqueue.NewTypedDelayingQueue[string]()}
	defer rec.ShutDown()
	q := workqueue.NewTypedRateLimitingQueueWithConfig(
		workqueue.NewTypedItemExponentialFailureRateLimiter[string](time.Millisecond, time.Second),
		workqueue.TypedRateLimitingQueueConfig[string]{DelayingQueue: rec},
	)
	q.AddRateLimited("a")
	q.AddRateLimited("a")
	if n := q.NumRequeues("a"); n != 2 {
		t.Errorf("NumRequeues = %d, want 2", n)
	}
	q.Forget("a")
	q.AddRateLimited("a")
	rec.mu.Lock()
	got := append([]string(nil), rec.added...)
	rec.mu.Unlock()
	want := []string{"a@1ms", "a@2ms", "a@1ms"}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Errorf("AddAfter calls = %v, want %v", got, want)
	}
}

// The rate-limiting queue built from client-go's config delays a
// rate-limited item by the limiter's When on the configured clock: in a
// synctest bubble, the item is not ready one step before its 1s delay has
// passed on the fake clock and is ready right at it.
func TestCompatRateLimitingQueueDelaysOnConfiguredClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := testingclock.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
		q := workqueue.NewTypedRateLimitingQueueWithConfig(
			workqueue.NewTypedItemExponentialFailureRateLimiter[string](time.Second, time.Minute),
			workqueue.TypedRateLimitingQueueConfig[string]{Clock: clk},
		)
		defer q.ShutDown()
		q.AddRateLimited("a")
		synctest.Wait() // the delay goroutine waits on clk
		if n := q.Len(); n != 0 {
			t.Fatalf("Len right after AddRateLimited = %d, want 0 (item must wait 1s)", n)
		}
		clk.Step(time.Second - time.Millisecond)
		synctest.Wait()
		if n := q.Len(); n != 0 {
			t.Fatalf("Len after %v of fake time = %d, want 0 (item must wait 1s)", time.Second-time.Millisecond, n)
		}
		clk.Step(time.Millisecond)
		synctest.Wait()
		if n := q.Len(); n != 1 {
			t.Fatalf("Len once the clock passed the 1s delay = %d, want 1", n)
		}
		item, _ := q.Get()
		q.Done(item)
		if item != "a" {
			t.Fatalf("Get = %q, want a", item)
		}
	})
}

// countingProvider counts the metrics created per queue name.
type countingProvider struct {
	mu    sync.Mutex
	names map[string]int
}

type nopMetric struct{}

func (nopMetric) Inc()            {}
func (nopMetric) Dec()            {}
func (nopMetric) Set(float64)     {}
func (nopMetric) Observe(float64) {}

func (p *countingProvider) count(name string) nopMetric {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.names == nil {
		p.names = map[string]int{}
	}
	p.names[name]++
	return nopMetric{}
}
func (p *countingProvider) NewDepthMetric(n string) workqueue.GaugeMetric       { return p.count(n) }
func (p *countingProvider) NewAddsMetric(n string) workqueue.CounterMetric      { return p.count(n) }
func (p *countingProvider) NewLatencyMetric(n string) workqueue.HistogramMetric { return p.count(n) }
func (p *countingProvider) NewWorkDurationMetric(n string) workqueue.HistogramMetric {
	return p.count(n)
}
func (p *countingProvider) NewUnfinishedWorkSecondsMetric(n string) workqueue.SettableGaugeMetric {
	return p.count(n)
}
func (p *countingProvider) NewLongestRunningProcessorSecondsMetric(n string) workqueue.SettableGaugeMetric {
	return p.count(n)
}
func (p *countingProvider) NewRetriesMetric(n string) workqueue.CounterMetric { return p.count(n) }

// As in client-go, an unnamed queue reports no metrics even with a
// provider; a named one does.
func TestCompatConfigsReportMetricsOnlyWhenNamed(t *testing.T) {
	p := &countingProvider{}
	for _, q := range []workqueue.TypedInterface[string]{
		workqueue.NewTypedWithConfig(workqueue.TypedQueueConfig[string]{MetricsProvider: p}),
		workqueue.NewTypedDelayingQueueWithConfig(workqueue.TypedDelayingQueueConfig[string]{MetricsProvider: p}),
		workqueue.NewTypedRateLimitingQueueWithConfig(nil, workqueue.TypedRateLimitingQueueConfig[string]{MetricsProvider: p}),
	} {
		q.ShutDown()
	}
	if len(p.names) != 0 {
		t.Fatalf("unnamed queues created metrics: %v", p.names)
	}
	for _, q := range []workqueue.TypedInterface[string]{
		workqueue.NewTypedWithConfig(workqueue.TypedQueueConfig[string]{Name: "plain", MetricsProvider: p}),
		workqueue.NewTypedDelayingQueueWithConfig(workqueue.TypedDelayingQueueConfig[string]{Name: "delaying", MetricsProvider: p}),
		workqueue.NewTypedRateLimitingQueueWithConfig(nil, workqueue.TypedRateLimitingQueueConfig[string]{Name: "limited", MetricsProvider: p}),
	} {
		q.ShutDown()
	}
	for _, n := range []string{"plain", "delaying", "limited"} {
		if p.names[n] == 0 {
			t.Errorf("named queue %q created no metrics", n)
		}
	}
}

// NewTyped is a plain queue with the Interface guarantees: FIFO, duplicates
// collapse, and shutdown still hands out queued items.
func TestCompatNewTypedIsAPlainQueue(t *testing.T) {
	var q *workqueue.Typed[int] = workqueue.NewTyped[int]() //nolint:staticcheck // the declared type checks NewTyped returns client-go's *Typed[T]
	q.Add(1)
	q.Add(2)
	q.Add(1)
	q.ShutDown()
	var got []int
	for {
		item, shutdown := q.Get()
		if shutdown {
			break
		}
		got = append(got, item)
		q.Done(item)
	}
	if len(got) != 2 || got[0] != 1 || got[1] != 2 {
		t.Fatalf("items = %v, want [1 2]", got)
	}
}
