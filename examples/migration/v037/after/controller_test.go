package controller

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	k8sfake "k8s.io/client-go/kubernetes/fake"

	samplesv1alpha1 "github.com/typedinformer/typedinformer/examples/crd/apis/samples/v1alpha1"
	"github.com/typedinformer/typedinformer/examples/crd/pkg/generated/clientset/versioned/fake"
	informers "github.com/typedinformer/typedinformer/examples/crd/pkg/generated/informers/externalversions"
	"github.com/typedinformer/typedinformer/examples/migration/internal/porttest"
	kubeinformers "github.com/typedinformer/typedinformer/kube/informers"
	"github.com/typedinformer/typedinformer/runtime/cache"
)

// TestController runs porttest's tests on the port of the controller
// written against client-go v0.37's typed API.
func TestController(t *testing.T) {
	porttest.Run(t, porttest.Port{New: newPort, ConfigMapFor: configMapFor})
}

var alwaysReady = func() bool { return true }

// port drives the Controller for porttest.
type port struct{ *Controller }

func newPort(ctx context.Context, t *testing.T, kube *k8sfake.Clientset, samples *fake.Clientset,
	foos []*samplesv1alpha1.Foo, configMaps []*corev1.ConfigMap) (porttest.Controller, func()) {
	i := informers.NewSharedInformerFactory(samples, 0)
	k8sI := kubeinformers.NewSharedInformerFactory(kube, 0)

	c, err := NewController(ctx, kube, samples,
		k8sI.Core().V1().ConfigMaps(), i.Samples().V1alpha1().Foos())
	if err != nil {
		t.Fatalf("NewController: %v", err)
	}
	c.foosSynced = alwaysReady
	c.configMapsSynced = alwaysReady

	porttest.Seed(t, i.Samples().V1alpha1().Foos().Informer().GetIndexer().Add, foos)
	porttest.Seed(t, k8sI.Core().V1().ConfigMaps().Informer().GetIndexer().Add, configMaps)
	return port{c}, func() {
		i.Start(ctx)
		k8sI.Start(ctx)
	}
}

func (p port) Sync(ctx context.Context, namespace, name string) error {
	return p.syncHandler(ctx, cache.ObjectName{Namespace: namespace, Name: name})
}

func (p port) HandleConfigMap(cm *corev1.ConfigMap) { p.handleObject(cm) }

func (p port) HandleTombstone(key string, cm *corev1.ConfigMap) {
	p.handleDeletedObject(cache.DeletedObject[*corev1.ConfigMap]{OptionalObj: cm, FinalStateUnknown: &cache.DeletedFinalStateUnknown{Key: key, Obj: cm}})
}

func (p port) QueueLen() int { return p.workqueue.Len() }

func (p port) Next() (namespace, name string) {
	ref, _ := p.workqueue.Get()
	p.workqueue.Done(ref)
	return ref.Namespace, ref.Name
}
