package dynamicinformer

import (
	"context"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/typedinformer/typedinformer/runtime/cache"
	"github.com/typedinformer/typedinformer/runtime/informers"
	"github.com/typedinformer/typedinformer/runtime/listers"
	"github.com/typedinformer/typedinformer/runtime/wire"
)

// Object is the type every dynamic informer holds.
type Object = *unstructured.Unstructured

// GenericInformer is one resource's dynamic informer and its lister, what
// ForResource returns (client-go's dynamic factory returns its
// informers.GenericInformer, whose lister needs a cast per object; this
// one's is typed).
type GenericInformer interface {
	// Informer returns the shared informer.
	Informer() cache.SharedIndexInformer[Object]
	// Lister returns a lister over the informer's cache, with the shape
	// of client-go's dynamiclister.Lister (List, Get, Namespace); its
	// NotFound errors name the resource.
	Lister() listers.Lister[Object]
}

// NewFilteredDynamicInformer returns a new, unshared informer of gvr in
// namespace ("" for all), resyncing handlers every resync, with indexers
// beyond the built-in namespace index and tweak (may be nil) applied to
// every list and watch. A WireSource client is read through its
// UnstructuredListWatch; any other Client through List and Watch. Prefer a
// Factory, which shares informers.
func NewFilteredDynamicInformer(client Client, gvr schema.GroupVersionResource, namespace string, resync time.Duration, indexers cache.Indexers[Object], tweak informers.TweakListOptionsFunc) cache.SharedIndexInformer[Object] {
	return cache.NewSharedIndexInformerWithOptions[Object](newListerWatcher(client, gvr, namespace, tweak), cache.SharedIndexInformerOptions[Object]{
		Name:         informerName(gvr, namespace),
		ResyncPeriod: resync,
		Indexers:     indexers,
		Resource:     gvr,
	})
}

func informerName(gvr schema.GroupVersionResource, namespace string) string {
	n := resourceName(gvr) + " (dynamic)"
	if namespace != "" {
		n += " in " + namespace
	}
	return n
}

// newListerWatcher returns how an informer of gvr in namespace lists and
// watches through client.
func newListerWatcher(client Client, gvr schema.GroupVersionResource, namespace string, tweak informers.TweakListOptionsFunc) cache.ListerWatcher {
	if tweak == nil {
		tweak = func(*metav1.ListOptions) {}
	}
	if ws, ok := client.(WireSource); ok {
		lw, err := ws.UnstructuredListWatch(gvr, namespace)
		if err != nil {
			return failingListWatch{err}
		}
		return wireListWatch{lw: lw, tweak: tweak}
	}
	if client == nil {
		return failingListWatch{errNilClient}
	}
	return cache.ToListWatcherWithWatchListSemantics(&cache.ListWatch{
		ListFunc: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			tweak(&opts)
			return client.List(ctx, gvr, namespace, opts)
		},
		WatchFunc: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			tweak(&opts)
			return client.Watch(ctx, gvr, namespace, opts)
		},
	}, client)
}

// wireListWatch is a wire ListWatch with the factory's tweak; the reflector
// lists through ListItems.
type wireListWatch struct {
	lw    *wire.UnstructuredListWatch
	tweak informers.TweakListOptionsFunc
}

var _ cache.ItemLister[Object] = wireListWatch{}

func (w wireListWatch) ListItems(ctx context.Context, opts metav1.ListOptions, yield func(Object) error) (*metav1.ListMeta, error) {
	w.tweak(&opts)
	return w.lw.ListItems(ctx, opts, yield)
}

func (w wireListWatch) List(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	w.tweak(&opts)
	return w.lw.List(ctx, opts)
}

func (w wireListWatch) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	w.tweak(&opts)
	return w.lw.Watch(ctx, opts)
}

// failingListWatch fails every call with err: the informer never syncs and
// reports err as its last error.
type failingListWatch struct{ err error }

func (f failingListWatch) List(context.Context, metav1.ListOptions) (runtime.Object, error) {
	return nil, f.err
}

func (f failingListWatch) Watch(context.Context, metav1.ListOptions) (watch.Interface, error) {
	return nil, f.err
}

type genericInformer struct {
	inf cache.SharedIndexInformer[Object]
	gvr schema.GroupVersionResource
}

func (i genericInformer) Informer() cache.SharedIndexInformer[Object] { return i.inf }

func (i genericInformer) Lister() listers.Lister[Object] {
	return listers.New[Object](i.inf.GetIndexer(), i.gvr.GroupResource())
}
