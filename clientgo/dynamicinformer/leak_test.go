package dynamicinformer_test

import (
	"context"
	"fmt"
	"net/http"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/typedinformer/typedinformer/clientgo/dynamicinformer"
	"github.com/typedinformer/typedinformer/internal/testutil/apiserver"
)

var (
	gadgets = schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "gadgets"}
	missing = schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "nothere"}
)

// dynamicClient is a real dynamic client of srv that keeps no idle
// connection, so that every open connection is a request under way.
func dynamicClient(t *testing.T, srv *apiserver.Server) *dynamic.DynamicClient {
	t.Helper()
	dc, err := dynamic.NewForConfig(&rest.Config{Host: srv.URL, Transport: &http.Transport{DisableKeepAlives: true}})
	if err != nil {
		t.Fatal(err)
	}
	return dc
}

// stacks returns the goroutines running the runtime's, clientgo's or an
// HTTP connection's code, but the caller's.
func stacks(t *testing.T) []string {
	t.Helper()
	var b strings.Builder
	if err := pprof.Lookup("goroutine").WriteTo(&b, 2); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, g := range strings.Split(b.String(), "\n\n") {
		if strings.Contains(g, "runtime/pprof.writeGoroutineStacks") {
			continue
		}
		if strings.Contains(g, "typedinformer/runtime/") || strings.Contains(g, "typedinformer/clientgo.") ||
			strings.Contains(g, "net/http.(*conn)") || strings.Contains(g, "net/http.(*persistConn)") {
			out = append(out, g)
		}
	}
	return out
}

// poll calls cond until it holds, failing with what() after a deadline.
func poll(t *testing.T, what func() string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal(what())
		}
		runtime.Gosched()
		time.Sleep(100 * time.Microsecond)
	}
}

// TestRemoveInformerLeavesNothingRunning adds and removes a resource of a
// running factory over a real dynamic client and HTTP server, and requires
// the connections, the watches under way and the goroutines back where
// they were after each removal, and none of them after Shutdown.
func TestRemoveInformerLeavesNothingRunning(t *testing.T) {
	srv := apiserver.New(t, map[schema.GroupVersionResource]apiserver.Resource{
		widgets: apiserver.NewResource(t, "example.com", "Widget", widget("a", "w1", 1)),
		gadgets: apiserver.NewResource(t, "example.com", "Gadget", widget("a", "g1", 1)),
	})
	open := func(conns, watches int) {
		t.Helper()
		poll(t, func() string {
			c, w := srv.Open()
			return fmt.Sprintf("%d connections and %d watches, want %d and %d", c, w, conns, watches)
		}, func() bool {
			c, w := srv.Open()
			return c == conns && w == watches
		})
	}
	noneOf := func(when string) {
		t.Helper()
		poll(t, func() string { return when + ": goroutines left:\n" + strings.Join(stacks(t), "\n\n") }, func() bool { return len(stacks(t)) == 0 })
	}
	noneOf("before the factory")
	baseline := runtime.NumGoroutine()

	f := dynamicinformer.NewDynamicSharedInformerFactory(dynamicClient(t, srv), 0)
	w := f.ForResource(widgets)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f.StartWithContext(ctx)
	if synced, err := f.WaitForCacheSyncWithContext(ctx); err != nil || !synced[widgets] {
		t.Fatalf("WaitForCacheSyncWithContext = %v, %v", synced, err)
	}
	open(1, 1)
	oneRunning := runtime.NumGoroutine()
	for cycle := range 3 {
		g := f.ForResource(gadgets)
		f.StartWithContext(ctx)
		if synced, err := f.WaitForCacheSyncWithContext(ctx); err != nil || !synced[gadgets] {
			t.Fatalf("cycle %d: WaitForCacheSyncWithContext = %v, %v", cycle, synced, err)
		}
		open(2, 2)
		if _, err := g.Lister().ByNamespace("a").Get("g1"); err != nil {
			t.Fatalf("cycle %d: %v", cycle, err)
		}
		if err := f.RemoveInformer(gadgets); err != nil {
			t.Fatal(err)
		}
		open(1, 1)
		poll(t, func() string {
			return "cycle " + itoa(cycle) + ": " + itoa(runtime.NumGoroutine()) + " goroutines, want at most " + itoa(oneRunning) + ":\n" + strings.Join(stacks(t), "\n\n")
		}, func() bool { return runtime.NumGoroutine() <= oneRunning })
	}
	if err := f.RemoveInformer(gadgets); err == nil || !strings.Contains(err.Error(), "gadgets") {
		t.Fatalf("removing a resource twice = %v, want an error naming it", err)
	}
	if _, err := w.Lister().ByNamespace("a").Get("w1"); err != nil {
		t.Fatal(err)
	}
	f.Shutdown()
	open(0, 0)
	noneOf("after Shutdown")
	poll(t, func() string { return itoa(runtime.NumGoroutine()) + " goroutines, want " + itoa(baseline) }, func() bool { return runtime.NumGoroutine() <= baseline })
	if err := f.RemoveInformer(widgets); err == nil {
		t.Fatal("RemoveInformer after Shutdown: no error")
	}
}

// TestUnservedResourceIsNamedAndLosesNothing: a resource the server does
// not serve is named with the reason; the served one stays complete.
func TestUnservedResourceIsNamedAndLosesNothing(t *testing.T) {
	ws := apiserver.NewResource(t, "example.com", "Widget", widget("a", "w1", 1), widget("a", "w2", 2))
	srv := apiserver.New(t, map[schema.GroupVersionResource]apiserver.Resource{widgets: ws})
	f := dynamicinformer.NewDynamicSharedInformerFactory(dynamicClient(t, srv), 0)
	w := f.ForResource(widgets)
	f.ForResource(missing)
	ctx, cancel := context.WithCancel(context.Background())
	defer func() { cancel(); f.Shutdown() }()
	f.StartWithContext(ctx)
	wctx, wcancel := context.WithTimeout(ctx, 2*time.Second)
	synced, err := f.WaitForCacheSyncWithContext(wctx)
	wcancel()
	if err == nil || !strings.Contains(err.Error(), "nothere") || !apierrors.IsNotFound(err) || !synced[widgets] || synced[missing] {
		t.Fatalf("WaitForCacheSyncWithContext = %v, %v; want widgets synced and a NotFound naming nothere", synced, err)
	}
	if all, _ := w.Lister().List(labels.Everything()); len(all) != 2 {
		t.Fatalf("widgets cached %d, want 2", len(all))
	}
	if err := f.RemoveInformer(missing); err != nil {
		t.Fatal(err)
	}
	if synced, err := f.WaitForCacheSyncWithContext(ctx); err != nil || len(synced) != 1 {
		t.Fatalf("after the removal: %v, %v", synced, err)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }
