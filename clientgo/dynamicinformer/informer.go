package dynamicinformer

import (
	"context"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamiclister"
	"k8s.io/client-go/informers"
	toolscache "k8s.io/client-go/tools/cache"

	"github.com/typedinformer/typedinformer/clientgo"
	"github.com/typedinformer/typedinformer/runtime/wire"
)

// NewFilteredDynamicInformer is client-go's constructor of the same name on
// the typedinformer runtime: an informer of gvr in namespace ("" all) whose
// Informer() is a clientgo SharedIndexInformer of
// *unstructured.Unstructured and whose Lister() is client-go's dynamic
// lister over its cache. For a *dynamic.DynamicClient, lists and watches
// go through the client's REST client and are decoded by runtime/wire,
// each item's JSON straight into its map; any other client (a fake) is
// listed and watched through its Resource(gvr).Namespace(namespace).
func NewFilteredDynamicInformer(client dynamic.Interface, gvr schema.GroupVersionResource, namespace string, resyncPeriod time.Duration, indexers toolscache.Indexers, tweakListOptions TweakListOptionsFunc, opts ...clientgo.Option) informers.GenericInformer {
	return &dynamicInformer{
		gvr: gvr,
		informer: clientgo.NewSharedIndexInformerWithOptions(listerWatcher(client, gvr, namespace, tweakListOptions), &unstructured.Unstructured{},
			toolscache.SharedIndexInformerOptions{ResyncPeriod: resyncPeriod, Indexers: indexers, ObjectDescription: gvr.String()}, opts...),
	}
}

// listerWatcher returns what the informer of gvr in namespace lists and
// watches through.
func listerWatcher(client dynamic.Interface, gvr schema.GroupVersionResource, namespace string, tweak TweakListOptionsFunc) toolscache.ListerWatcher {
	if rc := restClientOf(client); rc != nil {
		lw, err := wire.NewUnstructuredListWatch(restFetch(rc, gvr, namespace), gvr.GroupVersion().WithKind(gvr.Resource),
			wire.Options{Resource: gvr.String()})
		if err == nil {
			return wireListerWatcher{lw: lw, tweak: tweak}
		}
		err = fmt.Errorf("dynamicinformer: %s: %w", gvr, err)
		return &toolscache.ListWatch{
			ListWithContextFunc:  func(context.Context, metav1.ListOptions) (runtime.Object, error) { return nil, err },
			WatchFuncWithContext: func(context.Context, metav1.ListOptions) (watch.Interface, error) { return nil, err },
		}
	}
	apply := func(opts *metav1.ListOptions) {
		if tweak != nil {
			tweak(opts)
		}
	}
	return toolscache.ToListWatcherWithWatchListSemantics(&toolscache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			apply(&opts)
			return client.Resource(gvr).Namespace(namespace).List(ctx, opts)
		},
		WatchFuncWithContext: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			apply(&opts)
			return client.Resource(gvr).Namespace(namespace).Watch(ctx, opts)
		},
	}, client)
}

type dynamicInformer struct {
	informer toolscache.SharedIndexInformer
	gvr      schema.GroupVersionResource
}

var _ informers.GenericInformer = (*dynamicInformer)(nil)

func (d *dynamicInformer) Informer() toolscache.SharedIndexInformer { return d.informer }

func (d *dynamicInformer) Lister() toolscache.GenericLister {
	return dynamiclister.NewRuntimeObjectShim(dynamiclister.New(d.informer.GetIndexer(), d.gvr))
}
