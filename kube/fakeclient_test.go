package kube_test

import (
	"context"
	"slices"
	"sync"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"

	"github.com/typedinformer/typedinformer/internal/testutil"
	"github.com/typedinformer/typedinformer/runtime/cache"
)

// watchedClient is client-go's fake clientset with a record of the watches
// opened on it. The fake's watches start at "now" (it keeps no history), so
// a test must not write an object before the informer's watch is open, or
// the informer would never hear of it.
type watchedClient struct {
	*fake.Clientset
	mu      sync.Mutex
	watches []schema.GroupVersionResource
}

// newClient returns a fake clientset holding objs, recording watches.
func newClient(objs ...runtime.Object) *watchedClient {
	c := &watchedClient{Clientset: fake.NewClientset(objs...)}
	c.PrependWatchReactor("*", func(action clienttesting.Action) (bool, watch.Interface, error) {
		var opts metav1.ListOptions
		if w, ok := action.(clienttesting.WatchActionImpl); ok {
			opts = w.ListOptions
		}
		w, err := c.Tracker().Watch(action.GetResource(), action.GetNamespace(), opts)
		if err != nil {
			return true, nil, err
		}
		c.mu.Lock()
		c.watches = append(c.watches, action.GetResource())
		c.mu.Unlock()
		return true, w, nil
	})
	return c
}

// waitWatch waits until a watch of gvr is open.
func (c *watchedClient) waitWatch(t *testing.T, gvr schema.GroupVersionResource) {
	t.Helper()
	testutil.Eventually(t, "a watch of "+gvr.String(), func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		return slices.Contains(c.watches, gvr)
	})
}

// object is what the tests need of an API object.
type object interface {
	cache.Object
	runtime.Object
}

// lifecycle drives one informer of T through what a controller sees: an
// object listed at start, then an add, an update and a delete through the
// fake clientset's tracker (which, like client-go's fake clientsets, sets no
// resourceVersion, so the update carries the same empty one as the object it
// replaces), and checks that every handler call arrives in order and that
// the lister answers from the cache after each step.
type lifecycle[T object] struct {
	gvr schema.GroupVersionResource
	// newObject returns an object named name (namespace ns, ignored for a
	// cluster-scoped type).
	newObject func(ns, name string) T
	// get reads name from the lister under test; list lists every object.
	get  func(ns, name string) (T, error)
	list func() ([]T, error)
}

// run starts the informer with start (after adding the recorder to it),
// then plays the lifecycle.
func (l lifecycle[T]) run(t *testing.T, client *watchedClient, informer cache.SharedIndexInformer[T], start func(context.Context)) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testutil.WaitLimit)
	defer cancel()
	rec := testutil.NewRecorder[T]()
	if _, err := informer.AddEventHandler(rec); err != nil {
		t.Fatalf("AddEventHandler: %v", err)
	}
	ns := "shop"
	first, second := l.newObject(ns, "first"), l.newObject(ns, "second")
	if err := client.Tracker().Create(l.gvr, first, first.GetNamespace()); err != nil {
		t.Fatalf("creating %s: %v", testutil.Key(first), err)
	}

	start(ctx)
	if err := cache.WaitForSync(ctx, informer); err != nil {
		t.Fatalf("WaitForSync: %v", err)
	}
	client.waitWatch(t, l.gvr)

	if err := client.Tracker().Create(l.gvr, second, second.GetNamespace()); err != nil {
		t.Fatalf("creating %s: %v", testutil.Key(second), err)
	}
	testutil.Eventually(t, "the add of "+testutil.Key(second), func() bool { return rec.Len() == 2 })
	got, err := l.get(second.GetNamespace(), second.GetName())
	if err != nil || got.GetName() != second.GetName() {
		t.Fatalf("lister Get(%s) after its add = %v, %v", testutil.Key(second), got, err)
	}

	changed := first.DeepCopyObject().(T)
	changed.SetLabels(map[string]string{"changed": "yes"})
	if err := client.Tracker().Update(l.gvr, changed, changed.GetNamespace()); err != nil {
		t.Fatalf("updating %s: %v", testutil.Key(first), err)
	}
	testutil.Eventually(t, "the update of "+testutil.Key(first), func() bool { return rec.Len() == 3 })
	got, err = l.get(first.GetNamespace(), first.GetName())
	if err != nil || got.GetLabels()["changed"] != "yes" {
		t.Fatalf("lister Get(%s) after its update = %v, %v; want the label changed=yes", testutil.Key(first), got, err)
	}

	if err := client.Tracker().Delete(l.gvr, second.GetNamespace(), second.GetName()); err != nil {
		t.Fatalf("deleting %s: %v", testutil.Key(second), err)
	}
	testutil.Eventually(t, "the delete of "+testutil.Key(second), func() bool { return rec.Len() == 4 })
	if _, err := l.get(second.GetNamespace(), second.GetName()); !apierrors.IsNotFound(err) {
		t.Fatalf("lister Get(%s) after its delete: err = %v, want NotFound", testutil.Key(second), err)
	}
	all, err := l.list()
	if err != nil || len(all) != 1 || all[0].GetName() != first.GetName() {
		t.Fatalf("lister List() = %v, %v; want only %s", all, err, testutil.Key(first))
	}

	k1, k2 := testutil.Key(first), testutil.Key(second)
	want := []string{
		testutil.Call{Kind: testutil.Add, Key: k1, Initial: true}.String(),
		testutil.Call{Kind: testutil.Add, Key: k2}.String(),
		testutil.Call{Kind: testutil.Update, Key: k1}.String(),
		testutil.Call{Kind: testutil.Delete, Key: k2}.String(),
	}
	var calls []string
	for _, c := range rec.Calls() {
		c.RV, c.OldRV = "", "" // the fake sets none; do not depend on it
		calls = append(calls, c.String())
	}
	if !slices.Equal(calls, want) {
		t.Errorf("handler calls:\n got %q\nwant %q", calls, want)
	}
	if err := rec.Err(); err != nil {
		t.Errorf("handler calls contradict each other: %v", err)
	}
}
