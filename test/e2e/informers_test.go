package e2e

// Every informer the tests run is built in this file. Foos and ConfigMaps
// come from examples/crd's generated factories (its own API group and
// core/v1), as a controller author would get them. PodTemplates and the
// missing custom resource are built by hand on cache.NewSharedIndexInformer,
// because those tests need knobs generated informers do not expose: a small
// page size, short backoffs and a record of every list and watch call.

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"

	samplesinformers "github.com/typedinformer/typedinformer/examples/crd/pkg/generated/informers/externalversions"
	"github.com/typedinformer/typedinformer/internal/testutil/informertest"
	kubeinformers "github.com/typedinformer/typedinformer/kube/informers"
	"github.com/typedinformer/typedinformer/runtime/cache"
	"github.com/typedinformer/typedinformer/runtime/informers"
	"github.com/typedinformer/typedinformer/test/e2e/framework"
)

// newSamplesFactory returns examples/crd's generated factory for its API
// groups (Foos, FooClasses, MaintenanceWindows).
func newSamplesFactory(c clients, options ...samplesinformers.SharedInformerOption) samplesinformers.SharedInformerFactory {
	return samplesinformers.NewSharedInformerFactoryWithOptions(c.samples, 0, options...)
}

// newKubeFactory returns examples/crd's generated factory for core/v1.
func newKubeFactory(c clients, options ...kubeinformers.SharedInformerOption) kubeinformers.SharedInformerFactory {
	return kubeinformers.NewSharedInformerFactoryWithOptions(c.kube, 0, options...)
}

// withLabel limits a factory's informers to objects with labelKey=label.
func withLabel(label string) informers.Option {
	return informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = labelKey + "=" + label })
}

// fooInformer is f's generated Foo informer.
func fooInformer(f samplesinformers.SharedInformerFactory) cache.SharedIndexInformer[*foo] {
	return f.Samples().V1alpha1().Foos().Informer()
}

// configMapInformer is f's generated ConfigMap informer.
func configMapInformer(f kubeinformers.SharedInformerFactory) cache.SharedIndexInformer[*configMap] {
	return f.Core().V1().ConfigMaps().Informer()
}

// factoryPodTemplateInformer is f's generated PodTemplate informer.
func factoryPodTemplateInformer(f kubeinformers.SharedInformerFactory) cache.SharedIndexInformer[*podTemplate] {
	return f.Core().V1().PodTemplates().Informer()
}

// factory is what runFactory needs of a generated factory.
type factory interface {
	Start(ctx context.Context)
	Shutdown()
}

// runFactory starts f and shuts it down when the test ends.
func runFactory(t testing.TB, f factory) {
	ctx, cancel := context.WithCancel(context.Background())
	f.Start(ctx)
	t.Cleanup(func() {
		cancel()
		f.Shutdown()
	})
}

// informerOptions are the knobs tests turn on hand-built informers.
type informerOptions struct {
	// label, when set, limits lists and watches to objects with
	// labelKey=label.
	label string
	// reflector tunes paging and backoff; zero backoffs get fast test
	// defaults (see withDefaults).
	reflector cache.ReflectorOptions
	// calls, when set, records every list and watch the informer makes.
	calls *callLog
}

// withDefaults shortens backoffs so that tests recover from an outage
// within a second or two instead of the production 30s cap.
func (o informerOptions) withDefaults() informerOptions {
	if o.reflector.InitialBackoff == 0 {
		o.reflector.InitialBackoff = 100 * time.Millisecond
	}
	if o.reflector.MaxBackoff == 0 {
		o.reflector.MaxBackoff = time.Second
	}
	return o
}

func (o informerOptions) tweak(opts *metav1.ListOptions) {
	if o.label != "" {
		opts.LabelSelector = labelKey + "=" + o.label
	}
}

// listWatch adapts list and watch calls of any client to a
// cache.ListerWatcher that applies o and records into o.calls.
func listWatch[L runtime.Object](o informerOptions,
	list func(ctx context.Context, opts metav1.ListOptions) (L, error),
	watchFn func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error),
) cache.ListerWatcher {
	return &cache.ListWatch{
		ListFunc: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			o.tweak(&opts)
			l, err := list(ctx, opts)
			o.calls.recordList(opts, l, err)
			if err != nil {
				return nil, err
			}
			return l, nil
		},
		WatchFunc: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			o.tweak(&opts)
			w, err := watchFn(ctx, opts)
			return o.calls.recordWatch(opts, w, err)
		},
	}
}

func newInformer[T cache.Object](lw cache.ListerWatcher, gvr schema.GroupVersionResource, o informerOptions) cache.SharedIndexInformer[T] {
	return cache.NewSharedIndexInformerWithOptions[T](lw, cache.SharedIndexInformerOptions[T]{
		Resource:  gvr,
		Reflector: o.reflector,
	})
}

var podTemplateGVR = corev1.SchemeGroupVersion.WithResource("podtemplates")

// newPodTemplateInformer watches PodTemplates of namespace ("" = all),
// which the cluster serves without a watch cache: their watches reach etcd
// directly.
func newPodTemplateInformer(c clients, namespace string, o informerOptions) cache.SharedIndexInformer[*podTemplate] {
	o = o.withDefaults()
	pts := c.kube.CoreV1().PodTemplates(namespace)
	return newInformer[*podTemplate](listWatch(o, pts.List, pts.Watch), podTemplateGVR, o)
}

// newUnstructuredInformer watches any resource through the dynamic client.
func newUnstructuredInformer(c clients, gvr schema.GroupVersionResource, namespace string, o informerOptions) cache.SharedIndexInformer[*unstructured.Unstructured] {
	o = o.withDefaults()
	r := c.dynamic.Resource(gvr).Namespace(namespace)
	return newInformer[*unstructured.Unstructured](listWatch(o, r.List, r.Watch), gvr, o)
}

// extraAPIServer starts an apiserver named name, with args, beside the
// cluster's, failing t if it does not start; the caller stops it
// (cluster.StopExtraAPIServer) before ctx ends.
func extraAPIServer(t testing.TB, ctx context.Context, name string, args ...string) *framework.APIServer {
	t.Helper()
	a, err := cluster.StartExtraAPIServerWithArgs(ctx, name, args...)
	if err != nil {
		t.Fatalf("starting apiserver %s with %q: %v", name, args, err)
	}
	return a
}

// runInformer runs inf until the test ends.
func runInformer(t testing.TB, inf cache.AnyInformer) {
	t.Helper()
	informertest.Run(t, context.Background(), inf)
}

// waitSynced fails t unless every syncer syncs within a minute.
func waitSynced(t testing.TB, syncers ...cache.Syncer) {
	t.Helper()
	informertest.WaitSynced(t, time.Minute, syncers...)
}
