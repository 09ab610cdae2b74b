package dynamicinformer_test

import (
	"context"
	"fmt"
	goruntime "runtime"
	"runtime/pprof"
	"strings"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/typedinformer/typedinformer/internal/testutil"
	"github.com/typedinformer/typedinformer/internal/testutil/apiserver"
	"github.com/typedinformer/typedinformer/runtime/cache"
	"github.com/typedinformer/typedinformer/runtime/dynamicinformer"
	"github.com/typedinformer/typedinformer/runtime/fake"
	"github.com/typedinformer/typedinformer/runtime/informers"
	"github.com/typedinformer/typedinformer/runtime/wire"
)

var (
	widgets = schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}
	gadgets = schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "gadgets"}
	missing = schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "nothere"}
)

func object(kind, ns, name string, spec int64) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "example.com/v1", "kind": kind,
		"metadata": map[string]any{"namespace": ns, "name": name, "labels": map[string]any{"app": name}},
		"spec":     map[string]any{"n": spec},
	}}
	return u
}

func waitSynced(t *testing.T, f *dynamicinformer.Factory, want ...schema.GroupVersionResource) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testutil.WaitLimit)
	defer cancel()
	synced, err := f.WaitForCacheSync(ctx)
	if err != nil {
		t.Fatalf("WaitForCacheSync: %v", err)
	}
	for _, gvr := range want {
		if !synced[gvr] {
			t.Fatalf("WaitForCacheSync = %v, want %s synced", synced, gvr)
		}
	}
}

// recorder records a handler's calls as lines.
type recorder struct {
	mu    sync.Mutex
	calls []string
}

func (r *recorder) add(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, fmt.Sprintf(format, args...))
}

func (r *recorder) lines() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.calls...)
}

func (r *recorder) handler() cache.ResourceEventHandler[dynamicinformer.Object] {
	return cache.ResourceEventHandlerDetailedFuncs[dynamicinformer.Object]{
		AddFunc: func(u dynamicinformer.Object, initial bool) {
			r.add("add %s/%s %v", u.GetNamespace(), u.GetName(), initial)
		},
		UpdateFunc: func(o, n dynamicinformer.Object) {
			r.add("update %s/%s %v", n.GetNamespace(), n.GetName(), n.Object["spec"])
		},
		DeleteFunc: func(u dynamicinformer.Object, unknown bool) { r.add("delete %s/%s", u.GetNamespace(), u.GetName()) },
	}
}

func TestFactoryReadsFromTheWire(t *testing.T) {
	ws := apiserver.NewResource(t, "example.com", "Widget", object("Widget", "a", "w1", 1), object("Widget", "b", "w2", 2))
	srv := apiserver.New(t, map[schema.GroupVersionResource]apiserver.Resource{widgets: ws})
	f := dynamicinformer.NewDynamicSharedInformerFactory(wireClient(srv), 0)
	inf := f.ForResource(widgets)
	if f.ForResource(widgets).Informer() != inf.Informer() {
		t.Fatal("a second ForResource built another informer")
	}
	var rec recorder
	if _, err := inf.Informer().AddEventHandler(rec.handler()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer func() { cancel(); f.Shutdown() }()
	f.Start(ctx)
	waitSynced(t, f, widgets)

	w1, err := inf.Lister().Namespace("a").Get("w1")
	if err != nil {
		t.Fatal(err)
	}
	if w1.GetKind() != "Widget" || w1.Object["spec"].(map[string]any)["n"] != int64(1) {
		t.Fatalf("cached %v, want a Widget with spec.n int64 1", w1.Object)
	}
	all, err := inf.Lister().List(labels.Everything())
	if err != nil || len(all) != 2 {
		t.Fatalf("List = %d objects, %v; want 2", len(all), err)
	}
	if _, err := inf.Lister().Namespace("a").Get("w2"); !apierrors.IsNotFound(err) || !strings.Contains(err.Error(), "widgets.example.com") {
		t.Fatalf("Get of a missing object = %v, want NotFound naming widgets.example.com", err)
	}
	if _, err := ws.Server.Update(object("Widget", "a", "w1", 3)); err != nil {
		t.Fatal(err)
	}
	if err := ws.Server.Delete("b", "w2"); err != nil {
		t.Fatal(err)
	}
	want := []string{"add a/w1 true", "add b/w2 true", "update a/w1 map[n:3]", "delete b/w2"}
	testutil.Eventually(t, "the watch events", func() bool { return len(rec.lines()) == len(want) })
	if got := rec.lines(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("handler calls\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestFilteredFactoryAppliesNamespaceAndTweak(t *testing.T) {
	ws := apiserver.NewResource(t, "example.com", "Widget", object("Widget", "a", "w1", 1), object("Widget", "a", "other", 2), object("Widget", "b", "w2", 3))
	srv := apiserver.New(t, map[schema.GroupVersionResource]apiserver.Resource{widgets: ws})
	f := dynamicinformer.NewFilteredDynamicSharedInformerFactory(wireClient(srv), 0, "a", func(o *metav1.ListOptions) { o.LabelSelector = "app=w1" })
	inf := f.ForResource(widgets)
	ctx, cancel := context.WithCancel(context.Background())
	defer func() { cancel(); f.Shutdown() }()
	f.Start(ctx)
	waitSynced(t, f, widgets)
	all, _ := inf.Lister().List(labels.Everything())
	if len(all) != 1 || all[0].GetName() != "w1" {
		t.Fatalf("lister holds %v, want only a/w1", all)
	}
}

// TestClientFuncsFeedTheInformers serves a fake through a plain Client,
// as a unit test would.
func TestClientFuncsFeedTheInformers(t *testing.T) {
	ws := apiserver.NewResource(t, "example.com", "Widget", object("Widget", "a", "w1", 1))
	client := dynamicinformer.ClientFuncs{
		ListFunc: func(ctx context.Context, gvr schema.GroupVersionResource, ns string, o metav1.ListOptions) (*unstructured.UnstructuredList, error) {
			obj, err := ws.Server.ListerWatcher(ns).List(ctx, o)
			if err != nil {
				return nil, err
			}
			l := obj.(*fake.List[*unstructured.Unstructured])
			out := &unstructured.UnstructuredList{Object: map[string]any{}}
			out.SetResourceVersion(l.ResourceVersion)
			for _, it := range l.Items {
				out.Items = append(out.Items, *it)
			}
			return out, nil
		},
		WatchFunc: func(ctx context.Context, gvr schema.GroupVersionResource, ns string, o metav1.ListOptions) (watch.Interface, error) {
			return ws.Server.ListerWatcher(ns).Watch(ctx, o)
		},
	}
	f := dynamicinformer.NewDynamicSharedInformerFactory(client, 0)
	inf := f.ForResource(widgets)
	ctx, cancel := context.WithCancel(context.Background())
	defer func() { cancel(); f.Shutdown() }()
	f.Start(ctx)
	waitSynced(t, f, widgets)
	if _, err := inf.Lister().Namespace("a").Get("w1"); err != nil {
		t.Fatal(err)
	}
	var none dynamicinformer.ClientFuncs
	if _, err := none.List(ctx, widgets, "", metav1.ListOptions{}); err == nil {
		t.Fatal("nil ListFunc: no error")
	}
	if _, err := none.Watch(ctx, widgets, "", metav1.ListOptions{}); err == nil {
		t.Fatal("nil WatchFunc: no error")
	}
}

// runtimeGoroutines returns the stacks of the goroutines running the
// runtime's code or an HTTP connection.
func runtimeGoroutines(t *testing.T) []string {
	t.Helper()
	var b strings.Builder
	if err := pprof.Lookup("goroutine").WriteTo(&b, 2); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, g := range strings.Split(b.String(), "\n\n") {
		if strings.Contains(g, "runtime/pprof.writeGoroutineStacks") {
			continue // this one
		}
		if strings.Contains(g, "typedinformer/runtime/") || strings.Contains(g, "net/http.(*conn)") || strings.Contains(g, "net/http.(*persistConn)") {
			out = append(out, g)
		}
	}
	return out
}

// noRuntimeGoroutines waits until no goroutine runs the runtime's code or
// an HTTP connection, and fails naming them.
func noRuntimeGoroutines(t *testing.T, when string) {
	t.Helper()
	deadline := time.Now().Add(testutil.WaitLimit)
	for {
		g := runtimeGoroutines(t)
		if len(g) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %d goroutines of the runtime or net/http:\n%s", when, len(g), strings.Join(g, "\n\n"))
		}
		goruntime.Gosched()
	}
}

// settled waits until there are at most want goroutines, polling, and
// fails listing the runtime's and net/http's goroutines. (At most: the
// count it is compared with may include a goroutine that was about to
// end, such as a finished list's connection.)
func settled(t *testing.T, what string, want int) {
	t.Helper()
	deadline := time.Now().Add(testutil.WaitLimit)
	for goruntime.NumGoroutine() > want {
		if time.Now().After(deadline) {
			g := runtimeGoroutines(t)
			t.Fatalf("%s: %d goroutines, want %d; of the runtime or net/http:\n%s", what, goruntime.NumGoroutine(), want, strings.Join(g, "\n\n"))
		}
		goruntime.Gosched()
	}
}

// TestRemoveInformerLeavesNothingRunning adds and removes a resource while
// another runs, and requires the goroutines, the open connections and the
// watches under way back where they were after each removal, and at the
// baseline after Shutdown.
func TestRemoveInformerLeavesNothingRunning(t *testing.T) {
	srv := apiserver.New(t, map[schema.GroupVersionResource]apiserver.Resource{
		widgets: apiserver.NewResource(t, "example.com", "Widget", object("Widget", "a", "w1", 1)),
		gadgets: apiserver.NewResource(t, "example.com", "Gadget", object("Gadget", "a", "g1", 1)),
	})
	open := func(conns, watches int) func() bool {
		return func() bool { c, w := srv.Open(); return c == conns && w == watches }
	}
	testutil.Eventually(t, "no connection open", open(0, 0))
	noRuntimeGoroutines(t, "before the factory started")
	baseline := goruntime.NumGoroutine()

	f := dynamicinformer.NewDynamicSharedInformerFactory(wireClient(srv), 0)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w := f.ForResource(widgets)
	f.Start(ctx)
	waitSynced(t, f, widgets)
	testutil.Eventually(t, "the widgets' watch alone", open(1, 1))
	oneRunning := goruntime.NumGoroutine()

	for cycle := range 3 {
		g := f.ForResource(gadgets) // starts at once: the factory runs
		waitSynced(t, f, widgets, gadgets)
		testutil.Eventually(t, "both watches", open(2, 2))
		if _, err := g.Lister().Namespace("a").Get("g1"); err != nil {
			t.Fatalf("cycle %d: %v", cycle, err)
		}
		if err := f.RemoveInformer(gadgets); err != nil {
			t.Fatal(err)
		}
		testutil.Eventually(t, "the gadgets' watch closed", open(1, 1))
		settled(t, fmt.Sprintf("cycle %d: the goroutines of one informer (%d)", cycle, oneRunning), oneRunning)
		if !g.Informer().IsStopped() {
			t.Fatalf("cycle %d: the removed informer has not stopped", cycle)
		}
		if got := f.Resources(); len(got) != 1 || got[0] != widgets {
			t.Fatalf("cycle %d: Resources = %v, want only widgets", cycle, got)
		}
	}
	if err := f.RemoveInformer(gadgets); err == nil || !strings.Contains(err.Error(), "gadgets") {
		t.Fatalf("removing a resource twice = %v, want an error naming it", err)
	}
	if _, err := w.Lister().Namespace("a").Get("w1"); err != nil {
		t.Fatal(err)
	}

	f.Shutdown()
	testutil.Eventually(t, "no connection open after Shutdown", open(0, 0))
	settled(t, fmt.Sprintf("the goroutines before the factory started (%d)", baseline), baseline)
	noRuntimeGoroutines(t, "after Shutdown")
	if err := f.RemoveInformer(widgets); err == nil || !strings.Contains(err.Error(), informers.ErrShutdown.Error()) {
		t.Fatalf("RemoveInformer after Shutdown = %v, want ErrShutdown", err)
	}
}

// TestUnservedResourceIsNamedAndLosesNothing runs a resource the server
// does not serve beside one it does: WaitForCacheSync names the missing
// one and why, the served one's cache is complete and keeps following
// its watch, and removing the missing one leaves the factory synced.
func TestUnservedResourceIsNamedAndLosesNothing(t *testing.T) {
	ws := apiserver.NewResource(t, "example.com", "Widget", object("Widget", "a", "w1", 1), object("Widget", "a", "w2", 2))
	srv := apiserver.New(t, map[schema.GroupVersionResource]apiserver.Resource{widgets: ws})
	f := dynamicinformer.NewDynamicSharedInformerFactory(wireClient(srv), 0)
	w := f.ForResource(widgets)
	bad := f.ForResource(missing)
	ctx, cancel := context.WithCancel(context.Background())
	defer func() { cancel(); f.Shutdown() }()
	f.Start(ctx)

	testutil.Eventually(t, "the missing resource's list error", func() bool { return bad.Informer().LastError() != nil })
	wctx, wcancel := context.WithTimeout(ctx, time.Second)
	synced, err := f.WaitForCacheSync(wctx)
	wcancel()
	if err == nil || !strings.Contains(err.Error(), "nothere") || !apierrors.IsNotFound(bad.Informer().LastError()) ||
		!strings.Contains(err.Error(), "does not serve") {
		t.Fatalf("WaitForCacheSync error = %v, want one naming nothere and saying it is not served", err)
	}
	if !synced[widgets] || synced[missing] {
		t.Fatalf("synced = %v, want widgets only", synced)
	}
	if all, _ := w.Lister().List(labels.Everything()); len(all) != 2 {
		t.Fatalf("widgets cached %d, want 2", len(all))
	}
	if _, err := ws.Server.Create(object("Widget", "a", "w3", 3)); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, "the widget created later", func() bool { _, err := w.Lister().Namespace("a").Get("w3"); return err == nil })

	if err := f.RemoveInformer(missing); err != nil {
		t.Fatal(err)
	}
	waitSynced(t, f, widgets)
}

// TestWireClientRejectsBadInput: a resource without a version, and a
// FetchFunc that fails, give informers that never sync and say why.
func TestWireClientRejectsBadInput(t *testing.T) {
	c := dynamicinformer.NewWireClient(func(gvr schema.GroupVersionResource, ns string) (wire.Fetch, error) {
		return nil, fmt.Errorf("no route to %s", gvr.Resource)
	}, wire.Options{})
	if _, err := c.UnstructuredListWatch(schema.GroupVersionResource{Resource: "widgets"}, ""); err == nil || !strings.Contains(err.Error(), "no version") {
		t.Fatalf("a resource without version = %v", err)
	}
	inf := dynamicinformer.NewFilteredDynamicInformer(c, widgets, "", 0, nil, nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); inf.Run(ctx) }()
	testutil.Eventually(t, "the fetch error", func() bool { return inf.LastError() != nil })
	cancel()
	<-done
	if err := inf.LastError(); !strings.Contains(err.Error(), "no route to widgets") || !strings.Contains(err.Error(), "widgets.v1.example.com") {
		t.Fatalf("LastError = %v, want the FetchFunc's error naming the resource", err)
	}
	if _, err := c.List(ctx, widgets, "", metav1.ListOptions{}); err == nil {
		t.Fatal("List through a failing FetchFunc: no error")
	}
}
