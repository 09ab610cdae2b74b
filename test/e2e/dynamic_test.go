package e2e

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	cgdynamicinformer "k8s.io/client-go/dynamic/dynamicinformer"
	toolscache "k8s.io/client-go/tools/cache"

	"github.com/typedinformer/typedinformer/clientgo/dynamicinformer"
)

// dynTranscript records a handler's calls, one line each.
type dynTranscript struct {
	mu    sync.Mutex
	calls []string
}

func (t *dynTranscript) lines() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Clone(t.calls)
}

func describeUnstructured(obj any) string {
	switch o := obj.(type) {
	case *unstructured.Unstructured:
		v, _, _ := unstructured.NestedString(o.Object, "data", "v")
		return fmt.Sprintf("%s/%s rv=%s v=%s kind=%s", o.GetNamespace(), o.GetName(), o.GetResourceVersion(), v, o.GetKind())
	case toolscache.DeletedFinalStateUnknown:
		return "tombstone(" + o.Key + ": " + describeUnstructured(o.Obj) + ")"
	}
	return fmt.Sprintf("%T", obj)
}

func (t *dynTranscript) handler() toolscache.ResourceEventHandler {
	add := func(s string) {
		t.mu.Lock()
		defer t.mu.Unlock()
		t.calls = append(t.calls, s)
	}
	return toolscache.ResourceEventHandlerDetailedFuncs{
		AddFunc: func(obj any, initial bool) {
			add(fmt.Sprintf("add %s initial=%v", describeUnstructured(obj), initial))
		},
		UpdateFunc: func(o, n any) { add(fmt.Sprintf("update %s -> %s", describeUnstructured(o), describeUnstructured(n))) },
		DeleteFunc: func(obj any) { add("delete " + describeUnstructured(obj)) },
	}
}

// sortedInitial sorts the leading run of initial adds, which a late
// handler gets in the order of the cache (a map in client-go).
func sortedInitial(lines []string) []string {
	out := slices.Clone(lines)
	i := 0
	for i < len(out) && strings.HasSuffix(out[i], "initial=true") {
		i++
	}
	slices.Sort(out[:i])
	return out
}

// TestDynamicInformerSameCallsAsClientGo runs client-go's dynamic informer
// factory and clientgo/dynamicinformer's (reading the dynamic client's
// REST client through runtime/wire) over one dynamic client against the
// API server, through the initial state, creates, updates, deletes and a
// late handler, and requires the same handler calls in the same order. A
// resource the server does not serve is named, with the reason, by our
// factory's WaitForCacheSyncWithContext while the served one stays synced,
// and removing it leaves the factory synced.
func TestDynamicInformerSameCallsAsClientGo(t *testing.T) {
	ctx := context.Background()
	_, namespaces := adminIn(t, 1)
	ns := namespaces[0]
	dc, err := dynamic.NewForConfig(cluster.AdminConfig())
	if err != nil {
		t.Fatal(err)
	}
	gvr := schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	cms := dc.Resource(gvr).Namespace(ns)
	label := testLabel(t)
	cm := func(name, v string) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"name": name, "namespace": ns, "labels": map[string]any{labelKey: label}},
			"data":     map[string]any{"v": v},
		}}
	}
	for i := range 3 {
		if _, err := cms.Create(ctx, cm(fmt.Sprintf("cm-%d", i), "0"), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	tweak := func(o *metav1.ListOptions) { o.LabelSelector = labelKey + "=" + label }
	type side struct {
		name        string
		factory     cgdynamicinformer.DynamicSharedInformerFactory
		first, late dynTranscript
	}
	ours := dynamicinformer.NewFilteredDynamicSharedInformerFactory(dc, 0, ns, tweak)
	sides := []*side{
		{name: "client-go", factory: cgdynamicinformer.NewFilteredDynamicSharedInformerFactory(dc, 0, ns, tweak)},
		{name: "typedinformer", factory: ours},
	}
	stop := make(chan struct{})
	for _, s := range sides {
		if _, err := s.factory.ForResource(gvr).Informer().AddEventHandler(s.first.handler()); err != nil {
			t.Fatal(err)
		}
		s.factory.Start(stop)
	}
	defer func() {
		close(stop)
		for _, s := range sides {
			s.factory.Shutdown()
		}
	}()
	for _, s := range sides {
		if synced := s.factory.WaitForCacheSync(stop); !synced[gvr] {
			t.Fatalf("%s: not synced", s.name)
		}
	}
	waitFor := func(step string, first, late int) {
		t.Helper()
		deadline := time.Now().Add(time.Minute)
		for {
			ok := true
			for _, s := range sides {
				ok = ok && len(s.first.lines()) >= first && len(s.late.lines()) >= late
			}
			if ok {
				return
			}
			if time.Now().After(deadline) {
				for _, s := range sides {
					t.Logf("%s:\n  %s\n late:\n  %s", s.name, strings.Join(s.first.lines(), "\n  "), strings.Join(s.late.lines(), "\n  "))
				}
				t.Fatalf("%s: timed out waiting for %d calls and %d late calls", step, first, late)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	waitFor("initial state", 3, 0)

	if _, err := cms.Create(ctx, cm("cm-3", "0"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for i, v := range []string{"1", "2"} {
		got, err := cms.Get(ctx, fmt.Sprintf("cm-%d", i), metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		_ = unstructured.SetNestedField(got.Object, v, "data", "v")
		if _, err := cms.Update(ctx, got, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := cms.Delete(ctx, "cm-2", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor("watch events", 7, 0)

	for _, s := range sides {
		if _, err := s.factory.ForResource(gvr).Informer().AddEventHandler(s.late.handler()); err != nil {
			t.Fatal(err)
		}
	}
	waitFor("late handler", 7, 3)
	if err := cms.Delete(ctx, "cm-0", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor("a delete after the late handler", 8, 4)

	want := sides[0]
	for _, s := range sides[1:] {
		if g, w := s.first.lines(), want.first.lines(); !slices.Equal(sortedInitial(g), sortedInitial(w)) {
			t.Errorf("handler calls differ:\n%s:\n  %s\n%s:\n  %s", s.name, strings.Join(g, "\n  "), want.name, strings.Join(w, "\n  "))
		}
		if g, w := s.late.lines(), want.late.lines(); !slices.Equal(sortedInitial(g), sortedInitial(w)) {
			t.Errorf("late handler calls differ:\n%s:\n  %s\n%s:\n  %s", s.name, strings.Join(g, "\n  "), want.name, strings.Join(w, "\n  "))
		}
		got, _ := s.factory.ForResource(gvr).Lister().ByNamespace(ns).List(labels.Everything())
		if len(got) != 2 {
			t.Errorf("%s: lister holds %d ConfigMaps, want 2", s.name, len(got))
		}
	}

	// A resource the server does not serve, beside the served one.
	missing := schema.GroupVersionResource{Group: "nothere.example.com", Version: "v1", Resource: "widgets"}
	ours.ForResource(missing)
	ours.Start(stop)
	wctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	synced, err := ours.WaitForCacheSyncWithContext(wctx)
	cancel()
	if err == nil || !strings.Contains(err.Error(), "nothere.example.com") || !apierrors.IsNotFound(err) || !synced[gvr] || synced[missing] {
		t.Fatalf("WaitForCacheSyncWithContext = %v, %v; want configmaps synced and an error naming the missing resource, a NotFound", synced, err)
	}
	if err := ours.RemoveInformer(missing); err != nil {
		t.Fatal(err)
	}
	if synced, err := ours.WaitForCacheSyncWithContext(ctx); err != nil || !synced[gvr] || len(synced) != 1 {
		t.Fatalf("after removing the missing resource: %v, %v", synced, err)
	}
	if got, _ := ours.ForResource(gvr).Lister().ByNamespace(ns).List(labels.Everything()); len(got) != 2 {
		t.Fatalf("the served resource's cache holds %d, want 2", len(got))
	}
}
