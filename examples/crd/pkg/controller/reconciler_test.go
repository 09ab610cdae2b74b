package controller

import (
	"context"
	"errors"
	"maps"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	kubefake "k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"

	opsv1 "github.com/typedinformer/typedinformer/examples/crd/apis/ops/v1"
	samplesv1alpha1 "github.com/typedinformer/typedinformer/examples/crd/apis/samples/v1alpha1"
	"github.com/typedinformer/typedinformer/examples/crd/pkg/fakecluster"
	samplesfake "github.com/typedinformer/typedinformer/examples/crd/pkg/generated/clientset/versioned/fake"
	"github.com/typedinformer/typedinformer/internal/testutil"
)

type testEnv struct {
	kube    *kubefake.Clientset
	samples *samplesfake.Clientset
	inf     Informers
	r       *Reconciler
}

func newEnv(t *testing.T, kubeObjs []runtime.Object, sampleObjs ...runtime.Object) *testEnv {
	t.Helper()
	e := &testEnv{kube: kubefake.NewClientset(kubeObjs...), samples: samplesfake.NewSimpleClientset(sampleObjs...)}
	fakecluster.Simulate(e.kube, e.samples)
	e.inf = NewInformers(e.kube, e.samples, 0)
	e.r = NewReconciler(e.kube, e.samples, e.inf)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() { cancel(); e.inf.Shutdown() })
	e.inf.Start(ctx)
	sctx, scancel := context.WithTimeout(ctx, 10*time.Second)
	defer scancel()
	if err := e.inf.WaitForCacheSync(sctx); err != nil {
		t.Fatal(err)
	}
	return e
}

func foo(ns, name string, data map[string]string) *samplesv1alpha1.Foo {
	return &samplesv1alpha1.Foo{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: types.UID("uid-" + name), Generation: 1},
		Spec:       samplesv1alpha1.FooSpec{Data: data},
	}
}

func (e *testEnv) configMap(t *testing.T, ns, name string) *corev1.ConfigMap {
	t.Helper()
	cm, err := e.kube.CoreV1().ConfigMaps(ns).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return cm
}

func (e *testEnv) status(t *testing.T, ns, name string) samplesv1alpha1.FooStatus {
	t.Helper()
	f, err := e.samples.SamplesV1alpha1().Foos(ns).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return f.Status
}

func TestReconcileCreatesOwnedConfigMapAndReportsReady(t *testing.T) {
	class := &samplesv1alpha1.FooClass{ObjectMeta: metav1.ObjectMeta{Name: "gold"}, Spec: samplesv1alpha1.FooClassSpec{Defaults: map[string]string{"tier": "gold", "color": "grey"}}}
	f := foo("shop", "web", map[string]string{"color": "blue"})
	f.Spec.ClassName = "gold"
	e := newEnv(t, nil, class, f)

	out, err := e.r.Reconcile(context.Background(), "shop", "web")
	if err != nil || out != Created {
		t.Fatalf("Reconcile = %q, %v; want created", out, err)
	}
	cm := e.configMap(t, "shop", "web")
	if want := map[string]string{"tier": "gold", "color": "blue"}; !maps.Equal(cm.Data, want) {
		t.Fatalf("data = %v, want %v (foo's data over class defaults)", cm.Data, want)
	}
	if !metav1.IsControlledBy(cm, f) || cm.Labels[FooLabel] != "web" {
		t.Fatalf("ConfigMap not owned/labelled: owners=%v labels=%v", cm.OwnerReferences, cm.Labels)
	}
	if st := e.status(t, "shop", "web"); st.Phase != PhaseReady || st.ConfigMapName != "web" || st.ObservedGeneration != 1 {
		t.Fatalf("status = %+v", st)
	}
}

func TestReconcileUpdatesDriftedConfigMapThenIsUnchanged(t *testing.T) {
	f := foo("shop", "web", map[string]string{"k": "v2"})
	f.Spec.ConfigMapName = "web-config"
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web-config", Labels: map[string]string{FooLabel: "web"}, OwnerReferences: []metav1.OwnerReference{ownerRef(f)}}, Data: map[string]string{"k": "v1"}}
	e := newEnv(t, []runtime.Object{cm}, f)

	out, err := e.r.Reconcile(context.Background(), "shop", "web")
	if err != nil || out != Updated {
		t.Fatalf("Reconcile = %q, %v; want updated", out, err)
	}
	if got := e.configMap(t, "shop", "web-config").Data["k"]; got != "v2" {
		t.Fatalf("data k = %q, want v2", got)
	}
	testutil.Eventually(t, "the cache to see the update", func() bool {
		c, err := e.r.ConfigMaps.ConfigMaps("shop").Get("web-config")
		return err == nil && c.Data["k"] == "v2"
	})
	if out, err := e.r.Reconcile(context.Background(), "shop", "web"); err != nil || out != Unchanged {
		t.Fatalf("second Reconcile = %q, %v; want unchanged", out, err)
	}
}

func TestReconcileDeletedFooRemovesItsConfigMaps(t *testing.T) {
	owner := foo("shop", "gone", nil)
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "gone", Labels: map[string]string{FooLabel: "gone"}, OwnerReferences: []metav1.OwnerReference{ownerRef(owner)}}}
	other := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "unrelated"}}
	e := newEnv(t, []runtime.Object{cm, other})

	out, err := e.r.Reconcile(context.Background(), "shop", "gone")
	if err != nil || out != Deleted {
		t.Fatalf("Reconcile = %q, %v; want deleted", out, err)
	}
	if _, err := e.kube.CoreV1().ConfigMaps("shop").Get(context.Background(), "gone", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("owned ConfigMap still there: %v", err)
	}
	e.configMap(t, "shop", "unrelated")
}

func TestReconcileMissingClassIsRetriedError(t *testing.T) {
	f := foo("shop", "web", nil)
	f.Spec.ClassName = "platinum"
	e := newEnv(t, nil, f)
	_, err := e.r.Reconcile(context.Background(), "shop", "web")
	if !apierrors.IsNotFound(err) || errors.Is(err, ErrConflict) || !strings.Contains(err.Error(), `FooClass "platinum"`) {
		t.Fatalf("err = %v, want a retryable NotFound naming the class", err)
	}
	if st := e.status(t, "shop", "web"); st.Phase != PhaseFailed {
		t.Fatalf("status = %+v, want Failed", st)
	}
}

func TestReconcileAPIErrorIsReturnedForRetry(t *testing.T) {
	e := newEnv(t, nil, foo("shop", "web", nil))
	e.kube.PrependReactor("create", "configmaps", func(clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewServiceUnavailable("etcd is down")
	})
	_, err := e.r.Reconcile(context.Background(), "shop", "web")
	if !apierrors.IsServiceUnavailable(err) || !strings.Contains(err.Error(), "shop/web") {
		t.Fatalf("err = %v, want ServiceUnavailable naming the ConfigMap", err)
	}
}

func TestReconcileForeignConfigMapIsTerminalConflict(t *testing.T) {
	foreign := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web"}}
	e := newEnv(t, []runtime.Object{foreign}, foo("shop", "web", nil))
	out, err := e.r.Reconcile(context.Background(), "shop", "web")
	if out != Conflict || !errors.Is(err, ErrConflict) {
		t.Fatalf("Reconcile = %q, %v; want conflict", out, err)
	}
	if st := e.status(t, "shop", "web"); st.Phase != PhaseFailed || !strings.Contains(st.Message, "not owned") {
		t.Fatalf("status = %+v", st)
	}
}

func TestReconcileMaintenanceWindowPauses(t *testing.T) {
	w := &opsv1.MaintenanceWindow{ObjectMeta: metav1.ObjectMeta{Name: "upgrade"}, Spec: opsv1.MaintenanceWindowSpec{Namespaces: []string{"shop"}, Reason: "node upgrade"}}
	e := newEnv(t, nil, w, foo("shop", "web", nil), foo("lab", "web", nil))
	if out, err := e.r.Reconcile(context.Background(), "shop", "web"); err != nil || out != Paused {
		t.Fatalf("shop: %q, %v; want paused", out, err)
	}
	if st := e.status(t, "shop", "web"); st.Phase != PhasePaused || !strings.Contains(st.Message, "node upgrade") {
		t.Fatalf("status = %+v", st)
	}
	if out, err := e.r.Reconcile(context.Background(), "lab", "web"); err != nil || out != Created {
		t.Fatalf("lab: %q, %v; want created (window does not cover it)", out, err)
	}
}
