// Package names uses client-go v0.37's typed informer API and the typed
// informers code-generator v0.37 emits, the way a controller written
// against them does, and records what it observes. The same file exists
// twice: clientgo/ imports client-go and code-generator's output, typed/
// imports typedinformer's runtime and informer-gen's output; the test in
// names/ checks that the two differ only in their import paths and observe
// the same things.
package names

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/klog/v2"

	samplesv1alpha1 "github.com/typedinformer/typedinformer/examples/crd/apis/samples/v1alpha1"
	"github.com/typedinformer/typedinformer/examples/crd/pkg/generated/clientset/versioned/fake"

	informers "github.com/typedinformer/typedinformer/examples/crd/pkg/generated/informers/externalversions"
	"github.com/typedinformer/typedinformer/examples/crd/pkg/generated/informers/externalversions/internalinterfaces"
	foos "github.com/typedinformer/typedinformer/examples/crd/pkg/generated/informers/externalversions/samples/v1alpha1"
	"github.com/typedinformer/typedinformer/runtime/cache"
)

// journal records the calls of several handlers, each in its own list.
type journal struct {
	mu    sync.Mutex
	calls map[string][]string
}

func (j *journal) add(handler, format string, args ...any) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.calls[handler] = append(j.calls[handler], fmt.Sprintf(format, args...))
}

func (j *journal) count() int {
	j.mu.Lock()
	defer j.mu.Unlock()
	n := 0
	for _, c := range j.calls {
		n += len(c)
	}
	return n
}

func (j *journal) lines() []string {
	j.mu.Lock()
	defer j.mu.Unlock()
	var out []string
	for _, h := range slices.Sorted(func(yield func(string) bool) {
		for h := range j.calls {
			if !yield(h) {
				return
			}
		}
	}) {
		out = append(out, h+": "+strings.Join(j.calls[h], "; "))
	}
	return out
}

// deleted describes a DeletedObject through every accessor.
func deleted(d cache.DeletedObject[*samplesv1alpha1.Foo]) string {
	return fmt.Sprintf("delete key=%s name=%s ns=%s objname=%s kobj=%s obj=%s unknown=%t",
		d.GetKey(), d.GetName(), d.GetNamespace(), d.GetObjectName(), klog.KObj(d), d.OptionalObj.Name, d.FinalStateUnknown != nil)
}

// inspector is a handler of its own type, as controllers write them.
type inspector struct{ j *journal }

var _ cache.TypedResourceEventHandler[*samplesv1alpha1.Foo] = inspector{}

func (i inspector) OnAdd(obj *samplesv1alpha1.Foo, isInInitialList bool) {
	i.j.add("inspector", "add %s initial=%t", obj.Name, isInInitialList)
}

func (i inspector) OnUpdate(oldObj, newObj *samplesv1alpha1.Foo) {
	i.j.add("inspector", "update %s %q->%q", newObj.Name, oldObj.Status.Phase, newObj.Status.Phase)
}

func (i inspector) OnDelete(obj foos.DeletedFoo) { i.j.add("inspector", "%s", deleted(obj)) }

// gauge and histogram record what an informer metrics provider's metrics
// are given.
type gauge struct{ v *float64 }

func (g gauge) Set(v float64) { *g.v = v }

type histogram struct{ n *int }

func (h histogram) Observe(float64) { *h.n++ }

// provider is an informer metrics provider as Kubernetes components write
// them: one metric per identity and kind.
type provider struct {
	asked  []string
	queued float64
	rv     float64
	seen   int
}

var _ cache.InformerMetricsProvider = (*provider)(nil)

func (p *provider) NewQueuedItemMetric(id cache.InformerNameAndResource) cache.GaugeMetric {
	p.asked = append(p.asked, "queued "+id.Name()+" "+id.GroupVersionResource().String())
	return gauge{&p.queued}
}

func (p *provider) NewProcessingLatencyMetric(id cache.InformerNameAndResource) cache.HistogramMetric {
	p.asked = append(p.asked, "latency "+id.Name())
	return histogram{&p.seen}
}

func (p *provider) NewStoreResourceVersionMetric(id cache.InformerNameAndResource) cache.GaugeMetric {
	p.asked = append(p.asked, "rv "+id.Name())
	return gauge{&p.rv}
}

func foo(name, class string) *samplesv1alpha1.Foo {
	return &samplesv1alpha1.Foo{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name},
		Spec:       samplesv1alpha1.FooSpec{ClassName: class},
	}
}

// Observe runs the names against a fake clientset and returns one line per
// observation.
func Observe(ctx context.Context) ([]string, error) {
	var out []string
	log := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()

	// Identity for metrics.
	name, err := cache.NewInformerName("names")
	if err != nil {
		return nil, err
	}
	defer name.Release()
	gvr := schema.GroupVersionResource{Group: "samples.typedinformer.dev", Version: "v1alpha1", Resource: "foos"}
	first, again := name.WithResource(gvr), name.WithResource(gvr)
	log("identity %s %s: reserved %t, again %t", first.Name(), first.GroupVersionResource().Resource, first.Reserved(), again.Reserved())
	_, err = cache.NewInformerName("")
	log("empty name rejected: %t", err != nil)
	var metrics cache.InformerMetricsProvider = &provider{}
	metrics.NewQueuedItemMetric(first).Set(2)
	metrics.NewProcessingLatencyMetric(first).Observe(0.5)
	metrics.NewStoreResourceVersionMetric(first).Set(7)
	p := metrics.(*provider)
	log("provider asked %v; queued %v, rv %v, observed %d", p.asked, p.queued, p.rv, p.seen)

	client := fake.NewSimpleClientset(foo("a", "gold"))
	factory := informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithNamespace("shop"), informers.WithInformerName(name))
	log("factory name: %s", factory.InformerName().Name())

	var typed foos.TypedFooInformer = factory.Samples().V1alpha1().Foos()
	var inf foos.FooIndexInformer = typed.TypedInformer()
	log("Informer() and TypedInformer() share a store: %t", typed.Informer().GetIndexer() == inf.GetIndexer())
	lister := typed.Lister()

	j := &journal{calls: map[string][]string{}}
	var funcs foos.FooHandlerFuncs = foos.FooHandlerFuncs{
		AddFunc:    func(obj *samplesv1alpha1.Foo) { j.add("funcs", "add %s", obj.Name) },
		UpdateFunc: func(oldObj, newObj *samplesv1alpha1.Foo) { j.add("funcs", "update %s", newObj.Name) },
		DeleteFunc: func(obj foos.DeletedFoo) { j.add("funcs", "%s", deleted(obj)) },
	}
	detailed := foos.FooDetailedHandlerFuncs{
		AddFunc: func(obj *samplesv1alpha1.Foo, isInInitialList bool) {
			j.add("detailed", "add %s initial=%t", obj.Name, isInInitialList)
		},
		UpdateFunc: func(oldObj, newObj *samplesv1alpha1.Foo) { j.add("detailed", "update %s", newObj.Name) },
		DeleteFunc: func(obj cache.DeletedObject[*samplesv1alpha1.Foo]) { j.add("detailed", "%s", deleted(obj)) },
	}
	filtered := foos.FooFilteringHandler{
		FilterFunc: func(obj *samplesv1alpha1.Foo) bool { return obj.Spec.ClassName == "gold" },
		Handler: cache.TypedResourceEventHandlerFuncs[*samplesv1alpha1.Foo]{
			AddFunc:    func(obj *samplesv1alpha1.Foo) { j.add("gold", "add %s", obj.Name) },
			UpdateFunc: func(oldObj, newObj *samplesv1alpha1.Foo) { j.add("gold", "update %s", newObj.Name) },
			DeleteFunc: func(obj cache.DeletedObject[*samplesv1alpha1.Foo]) { j.add("gold", "%s", deleted(obj)) },
		},
	}
	var generic cache.TypedFilteringResourceEventHandler[*samplesv1alpha1.Foo] = filtered
	var detailedGeneric cache.TypedResourceEventHandlerDetailedFuncs[*samplesv1alpha1.Foo] = detailed
	noResync := time.Duration(0)
	var regs []cache.InformerSynced
	var handles []cache.ResourceEventHandlerRegistration
	for _, h := range []struct {
		h    cache.TypedResourceEventHandler[*samplesv1alpha1.Foo]
		opts []cache.HandlerOptions
	}{
		{funcs, nil},
		{detailedGeneric, []cache.HandlerOptions{{ResyncPeriod: &noResync}}},
		{generic, nil},
		{inspector{j}, []cache.HandlerOptions{{}}},
	} {
		reg, err := inf.AddTypedEventHandler(h.h, h.opts...)
		if err != nil {
			return nil, err
		}
		regs = append(regs, reg.HasSynced)
		handles = append(handles, reg)
	}
	_, err = inf.AddTypedEventHandler(funcs, cache.HandlerOptions{}, cache.HandlerOptions{})
	log("two HandlerOptions rejected: %t", err != nil)

	var byClass cache.TypedIndexFunc[*samplesv1alpha1.Foo] = func(obj *samplesv1alpha1.Foo) ([]string, error) {
		return []string{obj.Spec.ClassName}, nil
	}
	if err := inf.AddTypedIndexers(foos.FooIndexers{"class": byClass}); err != nil {
		return nil, err
	}
	var more cache.TypedIndexers[*samplesv1alpha1.Foo] = cache.TypedIndexers[*samplesv1alpha1.Foo]{
		"name": func(obj *samplesv1alpha1.Foo) ([]string, error) { return []string{obj.Name}, nil },
	}

	// Independent informers: built, not run.
	standalone := []foos.FooIndexInformer{
		foos.NewTypedFooInformer(client, "shop", 0, more),
		foos.NewTypedFilteredFooInformer(client, "shop", time.Minute, foos.FooIndexers{}, func(o *metav1.ListOptions) { o.LabelSelector = "a=b" }),
		foos.NewTypedFooInformerWithOptions(client, "shop", internalinterfaces.InformerOptions{ResyncPeriod: time.Minute, Indexers: cache.TypedIndexersToIndexers(more), InformerName: name}),
		foos.ToFooIndexInformer(foos.NewFooInformerWithOptions(client, "shop", internalinterfaces.InformerOptions{})),
		foos.ToTypedFooInformer(typed).TypedInformer(),
	}
	for i, s := range standalone {
		log("standalone %d synced before start: %t", i, s.HasSynced())
	}

	runCtx, stop := context.WithCancel(ctx)
	defer factory.Shutdown() // after stop: Shutdown waits for the informers
	defer stop()
	factory.StartWithContext(runCtx)
	res := factory.WaitForCacheSyncWithContext(ctx)
	if err := res.AsError(); err != nil {
		return nil, err
	}
	for typ, ok := range res.Synced {
		log("synced %s: %t", typ, ok)
	}
	if !cache.WaitForCacheSync(ctx.Done(), regs...) {
		return nil, fmt.Errorf("handlers did not sync: %w", ctx.Err())
	}

	// Waiting without polling: the informer's and each handler's
	// DoneChecker.
	checkers := []cache.DoneChecker{inf.HasSyncedChecker(), typed.Informer().HasSyncedChecker()}
	for _, h := range handles {
		checkers = append(checkers, h.HasSyncedChecker())
	}
	log("WaitFor informers and handlers: %t", cache.WaitFor(ctx, "foos", checkers...))
	allDone := true
	for _, c := range checkers {
		allDone = allDone && cache.IsDone(c)
	}
	log("IsDone for each: %t", allDone)
	cancelled, cancelNow := context.WithCancel(ctx)
	cancelNow()
	log("WaitFor on a cancelled context, all done: %t", cache.WaitFor(cancelled, "", checkers...))
	var notStarted cache.DoneChecker = standalone[0].HasSyncedChecker()
	log("informer never started: IsDone %t, WaitFor on a cancelled context %t", cache.IsDone(notStarted), cache.WaitFor(cancelled, "", notStarted))

	// Changes through the fake clientset, which sets no resourceVersion.
	samples := client.SamplesV1alpha1().Foos("shop")
	steps := []func() error{
		func() error { _, err := samples.Create(ctx, foo("b", "silver"), metav1.CreateOptions{}); return err },
		func() error {
			a := foo("a", "gold")
			a.Spec.Data = map[string]string{"k": "v"}
			_, err := samples.Update(ctx, a, metav1.UpdateOptions{})
			return err
		},
		func() error {
			a, err := samples.Get(ctx, "a", metav1.GetOptions{})
			if err != nil {
				return err
			}
			a.Status.Phase = "Ready"
			_, err = samples.UpdateStatus(ctx, a, metav1.UpdateOptions{})
			return err
		},
		func() error {
			b := foo("b", "gold") // joins the filter: an add there
			_, err := samples.Update(ctx, b, metav1.UpdateOptions{})
			return err
		},
		func() error { return samples.Delete(ctx, "b", metav1.DeleteOptions{}) },
	}
	// Each step's notifications: funcs, detailed and inspector get every
	// change; gold only those involving a gold Foo.
	wantAfter := []int{3, 3 + 3 + 1, 3 + 3 + 1 + 3 + 1, 3 + 3 + 1 + 3 + 1 + 3 + 1, 3 + 3 + 1 + 3 + 1 + 3 + 1 + 3 + 1}
	initial := j.count()
	for i, step := range steps {
		if err := step(); err != nil {
			return nil, fmt.Errorf("step %d: %w", i, err)
		}
		for j.count()-initial < wantAfter[i] {
			select {
			case <-ctx.Done():
				return append(out, j.lines()...), fmt.Errorf("step %d: %d notifications, want %d: %w", i, j.count()-initial, wantAfter[i], ctx.Err())
			case <-time.After(time.Millisecond):
			}
		}
	}
	out = append(out, j.lines()...)

	idx := inf.GetTypedIndexer()
	var typedIdx cache.TypedIndexer[*samplesv1alpha1.Foo] = idx
	gold, err := typedIdx.ByTypedIndex("class", "gold")
	log("ByTypedIndex gold: %d %v", len(gold), err)
	a, err := lister.Foos("shop").Get("a")
	if err != nil {
		return nil, err
	}
	same, err := idx.TypedIndex("class", a)
	log("TypedIndex of a: %d %v; phase %q", len(same), err, a.Status.Phase)
	return out, nil
}
