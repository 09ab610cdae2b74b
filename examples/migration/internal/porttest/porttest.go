// Package porttest holds the tests of examples/migration's controller. The
// client-go version (before/) and its port onto typedinformer (after/) both
// run Run, so the port is held to the very same assertions; each package
// only supplies what differs between the two: how its informers are built,
// seeded and started, and how its handler receives a tombstone.
package porttest

import (
	"context"
	"errors"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8sfake "k8s.io/client-go/kubernetes/fake"
	core "k8s.io/client-go/testing"

	samplesv1alpha1 "github.com/typedinformer/typedinformer/examples/crd/apis/samples/v1alpha1"
	"github.com/typedinformer/typedinformer/examples/crd/pkg/generated/clientset/versioned/fake"
	"github.com/typedinformer/typedinformer/internal/testutil"
)

// The phases both versions write into a Foo's status.
const (
	phaseReady  = "Ready"
	phaseFailed = "Failed"
)

// Controller is one version of the controller as the tests drive it. The
// methods are called from the test goroutine only, except that Run runs on
// its own goroutine until its context is done.
type Controller interface {
	// Sync runs the controller's sync handler once for the named Foo.
	Sync(ctx context.Context, namespace, name string) error
	// HandleConfigMap passes cm to the ConfigMap handler as an add or a
	// delete the informer saw.
	HandleConfigMap(cm *corev1.ConfigMap)
	// HandleTombstone passes cm to the ConfigMap handler as a delete the
	// informer only learned about on a relist, stored under key.
	HandleTombstone(key string, cm *corev1.ConfigMap)
	// QueueLen is the number of Foos waiting in the workqueue.
	QueueLen() int
	// Next takes the next Foo from the workqueue, marks it done and
	// returns its namespace and name.
	Next() (namespace, name string)
	// Run runs the controller with workers workers until ctx is done.
	Run(ctx context.Context, workers int) error
}

// Port is what a version supplies to Run.
type Port struct {
	// New builds the controller on the two fake clientsets, with its
	// informers' caches holding foos and configMaps and reported synced.
	// start starts the informers; New does not.
	New func(ctx context.Context, t *testing.T, kube *k8sfake.Clientset, samples *fake.Clientset,
		foos []*samplesv1alpha1.Foo, configMaps []*corev1.ConfigMap) (c Controller, start func())
	// ConfigMapFor is the version's configMapFor: the ConfigMap named
	// name that foo asks for, controlled by foo.
	ConfigMapFor func(foo *samplesv1alpha1.Foo, name string) *corev1.ConfigMap
}

// Seed puts objs into an informer's cache through add, its indexer's Add
// (which takes the object typed as O: the object itself after the port,
// interface{} before), failing t on an error.
func Seed[T, O any](t *testing.T, add func(O) error, objs []T) {
	t.Helper()
	for _, obj := range objs {
		o, ok := any(obj).(O)
		if !ok {
			t.Fatalf("Seed: %T is not the %T the cache takes", obj, o)
		}
		if err := add(o); err != nil {
			t.Fatal(err)
		}
	}
}

// Run runs every test of the controller against p, each as a subtest named
// after what it checks.
func Run(t *testing.T, p Port) {
	tests := []struct {
		name string
		test func(*testing.T, Port)
	}{
		{"CreatesConfigMap", testCreatesConfigMap},
		{"DoNothing", testDoNothing},
		{"UpdateConfigMap", testUpdateConfigMap},
		{"NotControlledByUs", testNotControlledByUs},
		{"ConfigMapEventsRequeueTheirFoo", testConfigMapEventsRequeueTheirFoo},
		{"RunSyncsThroughInformers", testRunSyncsThroughInformers},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.test(t, p) })
	}
}

// fixture seeds the informers' caches and the fake clientsets with
// objects, runs one sync, and compares the writes the controller made with
// the expected ones (reads, lists and watches are not compared).
type fixture struct {
	t    *testing.T
	port Port

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

func newFixture(t *testing.T, p Port) *fixture {
	return &fixture{t: t, port: p}
}

// seed puts foo in the Foo cache and the samples clientset, and each of cms
// in the ConfigMap cache and the kube clientset.
func (f *fixture) seed(foo *samplesv1alpha1.Foo, cms ...*corev1.ConfigMap) {
	f.fooLister = append(f.fooLister, foo)
	f.objects = append(f.objects, foo)
	for _, cm := range cms {
		f.configMapLister = append(f.configMapLister, cm)
		f.kubeobjects = append(f.kubeobjects, cm)
	}
}

// newController builds the port's controller, its informers running until
// the test ends.
func (f *fixture) newController() (Controller, func()) {
	f.client = fake.NewSimpleClientset(f.objects...)
	f.kubeclient = k8sfake.NewSimpleClientset(f.kubeobjects...)
	return f.port.New(f.t.Context(), f.t, f.kubeclient, f.client, f.fooLister, f.configMapLister)
}

func (f *fixture) run(foo *samplesv1alpha1.Foo) {
	f.runController(foo, false)
}

func (f *fixture) runExpectError(foo *samplesv1alpha1.Foo) {
	f.runController(foo, true)
}

func (f *fixture) runController(foo *samplesv1alpha1.Foo, expectError bool) {
	c, start := f.newController()
	start()

	err := c.Sync(f.t.Context(), foo.Namespace, foo.Name)
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
		TypeMeta:   metav1.TypeMeta{APIVersion: samplesv1alpha1.GroupVersion.String(), Kind: "Foo"},
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
	f.actions = append(f.actions, core.NewUpdateSubresourceAction(schema.GroupVersion(samplesv1alpha1.GroupVersion).WithResource("foos"), "status", foo.Namespace, foo))
}

func testCreatesConfigMap(t *testing.T, p Port) {
	f := newFixture(t, p)
	foo := newFoo("test", map[string]string{"k": "v"})
	f.seed(foo)

	f.expectCreateConfigMap(p.ConfigMapFor(foo, foo.Name))
	f.expectUpdateFooStatus(fooWithStatus(foo, phaseReady, ""))
	f.run(foo)
}

func testDoNothing(t *testing.T, p Port) {
	f := newFixture(t, p)
	foo := fooWithStatus(newFoo("test", map[string]string{"k": "v"}), phaseReady, "")
	f.seed(foo, p.ConfigMapFor(foo, foo.Name))

	f.run(foo)
}

func testUpdateConfigMap(t *testing.T, p Port) {
	f := newFixture(t, p)
	foo := fooWithStatus(newFoo("test", map[string]string{"k": "v2"}), phaseReady, "")
	stale := p.ConfigMapFor(foo, foo.Name)
	stale.Data = map[string]string{"k": "v1"}
	f.seed(foo, stale)

	f.expectUpdateConfigMap(p.ConfigMapFor(foo, foo.Name))
	f.run(foo)
}

func testNotControlledByUs(t *testing.T, p Port) {
	f := newFixture(t, p)
	foo := newFoo("test", map[string]string{"k": "v"})
	cm := p.ConfigMapFor(foo, foo.Name)
	cm.OwnerReferences = nil
	f.seed(foo, cm)

	f.expectUpdateFooStatus(fooWithStatus(foo, phaseFailed, `ConfigMap "test" already exists and is not managed by this Foo`))
	f.runExpectError(foo)
}

// A ConfigMap event requeues the Foo that controls it, also for a delete
// the informer only learned about on a relist (a tombstone).
func testConfigMapEventsRequeueTheirFoo(t *testing.T, p Port) {
	f := newFixture(t, p)
	foo := newFoo("test", nil)
	f.fooLister = append(f.fooLister, foo)
	c, _ := f.newController()
	cm := p.ConfigMapFor(foo, "owned")
	orphan := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: foo.Namespace, Name: "orphan"}}

	for name, event := range map[string]func(){
		"add":       func() { c.HandleConfigMap(cm) },
		"delete":    func() { c.HandleConfigMap(cm) },
		"tombstone": func() { c.HandleTombstone("default/owned", cm) },
	} {
		c.HandleConfigMap(orphan)
		event()
		if n := c.QueueLen(); n != 1 {
			t.Fatalf("%s: queue length %d, want 1 (the owner only)", name, n)
		}
		if ns, n := c.Next(); ns != foo.Namespace || n != foo.Name {
			t.Fatalf("%s: queued %s/%s, want %s/%s", name, ns, n, foo.Namespace, foo.Name)
		}
	}
}

// Run syncs a Foo end to end through the informers and the queue, and
// returns once ctx is done.
func testRunSyncsThroughInformers(t *testing.T, p Port) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f := newFixture(t, p)
	foo := newFoo("test", map[string]string{"k": "v"})
	f.objects = append(f.objects, foo)
	c, start := f.newController()
	start()

	done := make(chan error, 1)
	go func() { done <- c.Run(ctx, 2) }()

	testutil.Eventually(t, "the Foo to become Ready", func() bool {
		got, err := f.client.SamplesV1alpha1().Foos(foo.Namespace).Get(ctx, foo.Name, metav1.GetOptions{})
		return err == nil && got.Status.Phase == phaseReady
	})
	if _, err := f.kubeclient.CoreV1().ConfigMaps(foo.Namespace).Get(ctx, foo.Name, metav1.GetOptions{}); err != nil {
		t.Fatalf("ConfigMap not created: %v", err)
	}
	cancel()
	if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
		t.Fatalf("Run = %v", err)
	}
}
