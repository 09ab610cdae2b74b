package e2e

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/cache"

	"github.com/typedinformer/typedinformer/clientgo"
	"github.com/typedinformer/typedinformer/crcache"
	"github.com/typedinformer/typedinformer/examples/controller-runtime/foocontroller"
	samplesv1alpha1 "github.com/typedinformer/typedinformer/examples/crd/apis/samples/v1alpha1"
	"github.com/typedinformer/typedinformer/runtime/lean"
)

// crBackends are the caches and informers examples/controller-runtime's
// manager is run on: the same script must leave the same state on each, at
// every step. The first, controller-runtime's own cache on client-go's
// informers, is the reference.
var crBackends = []struct {
	name        string
	newCache    cache.NewCacheFunc
	newInformer foocontroller.NewInformerFunc
}{
	{"controller-runtime", cache.New, nil},
	{"controller-runtime-typedinformer", cache.New, clientgo.NewSharedIndexInformer},
	{"controller-runtime-typedinformer-lean", cache.New, clientgo.NewInformerFunc(clientgo.WithLean(lean.Default()))},
	{"crcache", crcache.New, nil},
	{"crcache-lean", crcache.New, clientgo.NewInformerFunc(clientgo.WithLean(lean.Default()))},
}

// TestControllerRuntimeExample runs examples/controller-runtime's manager
// against the real apiserver, once per cache and informer backend, through
// one script: a Foo gets its ConfigMap merged over its FooClass, follows
// class and spec changes, has its ConfigMap restored after a manual edit,
// and reports Failed for a missing class and for a ConfigMap it does not
// control. After every step the namespace's Foos and ConfigMaps must be
// what they were at that step on controller-runtime's own cache.
func TestControllerRuntimeExample(t *testing.T) {
	ensureExampleCRDs(t)
	steps := map[string][]string{}
	for _, b := range crBackends {
		t.Run(b.name, func(t *testing.T) {
			c, nss := adminIn(t, 1)
			ns := nss[0]
			step := func(name string) { steps[b.name] = append(steps[b.name], name+":\n"+exampleState(t, c, ns)) }
			ctx, cancel := context.WithCancel(context.Background())
			mgr, err := foocontroller.NewManager(cluster.AdminConfig(), foocontroller.Options{
				NewCache: b.newCache, NewInformer: b.newInformer, Namespaces: []string{ns}, Name: "foo-" + b.name,
			})
			if err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- mgr.Start(ctx) }()
			t.Cleanup(func() {
				cancel()
				if err := <-done; err != nil {
					t.Errorf("manager: %v", err)
				}
			})

			class := &samplesv1alpha1.FooClass{
				ObjectMeta: metav1.ObjectMeta{Name: ns + "-defaults"},
				Spec:       samplesv1alpha1.FooClassSpec{Defaults: map[string]string{"a": "1", "b": "2"}},
			}
			if _, err := c.samples.SamplesV1alpha1().FooClasses().Create(ctx, class, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			f1 := newFoo(ns, "f1", class.Name, map[string]string{"b": "3"})
			if _, err := c.samples.SamplesV1alpha1().Foos(ns).Create(ctx, f1, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			waitConfigMapData(t, c, ns, "f1", map[string]string{"a": "1", "b": "3"})
			waitFooStatus(t, c, ns, "f1", foocontroller.PhaseReady, "")
			step("created")

			// A class change reaches every Foo naming it (field index).
			got, err := c.samples.SamplesV1alpha1().FooClasses().Get(ctx, class.Name, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			got.Spec.Defaults["a"] = "10"
			if _, err := c.samples.SamplesV1alpha1().FooClasses().Update(ctx, got, metav1.UpdateOptions{}); err != nil {
				t.Fatal(err)
			}
			waitConfigMapData(t, c, ns, "f1", map[string]string{"a": "10", "b": "3"})
			step("class changed")

			// An edit of the owned ConfigMap is undone (Owns).
			cm, err := c.kube.CoreV1().ConfigMaps(ns).Get(ctx, "f1", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			cm.Data = map[string]string{"x": "edited"}
			if _, err := c.kube.CoreV1().ConfigMaps(ns).Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
				t.Fatal(err)
			}
			waitConfigMapData(t, c, ns, "f1", map[string]string{"a": "10", "b": "3"})
			step("edit undone")

			// A ConfigMap someone else holds is not taken over.
			taken := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "taken"}, Data: map[string]string{"k": "v"}}
			if _, err := c.kube.CoreV1().ConfigMaps(ns).Create(ctx, taken, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			f2 := newFoo(ns, "f2", "", map[string]string{"k": "mine"})
			f2.Spec.ConfigMapName = "taken"
			if _, err := c.samples.SamplesV1alpha1().Foos(ns).Create(ctx, f2, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			waitFooStatus(t, c, ns, "f2", foocontroller.PhaseFailed, "not controlled by this Foo")
			waitConfigMapData(t, c, ns, "taken", map[string]string{"k": "v"})
			step("not taken over")

			// A missing class fails the Foo until the class exists.
			f3 := newFoo(ns, "f3", ns+"-later", map[string]string{"z": "1"})
			if _, err := c.samples.SamplesV1alpha1().Foos(ns).Create(ctx, f3, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			waitFooStatus(t, c, ns, "f3", foocontroller.PhaseFailed, "not found")
			step("class missing")
			later := &samplesv1alpha1.FooClass{
				ObjectMeta: metav1.ObjectMeta{Name: ns + "-later"},
				Spec:       samplesv1alpha1.FooClassSpec{Defaults: map[string]string{"y": "2"}},
			}
			if _, err := c.samples.SamplesV1alpha1().FooClasses().Create(ctx, later, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			waitConfigMapData(t, c, ns, "f3", map[string]string{"y": "2", "z": "1"})
			waitFooStatus(t, c, ns, "f3", foocontroller.PhaseReady, "")
			step("class created")
		})
	}
	ref := crBackends[0].name
	for _, b := range crBackends[1:] {
		if !slices.Equal(steps[b.name], steps[ref]) {
			t.Errorf("%s: the states after the steps differ from %s's:\n%s\n--- %s:\n%s",
				b.name, ref, strings.Join(steps[b.name], "\n"), ref, strings.Join(steps[ref], "\n"))
		}
	}
}

// exampleState is the namespace's Foos (spec and status) and ConfigMaps
// (data and controlling owner) as sorted text, with the namespace's name
// replaced by NS.
func exampleState(t *testing.T, c clients, ns string) string {
	t.Helper()
	ctx := context.Background()
	foos, err := c.samples.SamplesV1alpha1().Foos(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cms, err := c.kube.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, f := range foos.Items {
		lines = append(lines, fmt.Sprintf("Foo %s: class %q, data %v, configMap %q; status generation %d/%d, phase %s, configMap %q, message %q",
			f.Name, f.Spec.ClassName, f.Spec.Data, f.Spec.ConfigMapName, f.Status.ObservedGeneration, f.Generation,
			f.Status.Phase, f.Status.ConfigMapName, f.Status.Message))
	}
	for _, cm := range cms.Items {
		if cm.Name == "kube-root-ca.crt" {
			continue
		}
		owner := "none"
		if ref := metav1.GetControllerOf(&cm); ref != nil {
			owner = ref.Kind + "/" + ref.Name
		}
		lines = append(lines, fmt.Sprintf("ConfigMap %s: data %v, controller %s", cm.Name, cm.Data, owner))
	}
	sort.Strings(lines)
	return strings.ReplaceAll(strings.Join(lines, "\n"), ns, "NS")
}

func newFoo(ns, name, class string, data map[string]string) *samplesv1alpha1.Foo {
	return &samplesv1alpha1.Foo{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec:       samplesv1alpha1.FooSpec{ClassName: class, Data: data},
	}
}

// waitConfigMapData waits until ConfigMap ns/name holds exactly want.
func waitConfigMapData(t *testing.T, c clients, ns, name string, want map[string]string) {
	t.Helper()
	err := poll(context.Background(), 30*time.Second, func() error {
		cm, err := c.kube.CoreV1().ConfigMaps(ns).Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if !maps.Equal(cm.Data, want) {
			return fmt.Errorf("ConfigMap %s/%s data %v, want %v", ns, name, cm.Data, want)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// waitFooStatus waits until Foo ns/name reports phase, for its current
// generation, with a message containing msg.
func waitFooStatus(t *testing.T, c clients, ns, name, phase, msg string) {
	t.Helper()
	err := poll(context.Background(), 30*time.Second, func() error {
		f, err := c.samples.SamplesV1alpha1().Foos(ns).Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		s := f.Status
		if s.Phase != phase || s.ObservedGeneration != f.Generation || !strings.Contains(s.Message, msg) {
			return fmt.Errorf("Foo %s/%s status %+v (generation %d), want phase %s with %q", ns, name, s, f.Generation, phase, msg)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
