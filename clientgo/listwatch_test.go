package clientgo_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	toolscache "k8s.io/client-go/tools/cache"

	"github.com/typedinformer/typedinformer/clientgo"
	"github.com/typedinformer/typedinformer/runtime/cache"
)

// firstCallLW records the first call an informer makes and then blocks
// every call until ctx ends.
type firstCallLW struct {
	unsupported bool
	mu          sync.Mutex
	first       string
	called      chan struct{}
}

func (l *firstCallLW) note(call string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.first == "" {
		l.first = call
		close(l.called)
	}
}

func (l *firstCallLW) List(opts metav1.ListOptions) (runtime.Object, error) {
	l.note("list")
	return nil, fmt.Errorf("not served")
}

func (l *firstCallLW) Watch(opts metav1.ListOptions) (watch.Interface, error) {
	l.note(fmt.Sprintf("watch sendInitialEvents=%v", opts.SendInitialEvents != nil && *opts.SendInitialEvents))
	return nil, fmt.Errorf("not served")
}

func (l *firstCallLW) IsWatchListSemanticsUnSupported() bool { return l.unsupported }

// TestWatchListSemantics: a ListerWatcher that says it cannot stream a
// watch-list is listed first; one that can is asked for a watch-list
// stream first, as client-go's informer does.
func TestWatchListSemantics(t *testing.T) {
	for _, unsupported := range []bool{true, false} {
		t.Run(fmt.Sprintf("unsupported=%v", unsupported), func(t *testing.T) {
			got := map[string]map[string][]string{}
			for _, im := range impls {
				lw := &firstCallLW{unsupported: unsupported, called: make(chan struct{})}
				inf := im.new(lw, &corev1.Pod{}, 0, nil)
				ctx, cancel := context.WithCancel(t.Context())
				done := make(chan struct{})
				go func() { defer close(done); inf.RunWithContext(ctx) }()
				<-lw.called
				cancel()
				<-done
				got[im.name] = map[string][]string{"first call": {lw.first}}
			}
			compare(t, got)
		})
	}
}

type gauge struct {
	mu  sync.Mutex
	set []float64
}

func (g *gauge) Set(v float64)   { g.mu.Lock(); g.set = append(g.set, v); g.mu.Unlock() }
func (g *gauge) Observe(float64) {}

func (g *gauge) last() (float64, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.set) == 0 {
		return 0, false
	}
	return g.set[len(g.set)-1], true
}

// provider is a client-go InformerMetricsProvider recording the identity
// it was asked for.
type provider struct {
	mu  sync.Mutex
	ids []string
	rv  gauge
}

func (p *provider) note(id toolscache.InformerNameAndResource) {
	p.mu.Lock()
	p.ids = append(p.ids, id.Name()+" "+id.GroupVersionResource().String())
	p.mu.Unlock()
}

func (p *provider) NewQueuedItemMetric(id toolscache.InformerNameAndResource) toolscache.GaugeMetric {
	p.note(id)
	return &gauge{}
}

func (p *provider) NewProcessingLatencyMetric(id toolscache.InformerNameAndResource) toolscache.HistogramMetric {
	p.note(id)
	return &gauge{}
}

func (p *provider) NewStoreResourceVersionMetric(id toolscache.InformerNameAndResource) toolscache.GaugeMetric {
	p.note(id)
	return &p.rv
}

// TestInformerMetricsProvider: client-go's metrics provider and identity
// in SharedIndexInformerOptions get the informer's metrics.
func TestInformerMetricsProvider(t *testing.T) {
	name, err := toolscache.NewInformerName("clientgo-test")
	if err != nil {
		t.Fatal(err)
	}
	defer name.Release()
	p := &provider{}
	lw := &scriptedLW{lists: []runtime.Object{podList("42", pod("a", "p1", "41", "1"))}, watches: make(chan *watch.RaceFreeFakeWatcher, 4)}
	inf := clientgo.NewSharedIndexInformerWithOptions(lw, &corev1.Pod{}, toolscache.SharedIndexInformerOptions{
		Identifier:              name.WithResource(schema.GroupVersionResource{Version: "v1", Resource: "pods"}),
		InformerMetricsProvider: p,
	})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { defer close(done); inf.RunWithContext(ctx) }()
	defer func() { cancel(); <-done }()
	<-inf.HasSyncedChecker().Done()
	waitFor(t, "the store resourceVersion gauge", func() bool { v, ok := p.rv.last(); return ok && v == 42 })
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.ids) != 3 || p.ids[0] != "clientgo-test /v1, Resource=pods" {
		t.Errorf("provider asked for %q, want the three metrics of clientgo-test /v1, Resource=pods", p.ids)
	}
}

// itemsLW fails List and serves its Pods through ListItems, the runtime's
// cache.ItemLister[cache.Object]; its watch blocks until ctx ends.
type itemsLW struct{ pods []*corev1.Pod }

func (l *itemsLW) List(metav1.ListOptions) (runtime.Object, error) {
	return nil, fmt.Errorf("List called on a ListerWatcher that lists item by item")
}

func (l *itemsLW) Watch(metav1.ListOptions) (watch.Interface, error) { return watch.NewFake(), nil }

func (l *itemsLW) IsWatchListSemanticsUnSupported() bool { return true }

func (l *itemsLW) ListItems(_ context.Context, _ metav1.ListOptions, yield func(cache.Object) error) (*metav1.ListMeta, error) {
	for _, p := range l.pods {
		if err := yield(p.DeepCopy()); err != nil {
			return nil, err
		}
	}
	return &metav1.ListMeta{ResourceVersion: "3"}, nil
}

// TestItemListerIsUsed: a ListerWatcher that lists item by item syncs the
// informer through ListItems, never List.
func TestItemListerIsUsed(t *testing.T) {
	lw := &itemsLW{pods: []*corev1.Pod{
		{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "p", ResourceVersion: "2"}},
		{ObjectMeta: metav1.ObjectMeta{Namespace: "b", Name: "q", ResourceVersion: "3"}},
	}}
	inf := clientgo.NewSharedIndexInformer(lw, &corev1.Pod{}, 0, nil)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { defer close(done); inf.RunWithContext(ctx) }()
	defer func() { cancel(); <-done }()
	wait, stop := context.WithTimeout(ctx, time.Minute)
	defer stop()
	if !toolscache.WaitForCacheSync(wait.Done(), inf.HasSynced) {
		t.Fatalf("not synced within a minute: %v", inf.(interface{ LastError() error }).LastError())
	}
	if keys := inf.GetStore().ListKeys(); len(keys) != 2 {
		t.Errorf("store keys = %v, want a/p and b/q", keys)
	}
	if err := inf.(interface{ LastError() error }).LastError(); err != nil {
		t.Errorf("LastError = %v", err)
	}
}
