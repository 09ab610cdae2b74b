package controller

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8sfake "k8s.io/client-go/kubernetes/fake"
	core "k8s.io/client-go/testing"

	samplesv1alpha1 "github.com/typedinformer/typedinformer/examples/crd/apis/samples/v1alpha1"
	"github.com/typedinformer/typedinformer/examples/crd/pkg/generated/clientset/versioned/fake"
	informers "github.com/typedinformer/typedinformer/examples/crd/pkg/generated/informers/externalversions"
	kubeinformers "github.com/typedinformer/typedinformer/examples/crd/pkg/kube/informers/externalversions"
	"github.com/typedinformer/typedinformer/runtime/cache"
)

var alwaysReady = func() bool { return true }

// fixture seeds the informers' caches and the fake clientsets with
// objects, runs one sync, and compares the writes the controller made with
// the expected ones (reads, lists and watches are not compared).
type fixture struct {
	t *testing.T

	client     *fake.Clientset
	kubeclient *k8sfake.Clientset

	// Objects to put in the informers' caches.
	fooLister       []*samplesv1alpha1.Foo
	configMapLister []*corev1.ConfigMap
	// Expected writes.
	actions     []core.Action
	kubeactions []core.Action
	// Objects the fake clientsets start with.
	objects     []runtime.Object
	kubeobjects []runtime.Object
}

func newFixture(t *testing.T) *fixture {
	return &fixture{t: t}
}

func (f *fixture) newController(ctx context.Context) (*Controller, informers.SharedInformerFactory, kubeinformers.SharedInformerFactory) {
	f.client = fake.NewSimpleClientset(f.objects...)
	f.kubeclient = k8sfake.NewSimpleClientset(f.kubeobjects...)

	i := informers.NewSharedInformerFactory(f.client, 0)
	k8sI := kubeinformers.NewSharedInformerFactory(f.kubeclient, 0)

	c, err := NewController(ctx, f.kubeclient, f.client,
		k8sI.Core().V1().ConfigMaps(), i.Samples().V1alpha1().Foos())
	if err != nil {
		f.t.Fatalf("NewController: %v", err)
	}
	c.foosSynced = alwaysReady
	c.configMapsSynced = alwaysReady

	for _, foo := range f.fooLister {
		if err := i.Samples().V1alpha1().Foos().Informer().GetIndexer().Add(foo); err != nil {
			f.t.Fatal(err)
		}
	}
	for _, cm := range f.configMapLister {
		if err := k8sI.Core().V1().ConfigMaps().Informer().GetIndexer().Add(cm); err != nil {
			f.t.Fatal(err)
		}
	}
	return c, i, k8sI
}

func (f *fixture) run(ctx context.Context, fooRef cache.ObjectName) {
	f.runController(ctx, fooRef, true, false)
}

func (f *fixture) runExpectError(ctx context.Context, fooRef cache.ObjectName) {
	f.runController(ctx, fooRef, true, true)
}

func (f *fixture) runController(ctx context.Context, fooRef cache.ObjectName, startInformers bool, expectError bool) {
	c, i, k8sI := f.newController(ctx)
	if startInformers {
		i.Start(ctx)
		k8sI.Start(ctx)
	}

	err := c.syncHandler(ctx, fooRef)
	if !expectError && err != nil {
		f.t.Errorf("error syncing foo: %v", err)
	} else if expectError && err == nil {
		f.t.Error("expected error syncing foo, got nil")
	}

	checkActions(f.t, "samples", f.actions, writes(f.client.Actions()))
	checkActions(f.t, "kube", f.kubeactions, writes(f.kubeclient.Actions()))
}

// writes drops the reads, lists and watches the informers made.
func writes(actions []core.Action) []core.Action {
	var out []core.Action
	for _, a := range actions {
		if a.GetVerb() == "list" || a.GetVerb() == "watch" || a.GetVerb() == "get" {
			continue
		}
		out = append(out, a)
	}
	return out
}

func checkActions(t *testing.T, which string, want, got []core.Action) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d writes, want %d: %v", which, len(got), len(want), got)
		return
	}
	for i := range want {
		w, g := want[i], got[i]
		if w.GetVerb() != g.GetVerb() || w.GetResource() != g.GetResource() || w.GetSubresource() != g.GetSubresource() {
			t.Errorf("%s write %d = %s %s/%s, want %s %s/%s", which, i, g.GetVerb(), g.GetResource().Resource, g.GetSubresource(), w.GetVerb(), w.GetResource().Resource, w.GetSubresource())
			continue
		}
		wo, wok := w.(interface{ GetObject() runtime.Object })
		gotObj, gok := g.(interface{ GetObject() runtime.Object })
		if wok && gok && !reflect.DeepEqual(wo.GetObject(), gotObj.GetObject()) {
			t.Errorf("%s write %d object =\n%#v\nwant\n%#v", which, i, gotObj.GetObject(), wo.GetObject())
		}
	}
}

func newFoo(name string, data map[string]string) *samplesv1alpha1.Foo {
	return &samplesv1alpha1.Foo{
		TypeMeta:   metav1.TypeMeta{APIVersion: samplesv1alpha1.SchemeGroupVersion.String(), Kind: "Foo"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: metav1.NamespaceDefault, Generation: 1},
		Spec:       samplesv1alpha1.FooSpec{Data: data},
	}
}

func fooWithStatus(foo *samplesv1alpha1.Foo, phase, message string) *samplesv1alpha1.Foo {
	foo = foo.DeepCopy()
	foo.Status = samplesv1alpha1.FooStatus{ObservedGeneration: foo.Generation, ConfigMapName: foo.Name, Phase: phase, Message: message}
	return foo
}

func (f *fixture) expectCreateConfigMap(cm *corev1.ConfigMap) {
	f.kubeactions = append(f.kubeactions, core.NewCreateAction(corev1.SchemeGroupVersion.WithResource("configmaps"), cm.Namespace, cm))
}

func (f *fixture) expectUpdateConfigMap(cm *corev1.ConfigMap) {
	f.kubeactions = append(f.kubeactions, core.NewUpdateAction(corev1.SchemeGroupVersion.WithResource("configmaps"), cm.Namespace, cm))
}

func (f *fixture) expectUpdateFooStatus(foo *samplesv1alpha1.Foo) {
	f.actions = append(f.actions, core.NewUpdateSubresourceAction(samplesv1alpha1.SchemeGroupVersion.WithResource("foos"), "status", foo.Namespace, foo))
}

func getRef(foo *samplesv1alpha1.Foo) cache.ObjectName {
	return cache.MetaObjectToName(foo)
}

func TestCreatesConfigMap(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f := newFixture(t)
	foo := newFoo("test", map[string]string{"k": "v"})

	f.fooLister = append(f.fooLister, foo)
	f.objects = append(f.objects, foo)

	f.expectCreateConfigMap(configMapFor(foo, foo.Name))
	f.expectUpdateFooStatus(fooWithStatus(foo, PhaseReady, ""))
	f.run(ctx, getRef(foo))
}

func TestDoNothing(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f := newFixture(t)
	foo := fooWithStatus(newFoo("test", map[string]string{"k": "v"}), PhaseReady, "")
	cm := configMapFor(foo, foo.Name)

	f.fooLister = append(f.fooLister, foo)
	f.objects = append(f.objects, foo)
	f.configMapLister = append(f.configMapLister, cm)
	f.kubeobjects = append(f.kubeobjects, cm)

	f.run(ctx, getRef(foo))
}

func TestUpdateConfigMap(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f := newFixture(t)
	foo := fooWithStatus(newFoo("test", map[string]string{"k": "v2"}), PhaseReady, "")
	stale := configMapFor(foo, foo.Name)
	stale.Data = map[string]string{"k": "v1"}

	f.fooLister = append(f.fooLister, foo)
	f.objects = append(f.objects, foo)
	f.configMapLister = append(f.configMapLister, stale)
	f.kubeobjects = append(f.kubeobjects, stale)

	f.expectUpdateConfigMap(configMapFor(foo, foo.Name))
	f.run(ctx, getRef(foo))
}

func TestNotControlledByUs(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f := newFixture(t)
	foo := newFoo("test", map[string]string{"k": "v"})
	cm := configMapFor(foo, foo.Name)
	cm.OwnerReferences = nil

	f.fooLister = append(f.fooLister, foo)
	f.objects = append(f.objects, foo)
	f.configMapLister = append(f.configMapLister, cm)
	f.kubeobjects = append(f.kubeobjects, cm)

	f.expectUpdateFooStatus(fooWithStatus(foo, PhaseFailed, `ConfigMap "test" already exists and is not managed by this Foo`))
	f.runExpectError(ctx, getRef(foo))
}

// A ConfigMap event requeues the Foo that controls it, also for a delete
// the informer only learned about on a relist (a tombstone).
func TestConfigMapEventsRequeueTheirFoo(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f := newFixture(t)
	foo := newFoo("test", nil)
	f.fooLister = append(f.fooLister, foo)
	c, _, _ := f.newController(ctx)
	cm := configMapFor(foo, "owned")
	orphan := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: foo.Namespace, Name: "orphan"}}

	for name, event := range map[string]func(){
		"add":    func() { c.handleObject(cm) },
		"delete": func() { c.handleObject(cm) },
		// A missed delete reaches the handler as the typed last known state.
		"tombstone": func() { c.handleObject(cm) },
	} {
		c.handleObject(orphan)
		event()
		if n := c.workqueue.Len(); n != 1 {
			t.Fatalf("%s: queue length %d, want 1 (the owner only)", name, n)
		}
		ref, _ := c.workqueue.Get()
		c.workqueue.Done(ref)
		if ref != getRef(foo) {
			t.Fatalf("%s: queued %v, want %v", name, ref, getRef(foo))
		}
	}
}

// Run syncs a Foo end to end through the informers and the queue, and
// returns once ctx is done.
func TestRunSyncsThroughInformers(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f := newFixture(t)
	foo := newFoo("test", map[string]string{"k": "v"})
	f.objects = append(f.objects, foo)
	c, i, k8sI := f.newController(ctx)
	i.Start(ctx)
	k8sI.Start(ctx)

	done := make(chan error, 1)
	go func() { done <- c.Run(ctx, 2) }()

	deadline := time.Now().Add(20 * time.Second)
	for {
		got, err := f.client.SamplesV1alpha1().Foos(foo.Namespace).Get(ctx, foo.Name, metav1.GetOptions{})
		if err == nil && got.Status.Phase == PhaseReady {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("Foo never became Ready (last: %+v, %v)", got, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := f.kubeclient.CoreV1().ConfigMaps(foo.Namespace).Get(ctx, foo.Name, metav1.GetOptions{}); err != nil {
		t.Fatalf("ConfigMap not created: %v", err)
	}
	cancel()
	if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
		t.Fatalf("Run = %v", err)
	}
}
