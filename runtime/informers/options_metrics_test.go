package informers_test

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/typedinformer/typedinformer/internal/testutil"
	"github.com/typedinformer/typedinformer/runtime/cache"
	"github.com/typedinformer/typedinformer/runtime/informers"
)

// namesProvider records the informer names it was asked for.
type namesProvider struct {
	mu    sync.Mutex
	names []string
}

func (p *namesProvider) NewInformerMetrics(name string) cache.InformerMetrics {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.names = append(p.names, name)
	return nil
}

func TestWithInformerMetricsGivesEveryInformerTheProvider(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts []informers.Option
		want []string
	}{
		{"one namespace", nil, []string{"pods()"}},
		{"per namespace", []informers.Option{informers.WithNamespaces("b", "a")}, []string{"pods(a)/a", "pods(b)/b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &namesProvider{}
			f := informers.NewFactory(time.Minute, append(tc.opts, informers.WithInformerMetrics(p))...)
			informers.InformerFor(f, true, func(ns string, resync time.Duration) cache.SharedIndexInformer[*corev1.Pod] {
				return newPodSource().newInformer(ns, resync)
			})
			if !slices.Equal(p.names, tc.want) {
				t.Fatalf("provider asked for %q, want %q", p.names, tc.want)
			}
		})
	}
}

func TestWithInformerName(t *testing.T) {
	n, err := cache.NewInformerName("controller")
	if err != nil {
		t.Fatal(err)
	}
	if got := informers.NewFactory(0, informers.WithInformerName(n)).InformerName(); got != n {
		t.Fatalf("InformerName() = %v, want the one given", got)
	}
	if got := informers.NewFactory(0).InformerName(); got != nil {
		t.Fatalf("InformerName() without the option = %v, want nil", got)
	}
}

var podsGVR = schema.GroupVersionResource{Version: "v1", Resource: "pods"}

// idProvider is a cache.InformerMetricsProvider recording the identities
// it was asked for and the store resource versions set.
type idProvider struct {
	mu    sync.Mutex
	asked []string
	rv    []float64
}

type idGauge struct {
	p    *idProvider
	isRV bool
}

func (g idGauge) Set(v float64) {
	if g.isRV {
		g.p.mu.Lock()
		g.p.rv = append(g.p.rv, v)
		g.p.mu.Unlock()
	}
}
func (g idGauge) Observe(float64) {}

func (p *idProvider) ask(kind string, id cache.InformerNameAndResource) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.asked = append(p.asked, fmt.Sprintf("%s %s %v", kind, id.Name(), id.GroupVersionResource()))
}

func (p *idProvider) NewQueuedItemMetric(id cache.InformerNameAndResource) cache.GaugeMetric {
	p.ask("queued", id)
	return idGauge{p: p}
}

func (p *idProvider) NewProcessingLatencyMetric(id cache.InformerNameAndResource) cache.HistogramMetric {
	p.ask("latency", id)
	return idGauge{p: p}
}

func (p *idProvider) NewStoreResourceVersionMetric(id cache.InformerNameAndResource) cache.GaugeMetric {
	p.ask("rv", id)
	return idGauge{p: p, isRV: true}
}

func (p *idProvider) snapshot() (asked []string, rv []float64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.asked), slices.Clone(p.rv)
}

// gvrInformer builds src's pod informer knowing its resource, as generated
// code does, and with id as its Identifier.
func gvrInformer(src *podSource, id cache.InformerNameAndResource) informers.NewInformerFunc[*corev1.Pod] {
	return func(ns string, resync time.Duration) cache.SharedIndexInformer[*corev1.Pod] {
		return cache.NewSharedIndexInformerWithOptions(src.lw(ns), cache.SharedIndexInformerOptions[*corev1.Pod]{
			ResyncPeriod: resync, Resource: podsGVR, Identifier: id,
		})
	}
}

func TestWithInformerMetricsProviderPublishesForTheFactoryName(t *testing.T) {
	name, err := cache.NewInformerName("ctrl")
	if err != nil {
		t.Fatal(err)
	}
	src := newPodSource(newPod("a", "p"), newPod("a", "q"))
	p := &idProvider{}
	f := informers.NewFactory(0, informers.WithInformerName(name), informers.WithInformerMetricsProvider(p))
	ctx := factoryContext(t, f)
	informers.InformerFor(f, true, gvrInformer(src, cache.InformerNameAndResource{}))
	f.Start(ctx)
	waitFactory(t, f)
	want := []string{"queued ctrl /v1, Resource=pods", "latency ctrl /v1, Resource=pods", "rv ctrl /v1, Resource=pods"}
	testutil.Eventually(t, "the list's resourceVersion (2) in the store metric", func() bool {
		asked, rv := p.snapshot()
		return slices.Equal(asked, want) && len(rv) > 0 && rv[len(rv)-1] == 2
	})

	// An informer built again after RemoveInformer keeps the identity
	// (a second WithResource of pods under "ctrl" would reserve nothing).
	if err := f.RemoveInformer(&corev1.Pod{}); err != nil {
		t.Fatal(err)
	}
	// (A fresh source: the old one still holds the stopped informer's
	// watch.)
	informers.InformerFor(f, true, gvrInformer(newPodSource(newPod("a", "p"), newPod("a", "q"), newPod("a", "r")), cache.InformerNameAndResource{}))
	f.Start(ctx)
	waitFactory(t, f)
	testutil.Eventually(t, "the new informer's list (3) in the store metric", func() bool {
		asked, rv := p.snapshot()
		return slices.Equal(asked, append(want, want...)) && rv[len(rv)-1] == 3
	})
}

func TestWithInformerMetricsProviderIdentities(t *testing.T) {
	generated, err := cache.NewInformerName("generated")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		opts []informers.Option
		id   cache.InformerNameAndResource // set by the NewInformerFunc
		want []string
	}{
		{"no name: no identity", nil, cache.InformerNameAndResource{}, nil},
		{"generated identity kept", nil, generated.WithResource(podsGVR),
			[]string{"queued generated /v1, Resource=pods", "latency generated /v1, Resource=pods", "rv generated /v1, Resource=pods"}},
		{"several namespaces: no identity", []informers.Option{informers.WithNamespaces("a", "b")}, cache.InformerNameAndResource{}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			name, err := cache.NewInformerName("ctrl")
			if err != nil {
				t.Fatal(err)
			}
			p := &idProvider{}
			opts := []informers.Option{informers.WithInformerMetricsProvider(p)}
			if tc.name != "no name: no identity" {
				opts = append(opts, informers.WithInformerName(name))
			}
			f := informers.NewFactory(0, append(opts, tc.opts...)...)
			informers.InformerFor(f, true, gvrInformer(newPodSource(), tc.id))
			if asked, _ := p.snapshot(); !slices.Equal(asked, tc.want) {
				t.Fatalf("provider asked for %q, want %q", asked, tc.want)
			}
		})
	}
}
