package cache_test

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/klog/v2"
	"k8s.io/klog/v2/ktesting"

	"github.com/typedinformer/typedinformer/internal/testutil/informertest"
	"github.com/typedinformer/typedinformer/runtime/cache"
	"github.com/typedinformer/typedinformer/runtime/fake"
)

// recMetrics records every InformerMetrics call of one informer.
type recMetrics struct {
	mu                             sync.Mutex
	name                           string
	lists, watches, relists        int
	restarts, errs                 map[string]int
	objects, depth                 int
	lastRV                         string
	lastEvent                      time.Time
	backlog, maxBacklog, latencies map[string]int
	handlerNames                   []string
}

func (r *recMetrics) NewInformerMetrics(name string) cache.InformerMetrics {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.name = name
	return r
}
func (r *recMetrics) IncLists()               { r.with(func() { r.lists++ }) }
func (r *recMetrics) IncWatches()             { r.with(func() { r.watches++ }) }
func (r *recMetrics) IncRelistsAfterExpired() { r.with(func() { r.relists++ }) }
func (r *recMetrics) IncWatchRestarts(reason string) {
	r.with(func() { r.restarts[reason]++ })
}
func (r *recMetrics) IncErrors(reason string) { r.with(func() { r.errs[reason]++ }) }
func (r *recMetrics) SetObjects(n int)        { r.with(func() { r.objects = n }) }
func (r *recMetrics) SetQueueDepth(n int)     { r.with(func() { r.depth = n }) }
func (r *recMetrics) ObserveEvent(at time.Time, rv string) {
	r.with(func() { r.lastEvent, r.lastRV = at, rv })
}
func (r *recMetrics) NewHandlerMetrics(h string) cache.HandlerMetrics {
	r.with(func() { r.handlerNames = append(r.handlerNames, h) })
	return recHandler{r, h}
}
func (r *recMetrics) with(f func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	f()
}
func (r *recMetrics) get(f func() bool) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return f()
}

type recHandler struct {
	r *recMetrics
	h string
}

func (h recHandler) SetBacklog(n int) {
	h.r.with(func() {
		h.r.backlog[h.h] = n
		h.r.maxBacklog[h.h] = max(h.r.maxBacklog[h.h], n)
	})
}
func (h recHandler) ObserveLatency(time.Duration) { h.r.with(func() { h.r.latencies[h.h]++ }) }

func newRecMetrics() *recMetrics {
	return &recMetrics{restarts: map[string]int{}, errs: map[string]int{}, backlog: map[string]int{}, maxBacklog: map[string]int{}, latencies: map[string]int{}}
}

// gateHandler blocks in every call until gate is closed.
type gateHandler struct {
	gate chan struct{}
	cache.ResourceEventHandlerFuncs[*corev1.Pod]
}

func (gateHandler) HandlerName() string { return "gated" }

// TestInformerMetrics drives an informer through a list, watch events, an
// expired watch and a blocked handler, and checks each metric moved as it
// should, and that the blocked handler's backlog was logged exactly once.
func TestInformerMetrics(t *testing.T) {
	logger := ktesting.NewLogger(t, ktesting.NewConfig(ktesting.BufferLogs(true)))
	ctx, cancel := context.WithCancel(klog.NewContext(context.Background(), logger))
	defer cancel()
	srv := fake.NewServer[*corev1.Pod]()
	for i := range 3 {
		create(t, srv, newPod("ns", fmt.Sprintf("p%d", i)))
	}
	rec := newRecMetrics()
	inf := cache.NewSharedIndexInformerWithOptions[*corev1.Pod](srv.ListerWatcher(""), cache.SharedIndexInformerOptions[*corev1.Pod]{
		Name: "pods", Metrics: rec, HandlerBacklogThreshold: 5, Reflector: fastReflector(),
	})
	gate := make(chan struct{})
	var openGate sync.Once
	release := func() { openGate.Do(func() { close(gate) }) }
	h := gateHandler{gate: gate}
	h.AddFunc = func(*corev1.Pod) { <-gate }
	h.UpdateFunc = func(_, _ *corev1.Pod) { <-gate }
	informertest.AddHandler(t, inf, h)
	done := make(chan struct{})
	go func() { defer close(done); inf.Run(ctx) }()
	defer func() { release(); cancel(); <-done }()

	eventually(t, "the first list in the metrics", func() bool {
		return rec.get(func() bool { return rec.lists == 1 && rec.objects == 3 && rec.watches >= 1 })
	})
	// The handler is stuck in its first call: the store goes on, the
	// handler's backlog grows past the threshold and is logged once.
	for i := 3; i < 13; i++ {
		create(t, srv, newPod("ns", fmt.Sprintf("p%d", i)))
	}
	eventually(t, "13 objects and a backlog of 12", func() bool {
		return rec.get(func() bool { return rec.objects == 13 && rec.backlog["gated"] == 13 })
	})
	if got := strings.Count(logBuffer(logger), "falling behind"); got != 1 {
		t.Fatalf("backlog warnings logged: %d, want 1; log:\n%s", got, logBuffer(logger))
	}
	// The informer may hand several events over at once, so the logged
	// size is at least the threshold rather than exactly it.
	m := regexp.MustCompile(`backlog=(\d+)`).FindStringSubmatch(logBuffer(logger))
	if !strings.Contains(logBuffer(logger), `handler="gated"`) || m == nil || atoi(m[1]) < 5 {
		t.Fatalf("the warning does not name the handler and its backlog:\n%s", logBuffer(logger))
	}
	release()
	eventually(t, "the backlog drained", func() bool {
		return rec.get(func() bool { return rec.backlog["gated"] == 0 && rec.latencies["gated"] == 13 })
	})
	rv := srv.ResourceVersion()
	if !rec.get(func() bool { return rec.lastRV == rv && !rec.lastEvent.IsZero() && rec.depth == 0 && rec.relists == 0 }) {
		t.Fatalf("after the events: last RV %q (want %q), last event %v, depth %d, relists %d", rec.lastRV, rv, rec.lastEvent, rec.depth, rec.relists)
	}

	// An expired watch: one error and one watch restart by reason, one
	// relist, counted as a list.
	srv.Compact()
	srv.ExpireWatches()
	eventually(t, "a relist after 410", func() bool {
		return rec.get(func() bool { return rec.relists == 1 && rec.lists == 2 })
	})
	if !rec.get(func() bool { return rec.restarts["expired"] == 1 && rec.errs["expired"] == 1 }) {
		t.Fatalf("restarts %v, errors %v; want one expired each", rec.restarts, rec.errs)
	}
	if rec.name != "pods" || len(rec.handlerNames) != 1 || rec.handlerNames[0] != "gated" {
		t.Fatalf("names: informer %q, handlers %v", rec.name, rec.handlerNames)
	}
}

func logBuffer(l klog.Logger) string {
	return l.GetSink().(ktesting.Underlier).GetBuffer().String()
}

// TestSetMetricsProvider checks the factory hook's guards.
func TestSetMetricsProvider(t *testing.T) {
	srv := fake.NewServer[*corev1.Pod]()
	inf := cache.NewSharedIndexInformer[*corev1.Pod](srv.ListerWatcher(""), 0, nil)
	ms, ok := inf.(cache.MetricsSetter)
	if !ok {
		t.Fatal("the informer does not implement MetricsSetter")
	}
	rec := newRecMetrics()
	if err := ms.SetMetricsProvider(rec); err != nil {
		t.Fatal(err)
	}
	informertest.AddHandler(t, inf, cache.ResourceEventHandlerFuncs[*corev1.Pod]{})
	if err := ms.SetMetricsProvider(rec); err == nil || !strings.Contains(err.Error(), "event handler") {
		t.Fatalf("SetMetricsProvider after AddEventHandler: %v, want an error", err)
	}
}

func atoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		return -1
	}
	return n
}

func TestErrorReason(t *testing.T) {
	gr := schema.GroupResource{Resource: "pods"}
	for _, tc := range []struct {
		err  error
		want string
	}{
		{nil, "none"},
		{apierrors.NewResourceExpired("too old resource version: 1 (5)"), "expired"},
		{apierrors.NewGone("gone"), "expired"}, //nolint:staticcheck // servers still send 410 with reason Gone, which NewGone builds
		{fmt.Errorf("list pods: %w", apierrors.NewForbidden(gr, "", errors.New("no"))), "forbidden"},
		{apierrors.NewUnauthorized("who"), "unauthorized"},
		{apierrors.NewNotFound(gr, ""), "not_found"},
		{apierrors.NewTooManyRequests("slow down", 1), "too_many_requests"},
		{fmt.Errorf("watch pods: %w", cache.ErrVeryShortWatch), "very_short_watch"},
		{cache.ErrWrongType, "wrong_type"},
		{apierrors.NewServiceUnavailable("restarting"), "unavailable"},
		{apierrors.NewInternalError(errors.New("boom")), "internal"},
		{errors.New("something else"), "other"},
	} {
		if got := cache.ErrorReason(tc.err); got != tc.want {
			t.Errorf("ErrorReason(%v) = %q, want %q", tc.err, got, tc.want)
		}
	}
}
