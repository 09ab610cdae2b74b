package prometheus

import (
	"context"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	tu "github.com/typedinformer/typedinformer/internal/testutil"
	"github.com/typedinformer/typedinformer/runtime/cache"
	"github.com/typedinformer/typedinformer/runtime/fake"
	"github.com/typedinformer/typedinformer/runtime/informers"
)

var podsGVR = schema.GroupVersionResource{Version: "v1", Resource: "pods"}

// podLabels are the client-go series' labels of name's pods informer.
func podLabels(name string) map[string]string {
	return map[string]string{"name": name, "group": "", "version": "v1", "resource": "pods"}
}

func mustName(t *testing.T, name string) *cache.InformerName {
	t.Helper()
	n, err := cache.NewInformerName(name)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// runPods runs a pods informer over srv with identity id publishing to p,
// until the test ends, and waits for it to sync.
func runPods(t *testing.T, srv *fake.Server[*corev1.Pod], id cache.InformerNameAndResource, p cache.InformerMetricsProvider) cache.SharedIndexInformer[*corev1.Pod] {
	t.Helper()
	inf := cache.NewSharedIndexInformerWithOptions[*corev1.Pod](srv.ListerWatcher(""), cache.SharedIndexInformerOptions[*corev1.Pod]{
		Resource: podsGVR, Identifier: id, InformerMetricsProvider: p,
		Reflector: cache.ReflectorOptions{InitialBackoff: time.Millisecond, MaxBackoff: 5 * time.Millisecond, DisableWatchList: true},
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); inf.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	tu.Eventually(t, "the informer to sync", inf.HasSynced)
	return inf
}

func rv(t *testing.T, srv *fake.Server[*corev1.Pod]) float64 {
	t.Helper()
	n, err := strconv.ParseFloat(srv.ResourceVersion(), 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestClientGoInformerSeries: a factory given the adapter as its
// InformerMetricsProvider and an InformerName exports component-base's
// three series, with their help, labels and buckets.
func TestClientGoInformerSeries(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := New(reg)
	if err != nil {
		t.Fatal(err)
	}
	srv := fake.NewServer[*corev1.Pod]()
	mustCreate(t, srv, "a", "b")
	name := mustName(t, "kube-controller-manager")
	defer name.Release()
	f := informers.NewFactory(0, informers.WithInformerName(name), informers.WithInformerMetricsProvider(m))
	ctx, cancel := context.WithCancel(context.Background())
	defer func() { cancel(); f.Shutdown() }()
	informers.InformerFor(f, true, func(ns string, resync time.Duration) cache.SharedIndexInformer[*corev1.Pod] {
		return cache.NewSharedIndexInformerWithOptions[*corev1.Pod](srv.ListerWatcher(ns), cache.SharedIndexInformerOptions[*corev1.Pod]{
			ResyncPeriod: resync, Resource: podsGVR,
			Reflector: cache.ReflectorOptions{DisableWatchList: true},
		})
	})
	f.Start(ctx)
	if _, err := f.WaitForCacheSync(ctx); err != nil {
		t.Fatal(err)
	}
	labels := podLabels("kube-controller-manager")
	listRV := rv(t, srv)
	tu.Eventually(t, "the three series after the list", func() bool {
		return gaugeValue(t, reg, "informer_queued_items", labels) == 0 &&
			gaugeValue(t, reg, "informer_store_resource_version", labels) == listRV &&
			histogramCount(t, reg, "informer_processing_latency_seconds", labels) >= 1
	})
	mustCreate(t, srv, "c")
	eventRV := rv(t, srv)
	tu.Eventually(t, "the store resource version to follow the event", func() bool {
		return gaugeValue(t, reg, "informer_store_resource_version", labels) == eventRV
	})

	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	help := map[string]string{}
	for _, mf := range mfs {
		help[mf.GetName()] = mf.GetHelp()
		for _, s := range mf.GetMetric() {
			if mf.GetName() != "informer_queued_items" && mf.GetName() != "informer_store_resource_version" && mf.GetName() != "informer_processing_latency_seconds" {
				continue
			}
			var names []string
			for _, lp := range s.GetLabel() {
				names = append(names, lp.GetName())
			}
			if want := []string{"group", "name", "resource", "version"}; !slices.Equal(names, want) {
				t.Errorf("%s labels %q, want %q", mf.GetName(), names, want)
			}
		}
	}
	for name, want := range map[string]string{
		"informer_queued_items":               "[ALPHA] Number of items currently queued in the FIFO.",
		"informer_processing_latency_seconds": "[ALPHA] Time taken to process events after popping from the queue.",
		"informer_store_resource_version":     "[ALPHA] The 15 least significant digits of the resource version of the store.",
	} {
		if help[name] != want {
			t.Errorf("%s help %q, want %q", name, help[name], want)
		}
	}
	var bounds []float64
	for _, b := range series(t, reg, "informer_processing_latency_seconds", labels).GetHistogram().GetBucket() {
		bounds = append(bounds, b.GetUpperBound())
	}
	if want := []float64{0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}; !slices.Equal(bounds, want) {
		t.Errorf("processing latency buckets %v, want %v", bounds, want)
	}
}

// TestClientGoInformerSeriesUniquePerRegistry: a second identity with the
// same name and resource publishes nothing on the same adapter (and is
// logged once), but does on another adapter; once the first is released
// its series stop moving, stay (as component-base's), and a new identity
// with that name takes them over.
func TestClientGoInformerSeriesUniquePerRegistry(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := New(reg)
	if err != nil {
		t.Fatal(err)
	}
	labels := podLabels("ctrl")
	first := mustName(t, "ctrl")
	srvA := fake.NewServer[*corev1.Pod]()
	mustCreate(t, srvA, "a")
	infA := runPods(t, srvA, first.WithResource(podsGVR), m)
	rvA := rv(t, srvA)
	tu.Eventually(t, "the first identity's list", func() bool {
		return gaugeValue(t, reg, "informer_store_resource_version", labels) == rvA
	})

	// Another InformerName of the same name: reserved by its own name,
	// refused by the adapter.
	second := mustName(t, "ctrl")
	defer second.Release()
	srvB := fake.NewServer[*corev1.Pod]()
	mustCreate(t, srvB, "a", "b", "c", "d")
	infB := runPods(t, srvB, second.WithResource(podsGVR), m)
	latency := histogramCount(t, reg, "informer_processing_latency_seconds", labels)
	// infB stores its next event only after its previous batch was
	// observed (or not): then the scrape shows what it published.
	mustCreate(t, srvB, "e")
	tu.Eventually(t, "the second informer to store e", func() bool {
		_, ok, _ := infB.GetStore().GetByKey("ns/e")
		return ok
	})
	mustCreate(t, srvB, "f")
	tu.Eventually(t, "the second informer to store f", func() bool {
		_, ok, _ := infB.GetStore().GetByKey("ns/f")
		return ok
	})
	if got := gaugeValue(t, reg, "informer_store_resource_version", labels); got != rvA {
		t.Fatalf("store resource version %v after the duplicate identity's events, want the first identity's %v", got, rvA)
	}
	if got := histogramCount(t, reg, "informer_processing_latency_seconds", labels); got != latency {
		t.Fatalf("processing latency count moved from %d to %d with the duplicate identity", latency, got)
	}
	m.identities.mu.Lock()
	refused := len(m.identities.refused)
	m.identities.mu.Unlock()
	if refused != 1 {
		t.Fatalf("%d refused identities recorded (each logged once), want 1", refused)
	}

	// Another adapter, another registry: the same name publishes there.
	reg2 := prometheus.NewRegistry()
	m2, err := New(reg2)
	if err != nil {
		t.Fatal(err)
	}
	third := mustName(t, "ctrl")
	defer third.Release()
	runPods(t, srvB, third.WithResource(podsGVR), m2)
	rvB := rv(t, srvB)
	tu.Eventually(t, "the same name on another registry", func() bool {
		return gaugeValue(t, reg2, "informer_store_resource_version", labels) == rvB
	})

	// Release: the series stays at its last value and stops moving.
	first.Release()
	mustCreate(t, srvA, "b")
	tu.Eventually(t, "the first informer to store b", func() bool {
		_, ok, _ := infA.GetStore().GetByKey("ns/b")
		return ok
	})
	mustCreate(t, srvA, "c")
	tu.Eventually(t, "the first informer to store c", func() bool {
		_, ok, _ := infA.GetStore().GetByKey("ns/c")
		return ok
	})
	if got := gaugeValue(t, reg, "informer_store_resource_version", labels); got != rvA {
		t.Fatalf("store resource version %v after Release, want it left at %v", got, rvA)
	}

	// The released identity's series go to the next one with its name.
	fourth := mustName(t, "ctrl")
	defer fourth.Release()
	srvC := fake.NewServer[*corev1.Pod]()
	mustCreate(t, srvC, "a", "b", "c", "d", "e", "f", "g")
	runPods(t, srvC, fourth.WithResource(podsGVR), m)
	rvC := rv(t, srvC)
	tu.Eventually(t, "a new identity taking the released one's series", func() bool {
		return gaugeValue(t, reg, "informer_store_resource_version", labels) == rvC
	})
}

// TestClientGoMetricsStopAtRelease: the adapter's metrics themselves check
// the reservation, for informers that do not (client-go's own ones call
// them unconditionally).
func TestClientGoMetricsStopAtRelease(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := New(reg)
	if err != nil {
		t.Fatal(err)
	}
	name := mustName(t, "ctrl")
	id := name.WithResource(podsGVR)
	queued, latency, rv := m.NewQueuedItemMetric(id), m.NewProcessingLatencyMetric(id), m.NewStoreResourceVersionMetric(id)
	queued.Set(3)
	latency.Observe(0.2)
	rv.Set(42)
	name.Release()
	queued.Set(5)
	latency.Observe(0.2)
	rv.Set(43)
	labels := podLabels("ctrl")
	if q, n, r := gaugeValue(t, reg, "informer_queued_items", labels), histogramCount(t, reg, "informer_processing_latency_seconds", labels),
		gaugeValue(t, reg, "informer_store_resource_version", labels); q != 3 || n != 1 || r != 42 {
		t.Fatalf("after Release: queued %v, latency count %d, rv %v; want 3, 1, 42 (the values before)", q, n, r)
	}
}
