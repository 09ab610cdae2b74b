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

	samplesinformers "github.com/typedinformer/typedinformer/examples/crd/pkg/generated/informers/externalversions"
	"github.com/typedinformer/typedinformer/runtime/cache"
)

// inNamespaces keeps the objects of the given namespaces.
func inNamespaces[T cache.Object](objs []T, namespaces ...string) []T {
	return slices.DeleteFunc(slices.Clone(objs), func(o T) bool { return !slices.Contains(namespaces, o.GetNamespace()) })
}

// TestMultiNamespaceFactory runs generated factories over two of three
// namespaces: their informers must hold exactly the objects of those two,
// follow changes in them, ignore the third, and serve them through the
// generated listers per namespace.
func TestMultiNamespaceFactory(t *testing.T) {
	ensureExampleCRDs(t)
	ctx := context.Background()
	c, ns := adminIn(t, 3)
	watched := ns[:2]
	label := testLabel(t)
	cmOps, fOps := configMapOps(c, label), fooOps(c, label)
	const perNamespace = 20
	create := func(prefix string) {
		t.Helper()
		if err := parallel(3*perNamespace, func(i int) error {
			n := ns[i%3]
			name := fmt.Sprintf("%s-%03d", prefix, i)
			if _, err := cmOps.create(ctx, n, name, i); err != nil {
				return err
			}
			_, err := fOps.create(ctx, n, name, i)
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	create("before")

	samples := newSamplesFactory(c, samplesinformers.WithNamespaces(watched...), withLabel(label))
	kube := newKubeFactory(c, samplesinformers.WithNamespaces(watched...), withLabel(label))
	foos, cms := fooInformer(samples), configMapInformer(kube)
	fRec, fReg := recordOn(t, foos)
	cmRec, cmReg := recordOn(t, cms)
	runFactory(t, samples)
	runFactory(t, kube)
	for name, f := range map[string]interface {
		WaitForCacheSync(context.Context) (map[reflect.Type]bool, error)
	}{"samples": samples, "kube": kube} {
		if synced, err := f.WaitForCacheSync(withTimeout(t, time.Minute)); err != nil {
			t.Fatalf("%s factory WaitForCacheSync: %v (%v)", name, err, synced)
		}
	}
	waitSynced(t, fReg, cmReg)

	// Change objects in every namespace, the unwatched one included.
	create("after")
	if err := parallel(3*perNamespace, func(i int) error {
		name := fmt.Sprintf("before-%03d", i)
		switch i % 4 {
		case 0:
			if err := cmOps.remove(ctx, ns[i%3], name); err != nil {
				return err
			}
			return fOps.remove(ctx, ns[i%3], name)
		case 1:
			cm, err := c.kube.CoreV1().ConfigMaps(ns[i%3]).Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			if _, err = cmOps.update(ctx, cm, 100+i); err != nil {
				return err
			}
			f, err := c.samples.SamplesV1alpha1().Foos(ns[i%3]).Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			_, err = fOps.update(ctx, f, 100+i)
			return err
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}

	serverCMs := func() (map[string]string, error) {
		all, err := cmOps.list(ctx)
		return versions(inNamespaces(all, watched...)), err
	}
	serverFoos := func() (map[string]string, error) {
		all, err := fOps.list(ctx)
		return versions(inNamespaces(all, watched...)), err
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
	check("ConfigMap cache holds the watched namespaces", func() map[string]string { return versions(cms.GetStore().List()) }, serverCMs)
	check("ConfigMap handler holds the watched namespaces", cmRec.viewVersions, serverCMs)
	check("Foo cache holds the watched namespaces", func() map[string]string { return versions(foos.GetStore().List()) }, serverFoos)
	check("Foo handler holds the watched namespaces", fRec.viewVersions, serverFoos)
	for _, err := range []error{cmRec.check(), fRec.check()} {
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, k := range append(cmRec.keys(), fRec.keys()...) {
		if n, _, _ := cache.SplitMetaNamespaceKey(k); n == ns[2] {
			t.Errorf("a handler was told of %s in the unwatched namespace", k)
		}
	}

	// The generated listers read the merged caches per namespace.
	allCMs, err := cmOps.list(ctx)
	if err != nil {
		t.Fatal(err)
	}
	allFoos, err := fOps.list(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cmLister := kube.Core().V1().ConfigMaps().Lister()
	fooLister := samples.Samples().V1alpha1().Foos().Lister()
	for _, n := range ns {
		gotCMs, err := cmLister.ConfigMaps(n).List(labels.Everything())
		if err != nil {
			t.Fatalf("ConfigMap lister in %s: %v", n, err)
		}
		if d := diffVersions(versions(gotCMs), versions(inNamespaces(inNamespaces(allCMs, watched...), n))); d != "" {
			t.Errorf("ConfigMap lister in %s: %s", n, d)
		}
		gotFoos, err := fooLister.Foos(n).List(labels.Everything())
		if err != nil {
			t.Fatalf("Foo lister in %s: %v", n, err)
		}
		if d := diffVersions(versions(gotFoos), versions(inNamespaces(inNamespaces(allFoos, watched...), n))); d != "" {
			t.Errorf("Foo lister in %s: %s", n, d)
		}
	}
	if _, err := fooLister.Foos(ns[2]).Get("after-002"); err == nil {
		t.Errorf("Foo lister found an object of the unwatched namespace %s", ns[2])
	}
	if got, err := fooLister.Foos(ns[0]).Get("after-000"); err != nil || got.Name != "after-000" {
		t.Errorf("Foo lister Get(%s/after-000) = %v, %v", ns[0], got, err)
	}
}

// TestFactoryRemoveInformer removes the ConfigMap informer from a running
// generated factory: it stops, its handler hears nothing more, the
// PodTemplate informer of the same factory keeps working, and asking for
// ConfigMaps again gives a fresh informer that the next Start runs.
func TestFactoryRemoveInformer(t *testing.T) {
	ctx := context.Background()
	c := admin(t)
	ns := testNamespaces(t, c, 1)[0]
	label := testLabel(t)
	cmOps, ptOps := configMapOps(c, label), podTemplateOps(c, label)
	for i := range 5 {
		if _, err := cmOps.create(ctx, ns, fmt.Sprintf("before-%d", i), i); err != nil {
			t.Fatal(err)
		}
	}

	f := newKubeFactory(c, samplesinformers.WithNamespace(ns), withLabel(label))
	cms, pts := configMapInformer(f), factoryPodTemplateInformer(f)
	cmRec, _ := recordOn(t, cms)
	runFactory(t, f)
	if synced, err := f.WaitForCacheSync(withTimeout(t, time.Minute)); err != nil {
		t.Fatalf("factory WaitForCacheSync: %v (%v)", err, synced)
	}

	if err := f.RemoveInformer(&corev1.ConfigMap{}); err != nil {
		t.Fatalf("RemoveInformer: %v", err)
	}
	if !cms.IsStopped() {
		t.Errorf("the removed ConfigMap informer is not stopped after RemoveInformer returned")
	}
	if _, ok := f.Base().Informers()[reflect.TypeFor[*configMap]()]; ok {
		t.Errorf("the factory still lists a ConfigMap informer after RemoveInformer")
	}
	if err := f.RemoveInformer(&corev1.ConfigMap{}); err == nil {
		t.Errorf("a second RemoveInformer of ConfigMaps returned nil")
	}

	cm, err := cmOps.create(ctx, ns, "after", 9)
	if err != nil {
		t.Fatal(err)
	}
	pt, err := ptOps.create(ctx, ns, "after", 9)
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, time.Minute, "the remaining PodTemplate informer sees a new PodTemplate", func() error {
		if _, ok, _ := pts.GetStore().GetByKey(key(pt)); !ok {
			return fmt.Errorf("%s not in the PodTemplate cache", key(pt))
		}
		return nil
	})
	// The ConfigMap was created before the PodTemplate; a still-running
	// informer would most likely have delivered it by now.
	if ev := cmRec.events(key(cm)); len(ev) != 0 {
		t.Errorf("the removed informer's handler was told %v about %s", ev, key(cm))
	}

	fresh := configMapInformer(f)
	if fresh == cms {
		t.Fatal("the factory returned the removed informer")
	}
	f.Start(ctx)
	synced, err := f.WaitForCacheSync(withTimeout(t, time.Minute))
	if err != nil {
		t.Fatalf("factory WaitForCacheSync after re-adding ConfigMaps: %v", err)
	}
	if !synced[reflect.TypeFor[*configMap]()] || !synced[reflect.TypeFor[*podTemplate]()] {
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
