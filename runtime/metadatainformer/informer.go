package metadatainformer

import (
	"context"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/typedinformer/typedinformer/runtime/cache"
	"github.com/typedinformer/typedinformer/runtime/informers"
	"github.com/typedinformer/typedinformer/runtime/listers"
)

// Object is the type every metadata informer holds.
type Object = *metav1.PartialObjectMetadata

// Informer is one resource's metadata informer and its lister.
type Informer interface {
	// Informer returns the shared informer.
	Informer() cache.SharedIndexInformer[Object]
	// Lister returns a lister over the informer's cache; its NotFound
	// errors name the resource.
	Lister() listers.Lister[Object]
}

// NewFilteredInformer returns a new, unshared metadata informer of gvr in
// namespace ("" for all), resyncing handlers every resync, with tweak (may
// be nil) applied to every list and watch. Prefer a Factory, which shares
// informers.
func NewFilteredInformer(client Client, gvr schema.GroupVersionResource, namespace string, resync time.Duration, indexers cache.Indexers[Object], tweak informers.TweakListOptionsFunc) cache.SharedIndexInformer[Object] {
	return cache.NewSharedIndexInformerWithOptions[Object](&cache.ListWatch{
		ListFunc: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			if tweak != nil {
				tweak(&opts)
			}
			return client.List(ctx, gvr, namespace, opts)
		},
		WatchFunc: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			if tweak != nil {
				tweak(&opts)
			}
			return client.Watch(ctx, gvr, namespace, opts)
		},
	}, cache.SharedIndexInformerOptions[Object]{
		Name:         metadataName(gvr, namespace),
		ResyncPeriod: resync,
		Indexers:     indexers,
		Resource:     gvr,
	})
}

func metadataName(gvr schema.GroupVersionResource, namespace string) string {
	n := gvr.GroupResource().String() + " (metadata)"
	if namespace != "" {
		n += " in " + namespace
	}
	return n
}

type informer struct {
	inf cache.SharedIndexInformer[Object]
	gvr schema.GroupVersionResource
}

func (i informer) Informer() cache.SharedIndexInformer[Object] { return i.inf }

func (i informer) Lister() listers.Lister[Object] {
	return listers.New[Object](i.inf.GetIndexer(), i.gvr.GroupResource())
}
