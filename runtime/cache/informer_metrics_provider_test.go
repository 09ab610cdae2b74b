package cache_test

import (
	"slices"
	"strconv"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/typedinformer/typedinformer/runtime/cache"
	"github.com/typedinformer/typedinformer/runtime/fake"
)

var podsGVR = schema.GroupVersionResource{Version: "v1", Resource: "pods"}

// idProvider is a cache.InformerMetricsProvider recording every metric it
// hands out and every value those metrics receive.
type idProvider struct {
	mu      sync.Mutex
	asked   []string // "queued name/resource", ...
	queued  []float64
	latency []float64
	rv      []float64
}

type idMetric struct {
	p *idProvider
	v *[]float64
}

func (m idMetric) Set(v float64)     { m.p.mu.Lock(); *m.v = append(*m.v, v); m.p.mu.Unlock() }
func (m idMetric) Observe(v float64) { m.Set(v) }

func (p *idProvider) metric(kind string, id cache.InformerNameAndResource, v *[]float64) idMetric {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.asked = append(p.asked, kind+" "+id.Name()+"/"+id.GroupVersionResource().Resource)
	return idMetric{p, v}
}

func (p *idProvider) NewQueuedItemMetric(id cache.InformerNameAndResource) cache.GaugeMetric {
	return p.metric("queued", id, &p.queued)
}

func (p *idProvider) NewProcessingLatencyMetric(id cache.InformerNameAndResource) cache.HistogramMetric {
	return p.metric("latency", id, &p.latency)
}

func (p *idProvider) NewStoreResourceVersionMetric(id cache.InformerNameAndResource) cache.GaugeMetric {
	return p.metric("rv", id, &p.rv)
}

// snapshot returns copies of the recorded values.
func (p *idProvider) snapshot() (asked []string, queued, latency, rv []float64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.asked), slices.Clone(p.queued), slices.Clone(p.latency), slices.Clone(p.rv)
}

// lastRV is the store resource version gauge's latest value (-1: none).
func (p *idProvider) lastRV() float64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.rv) == 0 {
		return -1
	}
	return p.rv[len(p.rv)-1]
}

func rvNumber(t *testing.T, rv string) float64 {
	t.Helper()
	n, err := strconv.ParseInt(rv, 10, 64)
	if err != nil {
		t.Fatalf("resourceVersion %q: %v", rv, err)
	}
	return float64(n)
}

// waitStored waits until the informer's store holds p at p's resourceVersion.
func waitStored(t *testing.T, inf cache.SharedIndexInformer[*corev1.Pod], p *corev1.Pod) {
	t.Helper()
	eventually(t, "the store to hold "+p.Name+"@"+p.ResourceVersion, func() bool {
		got, ok, _ := inf.GetStore().GetByKey(key(p))
		return ok && got.ResourceVersion == p.ResourceVersion
	})
}

// TestInformerMetricsProviderReservedIdentity: an informer with a reserved
// Identifier publishes client-go's three metrics: the DeltaFIFO's queued
// deltas (the list's 3, then 0 once popped), one latency per processed
// batch, and the store's resourceVersion following the list, each event and
// a bookmark.
func TestInformerMetricsProviderReservedIdentity(t *testing.T) {
	srv := fake.NewServer[*corev1.Pod]()
	for i := range 3 {
		create(t, srv, newPod("a", "p"+strconv.Itoa(i)))
	}
	name, err := cache.NewInformerName("ctrl")
	if err != nil {
		t.Fatal(err)
	}
	p := &idProvider{}
	inf := cache.NewSharedIndexInformerWithOptions[*corev1.Pod](srv.ListerWatcher("a"), cache.SharedIndexInformerOptions[*corev1.Pod]{
		Resource: podsGVR, Reflector: fastReflector(),
		Identifier: name.WithResource(podsGVR), InformerMetricsProvider: p,
	})
	run(t, inf)
	waitSynced(t, inf)
	listRV := rvNumber(t, srv.ResourceVersion())
	eventually(t, "the store resource version to be the list's", func() bool { return p.lastRV() == listRV })

	asked, queued, latency, _ := p.snapshot()
	if want := []string{"queued ctrl/pods", "latency ctrl/pods", "rv ctrl/pods"}; !slices.Equal(asked, want) {
		t.Fatalf("provider asked for %q, want %q", asked, want)
	}
	if len(queued) == 0 || queued[0] != 3 || queued[len(queued)-1] != 0 {
		t.Fatalf("queued items = %v, want 3 (the list) first and 0 last", queued)
	}
	if len(latency) == 0 || slices.Min(latency) < 0 {
		t.Fatalf("processing latency observations = %v, want at least one, none negative", latency)
	}

	added := create(t, srv, newPod("a", "new"))
	waitStored(t, inf, added)
	eventually(t, "the store resource version to follow the event", func() bool { return p.lastRV() == rvNumber(t, added.ResourceVersion) })

	// A change in another namespace moves the server's resourceVersion
	// past everything this informer stored; a bookmark carries it.
	create(t, srv, newPod("b", "elsewhere"))
	waitWatchers(t, srv, 1)
	srv.SendBookmarks()
	bookmarkRV := rvNumber(t, srv.ResourceVersion())
	eventually(t, "the store resource version to follow the bookmark", func() bool { return p.lastRV() == bookmarkRV })
}

// TestInformerMetricsProviderUnreservedIdentity: no metric is asked for, or
// updated, for an informer whose identity is not reserved: none given, a
// second registration of a resource under one name, or a released name.
func TestInformerMetricsProviderUnreservedIdentity(t *testing.T) {
	dup, err := cache.NewInformerName("dup")
	if err != nil {
		t.Fatal(err)
	}
	dup.WithResource(podsGVR) // the first registration holds the resource
	released, err := cache.NewInformerName("released")
	if err != nil {
		t.Fatal(err)
	}
	releasedID := released.WithResource(podsGVR)
	released.Release()
	var nilName *cache.InformerName
	for _, tc := range []struct {
		name string
		id   cache.InformerNameAndResource
	}{
		{"none", cache.InformerNameAndResource{}},
		{"nil name", nilName.WithResource(podsGVR)},
		{"duplicate", dup.WithResource(podsGVR)},
		{"released", releasedID},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := fake.NewServer[*corev1.Pod]()
			create(t, srv, newPod("a", "p"))
			p := &idProvider{}
			inf := podInformer(srv, cache.SharedIndexInformerOptions[*corev1.Pod]{
				Resource: podsGVR, Reflector: fastReflector(), Identifier: tc.id, InformerMetricsProvider: p,
			})
			run(t, inf)
			waitSynced(t, inf)
			waitStored(t, inf, create(t, srv, newPod("a", "q")))
			if asked, queued, latency, rv := p.snapshot(); len(asked)+len(queued)+len(latency)+len(rv) != 0 {
				t.Fatalf("unreserved identity: provider asked for %q, recorded queued %v latency %v rv %v; want nothing", asked, queued, latency, rv)
			}
		})
	}
}

// TestInformerMetricsProviderStopsAtRelease: once the InformerName is
// released, a running informer updates none of its metrics.
func TestInformerMetricsProviderStopsAtRelease(t *testing.T) {
	srv := fake.NewServer[*corev1.Pod]()
	create(t, srv, newPod("a", "p"))
	name, err := cache.NewInformerName("ctrl")
	if err != nil {
		t.Fatal(err)
	}
	p := &idProvider{}
	inf := podInformer(srv, cache.SharedIndexInformerOptions[*corev1.Pod]{
		Resource: podsGVR, Reflector: fastReflector(), Identifier: name.WithResource(podsGVR), InformerMetricsProvider: p,
	})
	run(t, inf)
	waitSynced(t, inf)
	listRV := rvNumber(t, srv.ResourceVersion())
	eventually(t, "the list's resource version", func() bool { return p.lastRV() == listRV })
	_, q0, l0, r0 := p.snapshot()

	name.Release()
	// The second event is stored only after the first one's batch was
	// processed and observed: the informer applies batches one at a time.
	waitStored(t, inf, create(t, srv, newPod("a", "q")))
	waitStored(t, inf, create(t, srv, newPod("a", "r")))
	waitWatchers(t, srv, 1)
	srv.SendBookmarks()
	waitStored(t, inf, create(t, srv, newPod("a", "s")))
	if _, q, l, r := p.snapshot(); len(q) != len(q0) || len(l) != len(l0) || len(r) != len(r0) {
		t.Fatalf("after Release: queued %v -> %v, latency %d -> %d observations, rv %v -> %v; want no change", q0, q, len(l0), len(l), r0, r)
	}
}

// TestSetInformerMetricsProvider: a factory's setter gives an informer
// without an Identifier the one identify returns for its Resource, keeps one
// that is set, and fails once the informer runs.
func TestSetInformerMetricsProvider(t *testing.T) {
	name, err := cache.NewInformerName("factory")
	if err != nil {
		t.Fatal(err)
	}
	identify := func(gvr schema.GroupVersionResource) cache.InformerNameAndResource { return name.WithResource(gvr) }
	srv := fake.NewServer[*corev1.Pod]()
	p := &idProvider{}
	inf := podInformer(srv, cache.SharedIndexInformerOptions[*corev1.Pod]{Resource: podsGVR, Reflector: fastReflector()})
	if err := inf.(cache.InformerMetricsSetter).SetInformerMetricsProvider(p, identify); err != nil {
		t.Fatal(err)
	}
	other, err := cache.NewInformerName("generated")
	if err != nil {
		t.Fatal(err)
	}
	own := podInformer(srv, cache.SharedIndexInformerOptions[*corev1.Pod]{
		Resource: podsGVR, Reflector: fastReflector(), Identifier: other.WithResource(podsGVR),
	})
	if err := own.(cache.InformerMetricsSetter).SetInformerMetricsProvider(p, identify); err != nil {
		t.Fatal(err)
	}
	if asked, _, _, _ := p.snapshot(); !slices.Equal(asked, []string{
		"queued factory/pods", "latency factory/pods", "rv factory/pods",
		"queued generated/pods", "latency generated/pods", "rv generated/pods",
	}) {
		t.Fatalf("provider asked for %q", asked)
	}
	run(t, inf)
	waitSynced(t, inf)
	if err := inf.(cache.InformerMetricsSetter).SetInformerMetricsProvider(p, identify); err == nil {
		t.Fatal("SetInformerMetricsProvider on a running informer succeeded")
	}
}
