package e2e

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"

	opsv1 "github.com/typedinformer/typedinformer/examples/crd/apis/ops/v1"
	samplesv1alpha1 "github.com/typedinformer/typedinformer/examples/crd/apis/samples/v1alpha1"
	excontroller "github.com/typedinformer/typedinformer/examples/crd/pkg/controller"
	samplesinformers "github.com/typedinformer/typedinformer/examples/crd/pkg/generated/informers/externalversions"
	"github.com/typedinformer/typedinformer/internal/testutil"
	kubeinformers "github.com/typedinformer/typedinformer/kube/informers"
	"github.com/typedinformer/typedinformer/runtime/controller"
)

// TestExampleControllerReconciles runs examples/crd's Foo controller
// against the real server: Foos get ConfigMaps with their data merged over
// their FooClass's defaults, drift and deletion are repaired, class changes
// propagate, a MaintenanceWindow pauses the namespace, a ConfigMap owned by
// someone else is reported, and a deleted Foo's ConfigMap goes away.
func TestExampleControllerReconciles(t *testing.T) {
	ensureExampleCRDs(t)
	ctx := context.Background()
	c := admin(t)
	ns := testNamespaces(t, c, 1)[0]
	className := "class-" + testLabel(t)
	foos := c.samples.SamplesV1alpha1().Foos(ns)
	cms := c.kube.CoreV1().ConfigMaps(ns)

	// The factories watch the test's namespace only, so that the Foos other
	// tests left behind are not reconciled; FooClasses and
	// MaintenanceWindows are cluster-scoped.
	inf := excontroller.Informers{
		Samples: samplesinformers.NewSharedInformerFactoryWithOptions(c.samples, 0, samplesinformers.WithNamespace(ns)),
		Kube:    kubeinformers.NewSharedInformerFactoryWithOptions(c.kube, 0, kubeinformers.WithNamespace(ns)),
	}
	r := excontroller.NewReconciler(c.kube, c.samples, inf)
	ctrl, err := excontroller.New(r, inf, controller.Options{MaxConcurrentReconciles: 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	testutil.RunController(t, inf, ctrl)

	wantConfigMap := func(what, name, owner string, data map[string]string) *corev1.ConfigMap {
		t.Helper()
		var got *corev1.ConfigMap
		eventually(t, time.Minute, what, func() error {
			cm, err := cms.Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			if !maps.Equal(cm.Data, data) {
				return fmt.Errorf("ConfigMap %s has data %v, want %v", name, cm.Data, data)
			}
			if ref := metav1.GetControllerOf(cm); ref == nil || ref.Kind != "Foo" || ref.Name != owner {
				return fmt.Errorf("ConfigMap %s is controlled by %v, want Foo %s", name, ref, owner)
			}
			got = cm
			return nil
		})
		return got
	}
	wantStatus := func(what, name, phase, message string) {
		t.Helper()
		eventually(t, time.Minute, what, func() error {
			f, err := foos.Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			if f.Status.Phase != phase || f.Status.ObservedGeneration != f.Generation || !strings.Contains(f.Status.Message, message) {
				return fmt.Errorf("Foo %s at generation %d has status %+v, want phase %s with %q", name, f.Generation, f.Status, phase, message)
			}
			return nil
		})
	}
	// updateFoo retries on conflicts: the controller writes the status.
	updateFoo := func(name string, data map[string]string) {
		t.Helper()
		if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
			f, err := foos.Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			f.Spec.Data = data
			_, err = foos.Update(ctx, f, metav1.UpdateOptions{})
			return err
		}); err != nil {
			t.Fatalf("updating Foo %s: %v", name, err)
		}
	}

	class := &samplesv1alpha1.FooClass{
		ObjectMeta: metav1.ObjectMeta{Name: className},
		Spec:       samplesv1alpha1.FooClassSpec{Defaults: map[string]string{"a": "1", "b": "2"}},
	}
	if _, err := c.samples.SamplesV1alpha1().FooClasses().Create(ctx, class, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, f := range []*samplesv1alpha1.Foo{
		{ObjectMeta: metav1.ObjectMeta{Name: "classy"}, Spec: samplesv1alpha1.FooSpec{ClassName: className, Data: map[string]string{"b": "x"}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "plain"}, Spec: samplesv1alpha1.FooSpec{ConfigMapName: "plain-data", Data: map[string]string{"k": "v"}}},
	} {
		if _, err := foos.Create(ctx, f, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	wantConfigMap("Foo classy's ConfigMap merges its class's defaults", "classy", "classy", map[string]string{"a": "1", "b": "x"})
	wantStatus("Foo classy is Ready", "classy", excontroller.PhaseReady, "")
	first := wantConfigMap("Foo plain gets the ConfigMap it names", "plain-data", "plain", map[string]string{"k": "v"})
	wantStatus("Foo plain is Ready", "plain", excontroller.PhaseReady, "")

	updateFoo("classy", map[string]string{"b": "y"})
	wantConfigMap("a spec change reaches the ConfigMap", "classy", "classy", map[string]string{"a": "1", "b": "y"})

	if err := cms.Delete(ctx, "plain-data", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, time.Minute, "a deleted ConfigMap is recreated", func() error {
		cm, err := cms.Get(ctx, "plain-data", metav1.GetOptions{})
		if err != nil {
			return err
		}
		if cm.UID == first.UID {
			return fmt.Errorf("ConfigMap plain-data not deleted yet")
		}
		return nil
	})
	wantConfigMap("the recreated ConfigMap has the Foo's data", "plain-data", "plain", map[string]string{"k": "v"})

	if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		got, err := c.samples.SamplesV1alpha1().FooClasses().Get(ctx, className, metav1.GetOptions{})
		if err != nil {
			return err
		}
		got.Spec.Defaults["a"] = "9"
		_, err = c.samples.SamplesV1alpha1().FooClasses().Update(ctx, got, metav1.UpdateOptions{})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	wantConfigMap("a FooClass change reaches its Foos' ConfigMaps", "classy", "classy", map[string]string{"a": "9", "b": "y"})

	windows := c.samples.OpsV1().MaintenanceWindows()
	window := &opsv1.MaintenanceWindow{
		ObjectMeta: metav1.ObjectMeta{Name: "window-" + ns},
		Spec:       opsv1.MaintenanceWindowSpec{Namespaces: []string{ns}, Reason: "e2e maintenance"},
	}
	if _, err := windows.Create(ctx, window, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = windows.Delete(context.Background(), window.Name, metav1.DeleteOptions{}) })
	updateFoo("plain", map[string]string{"k": "w"})
	wantStatus("a MaintenanceWindow pauses the namespace's Foos", "plain", excontroller.PhasePaused, "e2e maintenance")
	wantConfigMap("a paused Foo's ConfigMap is left alone", "plain-data", "plain", map[string]string{"k": "v"})
	if err := windows.Delete(ctx, window.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	wantConfigMap("the end of the window resumes reconciling", "plain-data", "plain", map[string]string{"k": "w"})
	wantStatus("Foo plain is Ready again", "plain", excontroller.PhaseReady, "")

	taken := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "taken"}, Data: map[string]string{"mine": "yes"}}
	if _, err := cms.Create(ctx, taken, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	thief := &samplesv1alpha1.Foo{ObjectMeta: metav1.ObjectMeta{Name: "thief"},
		Spec: samplesv1alpha1.FooSpec{ConfigMapName: "taken", Data: map[string]string{"mine": "no"}}}
	if _, err := foos.Create(ctx, thief, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	wantStatus("a Foo naming someone else's ConfigMap fails", "thief", excontroller.PhaseFailed, "not owned")
	if cm, err := cms.Get(ctx, "taken", metav1.GetOptions{}); err != nil || cm.Data["mine"] != "yes" {
		t.Errorf("the foreign ConfigMap was changed: %v, %v", cm, err)
	}

	if err := foos.Delete(ctx, "classy", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, time.Minute, "a deleted Foo's ConfigMap is deleted", func() error {
		_, err := cms.Get(ctx, "classy", metav1.GetOptions{})
		if err == nil {
			return fmt.Errorf("ConfigMap classy still exists")
		}
		if !apierrors.IsNotFound(err) {
			return err
		}
		return nil
	})
}
