package prometheus

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
	"k8s.io/klog/v2/ktesting"

	tu "github.com/typedinformer/typedinformer/internal/testutil"
	"github.com/typedinformer/typedinformer/runtime/cache"
	"github.com/typedinformer/typedinformer/runtime/controller"
	"github.com/typedinformer/typedinformer/runtime/fake"
)

func pod(name string) *corev1.Pod { return tu.Pod("ns", name) }

func mustCreate(t *testing.T, srv *fake.Server[*corev1.Pod], names ...string) {
	t.Helper()
	for _, n := range names {
		if _, err := srv.Create(pod(n)); err != nil {
			t.Fatal(err)
		}
	}
}

// series returns the scraped series name{labels} of reg, or nil.
func series(t *testing.T, reg *prometheus.Registry, name string, labels map[string]string) *dto.Metric {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			if matches(m, labels) {
				return m
			}
		}
	}
	return nil
}

// histogramCount is the sample count of the histogram name{labels} in reg
// (0 when there is none).
func histogramCount(t *testing.T, reg *prometheus.Registry, name string, labels map[string]string) uint64 {
	t.Helper()
	return series(t, reg, name, labels).GetHistogram().GetSampleCount()
}

// gaugeValue returns the value of the gauge series name{labels} scraped
// from reg (-1 when there is none).
func gaugeValue(t *testing.T, reg *prometheus.Registry, name string, labels map[string]string) float64 {
	t.Helper()
	m := series(t, reg, name, labels)
	if m == nil {
		return -1
	}
	return m.GetGauge().GetValue()
}

func matches(m *dto.Metric, labels map[string]string) bool {
	n := 0
	for _, lp := range m.GetLabel() {
		if v, ok := labels[lp.GetName()]; ok {
			if v != lp.GetValue() {
				return false
			}
			n++
		}
	}
	return n == len(labels)
}

// blocked is a handler stuck in every call until release.
type blocked struct {
	cache.ResourceEventHandlerFuncs[*corev1.Pod]
}

func (blocked) HandlerName() string { return "blocked" }

// TestInformerMetricsOnTheRegistry drives an informer on a fake server and
// scrapes the registry after each step: the first list, a handler stuck
// while events arrive (its backlog grows and is logged once, then drains),
// and a watch that expires (a relist, a restart and an error by reason).
func TestInformerMetricsOnTheRegistry(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := New(reg)
	if err != nil {
		t.Fatal(err)
	}
	logger := ktesting.NewLogger(t, ktesting.NewConfig(ktesting.BufferLogs(true)))
	logs := logger.GetSink().(ktesting.Underlier).GetBuffer()
	ctx, cancel := context.WithCancel(klog.NewContext(context.Background(), logger))

	srv := fake.NewServer[*corev1.Pod]()
	mustCreate(t, srv, "a", "b")
	inf := cache.NewSharedIndexInformerWithOptions[*corev1.Pod](srv.ListerWatcher(""), cache.SharedIndexInformerOptions[*corev1.Pod]{
		Name: "pods", Metrics: m.Informers(), HandlerBacklogThreshold: 4,
		Reflector: cache.ReflectorOptions{InitialBackoff: time.Millisecond, MaxBackoff: 5 * time.Millisecond, DisableWatchList: true},
	})
	gate := make(chan struct{})
	var once sync.Once
	release := func() { once.Do(func() { close(gate) }) }
	h := blocked{}
	h.AddFunc = func(*corev1.Pod) { <-gate }
	if _, err := inf.AddEventHandler(h); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { defer close(done); inf.Run(ctx) }()
	defer func() { release(); cancel(); <-done }()

	v := m.informers
	tu.Eventually(t, "the first list scraped", func() bool {
		return testutil.ToFloat64(v.lists.WithLabelValues("pods")) == 1 &&
			gaugeValue(t, reg, "typedinformer_informer_objects", map[string]string{"informer": "pods"}) == 2 &&
			testutil.ToFloat64(v.watches.WithLabelValues("pods")) >= 1
	})
	if got := testutil.ToFloat64(v.relists.WithLabelValues("pods")); got != 0 {
		t.Fatalf("relists after the first list: %v, want 0", got)
	}

	mustCreate(t, srv, "c", "d", "e", "f", "g")
	// The warning is logged after the backlog gauge moves: wait for both.
	tu.Eventually(t, "a backlog of 7 behind the stuck handler, and its warning", func() bool {
		return gaugeValue(t, reg, "typedinformer_informer_handler_backlog", map[string]string{"informer": "pods", "handler": "blocked"}) == 7 &&
			gaugeValue(t, reg, "typedinformer_informer_objects", map[string]string{"informer": "pods"}) == 7 &&
			strings.Contains(logs.String(), "falling behind")
	})
	if n := strings.Count(logs.String(), "falling behind"); n != 1 || !strings.Contains(logs.String(), `handler="blocked"`) {
		t.Fatalf("backlog warnings: %d, want 1 naming the handler; log:\n%s", n, logs.String())
	}
	release()
	tu.Eventually(t, "the backlog drained", func() bool {
		return gaugeValue(t, reg, "typedinformer_informer_handler_backlog", map[string]string{"informer": "pods", "handler": "blocked"}) == 0 &&
			histogramCount(t, reg, "typedinformer_informer_handler_duration_seconds", map[string]string{"informer": "pods", "handler": "blocked"}) == 7
	})
	want := fmt.Sprintf(`
# HELP typedinformer_informer_last_resource_version The informer's last resourceVersion, when numeric (as etcd's are).
# TYPE typedinformer_informer_last_resource_version gauge
typedinformer_informer_last_resource_version{informer="pods"} %s
`, srv.ResourceVersion())
	if err := testutil.CollectAndCompare(v.age, strings.NewReader(want), "typedinformer_informer_last_resource_version"); err != nil {
		t.Fatal(err)
	}
	if n := testutil.CollectAndCount(v.age, "typedinformer_informer_last_event_age_seconds", "typedinformer_informer_last_event_timestamp_seconds"); n != 2 {
		t.Fatalf("event time and age series: %d, want 2", n)
	}

	srv.Compact()
	srv.ExpireWatches()
	tu.Eventually(t, "a relist after 410", func() bool {
		return testutil.ToFloat64(v.relists.WithLabelValues("pods")) == 1 &&
			testutil.ToFloat64(v.lists.WithLabelValues("pods")) == 2
	})
	if r, e := testutil.ToFloat64(v.restarts.WithLabelValues("pods", "expired")), testutil.ToFloat64(v.errors.WithLabelValues("pods", "expired")); r != 1 || e != 1 {
		t.Fatalf("expired restarts %v and errors %v, want 1 and 1", r, e)
	}
}

// TestControllerAndWorkqueueMetricsOnTheRegistry drives a controller over
// an informer on a fake server: one request succeeds, one fails with a
// terminal error, one asks to come back later; the controller-runtime and
// workqueue series count exactly that.
func TestControllerAndWorkqueueMetricsOnTheRegistry(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := New(reg)
	if err != nil {
		t.Fatal(err)
	}
	srv := fake.NewServer[*corev1.Pod]()
	mustCreate(t, srv, "ok", "bad", "later")
	inf := cache.NewSharedIndexInformerWithOptions[*corev1.Pod](srv.ListerWatcher(""), cache.SharedIndexInformerOptions[*corev1.Pod]{Name: "pods", Metrics: m.Informers()})
	r := controller.ReconcilerFunc(func(_ context.Context, req controller.Request) (controller.Result, error) {
		switch req.Name {
		case "bad":
			return controller.Result{}, controller.TerminalError(errors.New("cannot"))
		case "later":
			return controller.Result{RequeueAfter: time.Hour}, nil
		}
		return controller.Result{}, nil
	})
	c, err := controller.New("foo", r, controller.Options{MaxConcurrentReconciles: 2, Metrics: m.Controllers(), QueueMetricsProvider: m.Workqueues()})
	if err != nil {
		t.Fatal(err)
	}
	if err := controller.Watch(c, inf, controller.EnqueueRequestForObject[*corev1.Pod]()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { inf.Run(ctx) })
	errc := make(chan error, 1)
	wg.Go(func() { errc <- c.Start(ctx) })
	defer func() { cancel(); wg.Wait() }()

	cv := m.controllers
	total := func(result string) float64 { return testutil.ToFloat64(cv.total.WithLabelValues("foo", result)) }
	tu.Eventually(t, "three reconciles counted", func() bool {
		return total("success")+total("error")+total("requeue_after") == 3
	})
	for result, want := range map[string]float64{"success": 1, "error": 1, "requeue_after": 1, "requeue": 0} {
		if got := total(result); got != want {
			t.Errorf("reconcile_total{result=%q} = %v, want %v", result, got, want)
		}
	}
	if e, te := testutil.ToFloat64(cv.errors.WithLabelValues("foo")), testutil.ToFloat64(cv.terminal.WithLabelValues("foo")); e != 1 || te != 1 {
		t.Errorf("errors %v, terminal errors %v; want 1, 1", e, te)
	}
	tu.Eventually(t, "no active worker", func() bool { return testutil.ToFloat64(cv.active.WithLabelValues("foo")) == 0 })
	if n := histogramCount(t, reg, "controller_runtime_reconcile_time_seconds", map[string]string{"controller": "foo"}); n != 3 {
		t.Errorf("reconcile_time_seconds count %d, want 3", n)
	}

	wq := m.workqueues
	for _, c := range []struct {
		name string
		c    prometheus.Collector
		want float64
	}{
		{"max_concurrent_reconciles", cv.maxWorkers.WithLabelValues("foo"), 2},
		{"workqueue_adds_total", wq.adds.WithLabelValues("foo"), 3},
		{"workqueue_retries_total (the RequeueAfter)", wq.retries.WithLabelValues("foo"), 1},
		{"workqueue_depth", wq.depth.WithLabelValues("foo"), 0},
	} {
		if got := testutil.ToFloat64(c.c); got != c.want {
			t.Errorf("%s %v, want %v", c.name, got, c.want)
		}
	}
	for _, name := range []string{"workqueue_queue_duration_seconds", "workqueue_work_duration_seconds"} {
		if n := histogramCount(t, reg, name, map[string]string{"name": "foo"}); n != 3 {
			t.Errorf("%s count %d, want 3", name, n)
		}
	}
	if n := gaugeValue(t, reg, "typedinformer_informer_handler_backlog", map[string]string{"informer": "pods", "handler": "controller/foo"}); n != 0 {
		t.Errorf("the controller's handler backlog %v, want 0 (-1: no series)", n)
	}
	cancel()
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
}

// TestNewRefusesADoubleRegistration checks the error on a name clash.
func TestNewRefusesADoubleRegistration(t *testing.T) {
	reg := prometheus.NewRegistry()
	if _, err := New(reg); err != nil {
		t.Fatal(err)
	}
	if _, err := New(reg); err == nil || !strings.Contains(err.Error(), "registering") {
		t.Fatalf("second New on one registry: %v, want a registration error", err)
	}
	if _, err := New(nil); err == nil {
		t.Fatal("New(nil) did not fail")
	}
}
