package informers_test

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/typedinformer/typedinformer/internal/testutil"
	"github.com/typedinformer/typedinformer/runtime/cache"
	"github.com/typedinformer/typedinformer/runtime/informers"
	"github.com/typedinformer/typedinformer/runtime/listers"
)

var podType = reflect.TypeFor[*corev1.Pod]()

func TestInformerForOneInformerPerTypePerFactory(t *testing.T) {
	src := newPodSource()
	f := informers.NewFactory(time.Minute)
	calls := 0
	newFunc := func(ns string, resync time.Duration) cache.SharedIndexInformer[*corev1.Pod] {
		calls++
		return src.newInformer(ns, resync)
	}
	a := informers.InformerFor(f, true, newFunc)
	b := informers.InformerFor(f, true, newFunc)
	if a != b || calls != 1 {
		t.Fatalf("second InformerFor built a new informer (calls=%d, same=%v)", calls, a == b)
	}
	if got := f.Informers(); len(got) != 1 || got[podType] == nil {
		t.Fatalf("Informers() = %v", got)
	}
	// Another factory has its own.
	if c := informers.InformerFor(informers.NewFactory(0), true, newFunc); c == a {
		t.Fatal("two factories share an informer")
	}
}

func TestInformerForNamespaceAndResyncFromOptions(t *testing.T) {
	for _, tc := range []struct {
		name       string
		opts       []informers.Option
		namespaced bool
		wantNS     []string
		wantResync time.Duration
	}{
		{"default all namespaces", nil, true, []string{""}, time.Minute},
		{"WithNamespace", []informers.Option{informers.WithNamespace("shop")}, true, []string{"shop"}, time.Minute},
		{"cluster-scoped ignores namespace", []informers.Option{informers.WithNamespace("shop")}, false, []string{""}, time.Minute},
		{"WithNamespaces one per namespace, sorted and deduplicated", []informers.Option{informers.WithNamespaces("b", "a", "b")}, true, []string{"a", "b"}, time.Minute},
		{"WithNamespaces with all collapses", []informers.Option{informers.WithNamespaces("a", metav1.NamespaceAll)}, true, []string{""}, time.Minute},
		{"custom resync by type", []informers.Option{informers.WithCustomResyncConfig(map[metav1.Object]time.Duration{&corev1.Pod{}: 5 * time.Second})}, true, []string{""}, 5 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := informers.NewFactory(time.Minute, tc.opts...)
			var gotNS []string
			var gotResync time.Duration
			informers.InformerFor(f, tc.namespaced, func(ns string, resync time.Duration) cache.SharedIndexInformer[*corev1.Pod] {
				gotNS = append(gotNS, ns)
				gotResync = resync
				return newPodSource().newInformer(ns, resync)
			})
			if !slices.Equal(gotNS, tc.wantNS) || gotResync != tc.wantResync {
				t.Fatalf("newFunc got namespaces %q resync %v, want %q %v", gotNS, gotResync, tc.wantNS, tc.wantResync)
			}
		})
	}
}

func TestFactoryStartStartsOnlyNewInformers(t *testing.T) {
	pods := newPodSource(newPod("a", "p1"))
	nodes := 0
	f := informers.NewFactory(0)
	ctx := factoryContext(t, f)

	informers.InformerFor(f, true, pods.newInformer)
	f.Start(ctx)
	f.Start(ctx) // repeated: must not start a second reflector
	waitFactory(t, f)
	nodeInf := informers.InformerFor(f, false, func(string, time.Duration) cache.SharedIndexInformer[*corev1.Node] {
		nodes++
		return cache.NewSharedIndexInformer[*corev1.Node](staticNodes(), 0, nil)
	})
	if nodeInf.HasSynced() {
		t.Fatal("informer requested after Start runs before the next Start")
	}
	f.Start(ctx)
	synced, err := f.WaitForCacheSync(syncCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	if !synced[podType] || !synced[reflect.TypeFor[*corev1.Node]()] || len(synced) != 2 {
		t.Fatalf("WaitForCacheSync = %v", synced)
	}
	if n := pods.listCalls(""); n != 1 {
		t.Fatalf("pods listed %d times, want 1 (Start ran an informer twice)", n)
	}
}

func TestFactoryWaitForCacheSyncNamesTypeAndForbiddenError(t *testing.T) {
	pods := newPodSource()
	pods.setListErr(apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, "", errors.New(`User "dev" cannot list resource "pods"`)))
	f := informers.NewFactory(0)
	ctx := factoryContext(t, f)
	informers.InformerFor(f, true, pods.newInformer)
	f.Start(ctx)

	// The error must already be known when the wait gives up: wait for the
	// first failed list before starting the short wait.
	testutil.Eventually(t, "a failed list", func() bool { return pods.listCalls("") > 0 })
	wctx, wcancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer wcancel()
	synced, err := f.WaitForCacheSync(wctx)
	if synced[podType] {
		t.Fatal("pods reported synced")
	}
	var nse *cache.NotSyncedError
	if !errors.As(err, &nse) {
		t.Fatalf("err = %v (%T), want *cache.NotSyncedError", err, err)
	}
	if !apierrors.IsForbidden(err) {
		t.Fatalf("err = %v, want it to wrap Forbidden", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "pods()") || !strings.Contains(msg, "forbidden") {
		t.Fatalf("error %q does not name the informer and the Forbidden cause", msg)
	}
}

func TestFactoryAfterShutdownStartInformerForRemoveInformerAndWaitSaySo(t *testing.T) {
	pods := newPodSource(newPod("a", "p1"))
	f := informers.NewFactory(0)
	inf := informers.InformerFor(f, true, pods.newInformer)
	f.Start(context.Background())
	waitFactory(t, f)
	f.Shutdown()
	if !inf.IsStopped() {
		t.Fatal("Shutdown returned before the informer stopped")
	}
	later := informers.InformerFor(f, false, func(string, time.Duration) cache.SharedIndexInformer[*corev1.Node] {
		return cache.NewSharedIndexInformer[*corev1.Node](staticNodes(), 0, nil)
	})
	if err := later.LastError(); !errors.Is(err, informers.ErrShutdown) || later.HasSynced() {
		t.Fatalf("InformerFor after Shutdown: LastError %v, synced %v; want ErrShutdown, unsynced", err, later.HasSynced())
	}
	if _, err := later.AddEventHandler(cache.ResourceEventHandlerFuncs[*corev1.Node]{}); !errors.Is(err, informers.ErrShutdown) {
		t.Fatalf("AddEventHandler on it = %v, want ErrShutdown", err)
	}
	// The informer handed out before keeps its cache and says it is shut down.
	again := informers.InformerFor(f, true, pods.newInformer)
	if !errors.Is(again.LastError(), informers.ErrShutdown) || again.GetStore().Len() != 1 {
		t.Fatalf("InformerFor of a known type after Shutdown: LastError %v, %d cached", again.LastError(), again.GetStore().Len())
	}
	f.Start(context.Background()) // logs ErrShutdown, runs nothing
	synced, err := f.WaitForCacheSync(syncCtx(t))
	if !errors.Is(err, informers.ErrShutdown) || !synced[podType] || len(synced) != 1 {
		t.Fatalf("WaitForCacheSync after Shutdown = %v, %v; want ErrShutdown and only the pods informer (synced)", synced, err)
	}
	if err := f.RemoveInformer(&corev1.Pod{}); !errors.Is(err, informers.ErrShutdown) {
		t.Fatalf("RemoveInformer after Shutdown = %v, want ErrShutdown", err)
	}
}

func TestFactoryShutdownEndsAPendingWaitForCacheSync(t *testing.T) {
	pods := newPodSource()
	pods.setListErr(apierrors.NewServiceUnavailable("down"))
	f := informers.NewFactory(0)
	informers.InformerFor(f, true, pods.newInformer)
	f.Start(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := f.WaitForCacheSync(syncCtx(t))
		errc <- err
	}()
	testutil.Eventually(t, "a failed list", func() bool { return pods.listCalls("") > 0 })
	f.Shutdown()
	if err := <-errc; !errors.Is(err, informers.ErrShutdown) {
		t.Fatalf("WaitForCacheSync pending at Shutdown = %v, want ErrShutdown", err)
	}
}

func TestFactoryNilFunctionsAreReportedNotPanics(t *testing.T) {
	f := informers.NewFactory(0, nil)
	nilResult := informers.InformerFor(f, true, func(string, time.Duration) cache.SharedIndexInformer[*corev1.Pod] { return nil })
	if err := nilResult.LastError(); err == nil || !strings.Contains(err.Error(), "returned nil") {
		t.Fatalf("InformerFor with a NewInformerFunc returning nil: LastError %v", err)
	}
	nilFunc := informers.InformerFor[*corev1.Node](f, false, nil)
	if err := nilFunc.LastError(); err == nil || !strings.Contains(err.Error(), "nil NewInformerFunc") {
		t.Fatalf("InformerFor with a nil NewInformerFunc: LastError %v", err)
	}
	if err := informers.InformerFor[*corev1.Pod](nil, true, newPodSource().newInformer).LastError(); err == nil || !strings.Contains(err.Error(), "nil Factory") {
		t.Fatalf("InformerFor on a nil factory: LastError %v", err)
	}
	ctx := factoryContext(t, f)
	f.Start(ctx)
	if _, err := f.WaitForCacheSync(syncCtx(t)); err == nil || !strings.Contains(err.Error(), "option 0 is nil") {
		t.Fatalf("WaitForCacheSync with a nil option = %v", err)
	}
	g := informers.NewFactory(0)
	informers.InformerFor[*corev1.Node](g, false, nil)
	g.Start(ctx)
	defer g.Shutdown()
	if _, err := g.WaitForCacheSync(syncCtx(t)); err == nil || !strings.Contains(err.Error(), "nil NewInformerFunc") {
		t.Fatalf("WaitForCacheSync with a broken informer = %v", err)
	}
	gi := informers.NewGenericInformer[*corev1.Pod](nil, schema.GroupResource{Resource: "pods"})
	if _, err := gi.Lister().Get("x"); !apierrors.IsNotFound(err) {
		t.Fatalf("lister of a generic informer over nil = %v, want NotFound", err)
	}
	if gi.Informer().LastError() == nil {
		t.Fatal("generic informer over nil reports no error")
	}
}

func TestFactoryRemoveInformerStopsOnlyThatInformer(t *testing.T) {
	pods := newPodSource(newPod("a", "p1"))
	f := informers.NewFactory(0)
	ctx := factoryContext(t, f)
	podInf := informers.InformerFor(f, true, pods.newInformer)
	nodeInf := informers.InformerFor(f, false, func(string, time.Duration) cache.SharedIndexInformer[*corev1.Node] {
		return cache.NewSharedIndexInformer[*corev1.Node](staticNodes(), 0, nil)
	})
	f.Start(ctx)
	waitFactory(t, f)
	if err := f.RemoveInformer(&corev1.Pod{}); err != nil {
		t.Fatal(err)
	}
	if !podInf.IsStopped() {
		t.Fatal("removed informer still running after RemoveInformer returned")
	}
	if nodeInf.IsStopped() {
		t.Fatal("removing pods stopped nodes")
	}
	if err := f.RemoveInformer(&corev1.Pod{}); err == nil || !strings.Contains(err.Error(), "*v1.Pod") {
		t.Fatalf("second RemoveInformer err = %v, want one naming *v1.Pod", err)
	}
	// A new request builds and (after Start) runs a fresh informer.
	again := informers.InformerFor(f, true, pods.newInformer)
	if again == podInf {
		t.Fatal("InformerFor returned the removed informer")
	}
	f.Start(ctx)
	if _, err := f.WaitForCacheSync(syncCtx(t)); err != nil || again.GetStore().Len() != 1 {
		t.Fatalf("fresh informer: err=%v len=%d", err, again.GetStore().Len())
	}
}

func TestFactoryTweakListOptionsReachesEveryList(t *testing.T) {
	pods := newPodSource(newPod("a", "p1"))
	f := informers.NewFactory(0, informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = "app=web" }))
	ctx := factoryContext(t, f)
	informers.InformerFor(f, true, func(ns string, resync time.Duration) cache.SharedIndexInformer[*corev1.Pod] {
		lw := pods.lw(ns)
		tweak := f.TweakListOptions()
		return cache.NewSharedIndexInformer[*corev1.Pod](&cache.ListWatch{
			ListFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
				tweak(&o)
				return lw.List(ctx, o)
			},
			WatchFunc: lw.Watch,
		}, resync, nil)
	})
	f.Start(ctx)
	waitFactory(t, f)
	pods.mu.Lock()
	defer pods.mu.Unlock()
	if len(pods.opts) == 0 || pods.opts[0].LabelSelector != "app=web" {
		t.Fatalf("list options = %+v", pods.opts)
	}
}

func TestFactoryWithTransformAppliesToStoredObjects(t *testing.T) {
	p := newPod("a", "p1")
	p.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "kubectl"}}
	pods := newPodSource(p)
	f := informers.NewFactory(0, informers.WithTransform(func(o runtime.Object) (runtime.Object, error) {
		o.(metav1.Object).SetManagedFields(nil)
		return o, nil
	}))
	ctx := factoryContext(t, f)
	inf := informers.InformerFor(f, true, pods.newInformer)
	f.Start(ctx)
	waitFactory(t, f)
	got, ok, _ := inf.GetStore().GetByKey("a/p1")
	if !ok || got.ManagedFields != nil {
		t.Fatalf("stored pod = %v (ok=%v), want managedFields dropped", got, ok)
	}
}

func TestFactoryWithTransformOfWrongTypeIsReported(t *testing.T) {
	pods := newPodSource(newPod("a", "p1"))
	f := informers.NewFactory(0, informers.WithTransform(func(o runtime.Object) (runtime.Object, error) {
		return &corev1.Node{}, nil
	}))
	ctx := factoryContext(t, f)
	inf := informers.InformerFor(f, true, pods.newInformer)
	f.Start(ctx)
	testutil.Eventually(t, "the transform error", func() bool {
		err := inf.LastError()
		return err != nil && strings.Contains(err.Error(), "*v1.Node") && strings.Contains(err.Error(), "a/p1")
	})
	if inf.GetStore().Len() != 0 {
		t.Fatal("object with a failed transform was stored")
	}
}

func TestFactoryWithNamespacesMergesCachesAndHandlers(t *testing.T) {
	pods := newPodSource(newPod("a", "p1"), newPod("b", "p2"), newPod("c", "p3"))
	f := informers.NewFactory(0, informers.WithNamespaces("a", "b"))
	ctx := factoryContext(t, f)
	inf := informers.InformerFor(f, true, pods.newInformer)

	var inHandler, overlap atomic.Int32
	var mu sync.Mutex
	seen := map[string]bool{}
	reg, err := inf.AddEventHandler(cache.ResourceEventHandlerDetailedFuncs[*corev1.Pod]{
		AddFunc: func(p *corev1.Pod, _ bool) {
			if inHandler.Add(1) > 1 {
				overlap.Add(1)
			}
			time.Sleep(time.Millisecond) // widen the window a concurrent call would need
			mu.Lock()
			seen[p.Namespace+"/"+p.Name] = true
			mu.Unlock()
			inHandler.Add(-1)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	f.Start(ctx)
	waitFactory(t, f)
	if pods.listCalls("a") != 1 || pods.listCalls("b") != 1 || pods.listCalls("") != 0 || pods.listCalls("c") != 0 {
		t.Fatalf("lists per namespace = %v, want one each for a and b only", pods.lists)
	}
	testutil.Eventually(t, "registration synced", reg.HasSynced)

	for i := range 20 {
		pods.add(newPod([]string{"a", "b"}[i%2], "n"+string(rune('a'+i))))
	}
	pods.add(newPod("c", "ignored"))
	testutil.Eventually(t, "all live adds", func() bool { return inf.GetStore().Len() == 22 })
	testutil.Eventually(t, "handler saw every add", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(seen) == 22
	})
	if overlap.Load() != 0 {
		t.Fatalf("handler ran concurrently %d times across namespaces", overlap.Load())
	}

	lister := listers.New(inf.GetIndexer(), schema.GroupResource{Resource: "pods"})
	inA, _ := lister.Namespace("a").List(labels.Everything())
	inC, _ := lister.Namespace("c").List(labels.Everything())
	if len(inA) != 11 || len(inC) != 0 {
		t.Fatalf("namespace a has %d (want 11), c has %d (want 0)", len(inA), len(inC))
	}
	if _, err := lister.Namespace("b").Get("p2"); err != nil {
		t.Fatal(err)
	}
	if err := inf.GetIndexer().Add(newPod("c", "x")); err == nil || !strings.Contains(err.Error(), `"c"`) {
		t.Fatalf("Add to an unwatched namespace: err = %v", err)
	}
	if name := inf.Name(); !strings.Contains(name, "a,b") {
		t.Fatalf("Name() = %q, want the namespaces in it", name)
	}
	if err := inf.RemoveEventHandler(reg); err != nil {
		t.Fatal(err)
	}
	if err := f.RemoveInformer(&corev1.Pod{}); err != nil || !inf.IsStopped() {
		t.Fatalf("RemoveInformer: %v, stopped=%v", err, inf.IsStopped())
	}
}

func TestGenericInformerListsThroughTypedCache(t *testing.T) {
	pods := newPodSource(newPod("a", "p1"), newPod("b", "p2"))
	f := informers.NewFactory(0)
	ctx := factoryContext(t, f)
	g := informers.NewGenericInformer(informers.InformerFor(f, true, pods.newInformer), schema.GroupResource{Resource: "pods"})
	f.Start(ctx)
	if err := cache.WaitForSync(syncCtx(t), g.Informer()); err != nil {
		t.Fatal(err)
	}
	objs, err := g.Lister().List(labels.Everything())
	if err != nil || len(objs) != 2 {
		t.Fatalf("List = %d, %v", len(objs), err)
	}
	if _, err := g.Lister().ByNamespace("a").Get("p2"); !apierrors.IsNotFound(err) {
		t.Fatalf("Get(a/p2) err = %v, want NotFound", err)
	}
}

func staticNodes() cache.ListerWatcher {
	src := newPodSource()
	return &cache.ListWatch{
		ListFunc: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			return &corev1.NodeList{ListMeta: metav1.ListMeta{ResourceVersion: "1"}, Items: []corev1.Node{{ObjectMeta: metav1.ObjectMeta{Name: "n1", ResourceVersion: "1"}}}}, nil
		},
		WatchFunc: src.lw("").Watch,
	}
}

func TestMultiNamespaceAddIndexersRefusesNilAndClashesBeforeChangingAnyNamespace(t *testing.T) {
	f := informers.NewFactory(0, informers.WithNamespaces("a", "b"))
	inf := informers.InformerFor(f, true, newPodSource().newInformer)
	byName := func(p *corev1.Pod) ([]string, error) { return []string{p.Name}, nil }
	if err := inf.AddIndexers(nil); err != nil {
		t.Fatalf("AddIndexers(nil) = %v", err)
	}
	if err := inf.AddIndexers(cache.Indexers[*corev1.Pod]{"x": nil, "y": byName}); err == nil || !strings.Contains(err.Error(), `"x"`) {
		t.Fatalf("AddIndexers with a nil function = %v, want an error naming it", err)
	}
	if got := inf.GetIndexer().GetIndexers(); len(got) != 1 {
		t.Fatalf("a refused AddIndexers changed a namespace: %v", got)
	}
	if err := inf.AddIndexers(cache.Indexers[*corev1.Pod]{"y": byName}); err != nil {
		t.Fatal(err)
	}
	if err := inf.AddIndexers(cache.Indexers[*corev1.Pod]{"y": byName}); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("AddIndexers with a clashing name = %v", err)
	}
}

// client-go v0.37's names for the context-taking Start and wait: the same
// informers, with the wait's result as a cache.SyncResult whose AsError
// names the unsynced type and keeps the cause.
func TestFactoryStartWithContextAndWaitForCacheSyncWithContext(t *testing.T) {
	pods := newPodSource()
	f := informers.NewFactory(0)
	ctx := factoryContext(t, f)
	informers.InformerFor(f, true, pods.newInformer)
	f.StartWithContext(ctx)
	res := f.WaitForCacheSyncWithContext(ctx)
	if res.Err != nil || !res.Synced[podType] || res.AsError() != nil {
		t.Fatalf("synced factory: %+v, AsError %v", res, res.AsError())
	}

	forbidden := newPodSource()
	forbidden.setListErr(apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, "", errors.New("no")))
	g := informers.NewFactory(0)
	gctx := factoryContext(t, g)
	informers.InformerFor(g, true, forbidden.newInformer)
	g.StartWithContext(gctx)
	testutil.Eventually(t, "a failed list", func() bool { return forbidden.listCalls("") > 0 })
	wctx, wcancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer wcancel()
	res = g.WaitForCacheSyncWithContext(wctx)
	if res.Synced[podType] || res.Err == nil {
		t.Fatalf("unsynced factory: %+v", res)
	}
	err := res.AsError()
	if err == nil || !strings.Contains(err.Error(), "failed to sync all caches: *v1.Pod: ") || !apierrors.IsForbidden(err) {
		t.Fatalf("AsError() = %v, want it to name *v1.Pod and wrap Forbidden", err)
	}
}
