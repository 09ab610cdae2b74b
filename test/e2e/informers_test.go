package e2e

// Every informer the tests run is built in this file, so that moving to
// generated informers (examples/crd) changes one place.

import (
	"context"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/typedinformer/typedinformer/runtime/cache"
	"github.com/typedinformer/typedinformer/runtime/informers"
)

// informerOptions are the knobs tests turn on informers.
type informerOptions struct {
	// label, when set, limits lists and watches to objects with
	// labelKey=label.
	label string
	// reflector tunes paging and backoff; zero fields get fast test
	// defaults (see withDefaults).
	reflector cache.ReflectorOptions
	// calls, when set, records every list and watch the informer makes.
	calls *callLog
	// factoryTweak is a factory's TweakListOptions, applied like generated
	// informers apply it.
	factoryTweak informers.TweakListOptionsFunc
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
	if o.factoryTweak != nil {
		o.factoryTweak(opts)
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

func newInformer[T cache.Object](lw cache.ListerWatcher, gvr schema.GroupVersionResource, o informerOptions, resync time.Duration) cache.SharedIndexInformer[T] {
	return cache.NewSharedIndexInformerWithOptions[T](lw, cache.SharedIndexInformerOptions[T]{
		ResyncPeriod: resync,
		Resource:     gvr,
		Reflector:    o.reflector,
	})
}

var (
	configMapGVR   = corev1.SchemeGroupVersion.WithResource("configmaps")
	podTemplateGVR = corev1.SchemeGroupVersion.WithResource("podtemplates")
)

// newConfigMapInformer watches ConfigMaps of namespace ("" = all) through
// the typed client.
func newConfigMapInformer(c clients, namespace string, o informerOptions) cache.SharedIndexInformer[*corev1.ConfigMap] {
	o = o.withDefaults()
	cms := c.kube.CoreV1().ConfigMaps(namespace)
	return newInformer[*corev1.ConfigMap](listWatch(o, cms.List, cms.Watch), configMapGVR, o, 0)
}

// newPodTemplateInformer watches PodTemplates, which the cluster serves
// without a watch cache: their watches reach etcd directly.
func newPodTemplateInformer(c clients, namespace string, o informerOptions) cache.SharedIndexInformer[*corev1.PodTemplate] {
	o = o.withDefaults()
	pts := c.kube.CoreV1().PodTemplates(namespace)
	return newInformer[*corev1.PodTemplate](listWatch(o, pts.List, pts.Watch), podTemplateGVR, o, 0)
}

// newUnstructuredInformer watches any resource through the dynamic client.
func newUnstructuredInformer(c clients, gvr schema.GroupVersionResource, namespace string, o informerOptions) cache.SharedIndexInformer[*unstructured.Unstructured] {
	o = o.withDefaults()
	r := c.dynamic.Resource(gvr).Namespace(namespace)
	return newInformer[*unstructured.Unstructured](listWatch(o, r.List, r.Watch), gvr, o, 0)
}

// newWidgetInformer watches the test CRD's Widgets.
func newWidgetInformer(c clients, namespace string, o informerOptions) cache.SharedIndexInformer[*unstructured.Unstructured] {
	return newUnstructuredInformer(c, widgetGVR, namespace, o)
}

// configMapsFor returns f's ConfigMap informer, the way generated factory
// code does.
func configMapsFor(f *informers.Factory, c clients, o informerOptions) cache.SharedIndexInformer[*corev1.ConfigMap] {
	return informers.InformerFor(f, true, func(namespace string, resync time.Duration) cache.SharedIndexInformer[*corev1.ConfigMap] {
		o := o.withDefaults()
		o.factoryTweak = f.TweakListOptions()
		cms := c.kube.CoreV1().ConfigMaps(namespace)
		return newInformer[*corev1.ConfigMap](listWatch(o, cms.List, cms.Watch), configMapGVR, o, resync)
	})
}

// widgetsFor returns f's Widget informer (keyed by *unstructured.Unstructured:
// one dynamic resource per factory).
func widgetsFor(f *informers.Factory, c clients, o informerOptions) cache.SharedIndexInformer[*unstructured.Unstructured] {
	return informers.InformerFor(f, true, func(namespace string, resync time.Duration) cache.SharedIndexInformer[*unstructured.Unstructured] {
		o := o.withDefaults()
		o.factoryTweak = f.TweakListOptions()
		r := c.dynamic.Resource(widgetGVR).Namespace(namespace)
		return newInformer[*unstructured.Unstructured](listWatch(o, r.List, r.Watch), widgetGVR, o, resync)
	})
}

// runInformer runs inf until the test ends.
func runInformer(t testing.TB, inf cache.AnyInformer) {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { inf.Run(ctx) })
	t.Cleanup(func() {
		cancel()
		wg.Wait()
	})
}

// runFactory starts f and shuts it down when the test ends.
func runFactory(t testing.TB, f *informers.Factory) {
	ctx, cancel := context.WithCancel(context.Background())
	f.Start(ctx)
	t.Cleanup(func() {
		cancel()
		f.Shutdown()
	})
}

// waitSynced fails t unless every syncer syncs within a minute.
func waitSynced(t testing.TB, syncers ...cache.Syncer) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := cache.WaitForCacheSync(ctx, syncers...); err != nil {
		t.Fatalf("informers did not sync: %v", err)
	}
}
