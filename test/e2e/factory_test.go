package e2e

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/typedinformer/typedinformer/runtime/cache"
	"github.com/typedinformer/typedinformer/runtime/informers"
	"github.com/typedinformer/typedinformer/runtime/listers"
)

// inNamespaces keeps the objects of the given namespaces.
func inNamespaces[T cache.Object](objs []T, namespaces ...string) []T {
	return slices.DeleteFunc(slices.Clone(objs), func(o T) bool { return !slices.Contains(namespaces, o.GetNamespace()) })
}

// TestMultiNamespaceFactory runs a factory over two of three namespaces:
// its informers must hold exactly the objects of those two, follow changes
// in them, ignore the third, and list per namespace through a lister.
func TestMultiNamespaceFactory(t *testing.T) {
	ensureWidgetCRD(t)
	ctx := context.Background()
	c := admin(t)
	ns := testNamespaces(t, c, 3)
	watched := ns[:2]
	label := testLabel(t)
	cmOps, wOps := configMapOps(c, label), widgetOps(c, label)
	const perNamespace = 20
	create := func(prefix string) {
		t.Helper()
		if err := parallel(3*perNamespace, func(i int) error {
			n := ns[i%3]
			name := fmt.Sprintf("%s-%03d", prefix, i)
			if _, err := cmOps.create(ctx, n, name, i); err != nil {
				return err
			}
			_, err := wOps.create(ctx, n, name, i)
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	create("before")

	f := informers.NewFactory(0, informers.WithNamespaces(watched...),
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = labelKey + "=" + label }))
	cms := configMapsFor(f, c, informerOptions{})
	widgets := widgetsFor(f, c, informerOptions{})
	cmRec, wRec := newRecorder[*configMap](), newRecorder[*unstructuredWidget]()
	cmReg, err := cms.AddEventHandler(cmRec)
	if err != nil {
		t.Fatal(err)
	}
	wReg, err := widgets.AddEventHandler(wRec)
	if err != nil {
		t.Fatal(err)
	}
	runFactory(t, f)
	syncCtx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	synced, err := f.WaitForCacheSync(syncCtx)
	if err != nil {
		t.Fatalf("factory WaitForCacheSync: %v (%v)", err, synced)
	}
	waitSynced(t, cmReg, wReg)

	// Change objects in every namespace, the unwatched one included.
	create("after")
	if err := parallel(3*perNamespace, func(i int) error {
		name := fmt.Sprintf("before-%03d", i)
		switch i % 4 {
		case 0:
			if err := cmOps.remove(ctx, ns[i%3], name); err != nil {
				return err
			}
			return wOps.remove(ctx, ns[i%3], name)
		case 1:
			cm, err := c.kube.CoreV1().ConfigMaps(ns[i%3]).Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			_, err = cmOps.update(ctx, cm, 100+i)
			return err
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}

	check := func(what string, got func() map[string]string, list func() (map[string]string, error)) {
		t.Helper()
		eventually(t, time.Minute, what, func() error {
			want, err := list()
			if err != nil {
				return err
			}
			if d := diffVersions(got(), want); d != "" {
				return fmt.Errorf("%s", d)
			}
			return nil
		})
	}
	serverCMs := func() (map[string]string, error) {
		all, err := cmOps.list(ctx)
		return versions(inNamespaces(all, watched...)), err
	}
	serverWidgets := func() (map[string]string, error) {
		all, err := wOps.list(ctx)
		return versions(inNamespaces(all, watched...)), err
	}
	eventually(t, time.Minute, "ConfigMap cache holds the watched namespaces", func() error {
		want, err := serverCMs()
		if err != nil {
			return err
		}
		if d := diffVersions(versions(cms.GetStore().List()), want); d != "" {
			return fmt.Errorf("%s", d)
		}
		return nil
	})
	check("ConfigMap handler holds the watched namespaces", cmRec.viewVersions, serverCMs)
	eventually(t, time.Minute, "Widget cache holds the watched namespaces", func() error {
		want, err := serverWidgets()
		if err != nil {
			return err
		}
		if d := diffVersions(versions(widgets.GetStore().List()), want); d != "" {
			return fmt.Errorf("%s", d)
		}
		return nil
	})
	check("Widget handler holds the watched namespaces", wRec.viewVersions, serverWidgets)
	for _, err := range []error{cmRec.check(), wRec.check()} {
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, k := range cmRec.keys() {
		if n, _, _ := cache.SplitKey(k); n == ns[2] {
			t.Errorf("ConfigMap handler was told of %s in the unwatched namespace", k)
		}
	}

	// The lister reads the merged cache per namespace.
	l := listers.New(cms.GetIndexer(), corev1.Resource("configmaps"))
	all, err := cmOps.list(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range ns {
		got, err := l.Namespace(n).List(labels.Everything())
		if err != nil {
			t.Fatalf("lister in %s: %v", n, err)
		}
		want := inNamespaces(all, watched...)
		want = inNamespaces(want, n)
		if d := diffVersions(versions(got), versions(want)); d != "" {
			t.Errorf("lister in %s: %s", n, d)
		}
	}
	if _, err := l.Namespace(ns[2]).Get("after-002"); err == nil {
		t.Errorf("lister found an object of the unwatched namespace %s", ns[2])
	}
}

// TestFactoryRemoveInformer removes the ConfigMap informer from a running
// factory: it stops, its handler hears nothing more, the Widget informer
// keeps working, and asking for ConfigMaps again gives a fresh informer
// that the next Start runs.
func TestFactoryRemoveInformer(t *testing.T) {
	ensureWidgetCRD(t)
	ctx := context.Background()
	c := admin(t)
	ns := testNamespaces(t, c, 1)[0]
	label := testLabel(t)
	cmOps, wOps := configMapOps(c, label), widgetOps(c, label)
	for i := range 5 {
		if _, err := cmOps.create(ctx, ns, fmt.Sprintf("before-%d", i), i); err != nil {
			t.Fatal(err)
		}
	}

	f := informers.NewFactory(0, informers.WithNamespace(ns))
	o := informerOptions{label: label}
	cms := configMapsFor(f, c, o)
	widgets := widgetsFor(f, c, o)
	cmRec := newRecorder[*configMap]()
	if _, err := cms.AddEventHandler(cmRec); err != nil {
		t.Fatal(err)
	}
	fctx, cancel := context.WithCancel(ctx)
	defer cancel()
	f.Start(fctx)
	t.Cleanup(f.Shutdown)
	if synced, err := f.WaitForCacheSync(withTimeout(t, time.Minute)); err != nil {
		t.Fatalf("factory WaitForCacheSync: %v (%v)", err, synced)
	}

	if err := f.RemoveInformer(&corev1.ConfigMap{}); err != nil {
		t.Fatalf("RemoveInformer: %v", err)
	}
	if !cms.IsStopped() {
		t.Errorf("the removed ConfigMap informer is not stopped after RemoveInformer returned")
	}
	if _, ok := f.Informers()[reflect.TypeFor[*configMap]()]; ok {
		t.Errorf("the factory still lists a ConfigMap informer after RemoveInformer")
	}
	if err := f.RemoveInformer(&corev1.ConfigMap{}); err == nil {
		t.Errorf("a second RemoveInformer of ConfigMaps returned nil")
	}

	cm, err := cmOps.create(ctx, ns, "after", 9)
	if err != nil {
		t.Fatal(err)
	}
	w, err := wOps.create(ctx, ns, "after", 9)
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, time.Minute, "the remaining Widget informer sees a new Widget", func() error {
		if _, ok, _ := widgets.GetStore().GetByKey(key(w)); !ok {
			return fmt.Errorf("%s not in the Widget cache", key(w))
		}
		return nil
	})
	// The ConfigMap was created before the Widget; a still-running
	// informer would most likely have delivered it by now.
	if ev := cmRec.events(key(cm)); len(ev) != 0 {
		t.Errorf("the removed informer's handler was told %v about %s", ev, key(cm))
	}

	fresh := configMapsFor(f, c, o)
	if fresh == cms {
		t.Fatal("configMapsFor returned the removed informer")
	}
	f.Start(fctx)
	synced, err := f.WaitForCacheSync(withTimeout(t, time.Minute))
	if err != nil {
		t.Fatalf("factory WaitForCacheSync after re-adding ConfigMaps: %v", err)
	}
	if !synced[reflect.TypeFor[*configMap]()] || !synced[reflect.TypeFor[*unstructuredWidget]()] {
		t.Errorf("factory synced = %v, want both types", synced)
	}
	if err := matchesServer(ctx, fresh.GetStore(), cmOps); err != nil {
		t.Fatal(err)
	}
}

func withTimeout(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}
