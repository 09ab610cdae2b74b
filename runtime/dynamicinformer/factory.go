package dynamicinformer

import (
	"context"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/typedinformer/typedinformer/runtime/cache"
	"github.com/typedinformer/typedinformer/runtime/informers"
)

// TweakListOptionsFunc edits the ListOptions of every list and watch, as
// client-go's dynamicinformer.TweakListOptionsFunc does.
type TweakListOptionsFunc = informers.TweakListOptionsFunc

// Factory hands out one shared dynamic informer per resource and starts,
// syncs and stops them together; resources can be added (ForResource) and
// removed (RemoveInformer) while it runs. It is safe for concurrent use.
// Each resource's informer lives in its own informers.Factory built with
// the Factory's options (see informers.ResourceFactories), so namespaces,
// tweaks, resync, transforms and lean mode behave as in generated
// factories, and removing one resource stops exactly its goroutines and
// watches.
type Factory struct {
	client Client
	bases  *informers.ResourceFactories
}

// NewDynamicSharedInformerFactory returns a factory over client for every
// namespace whose informers resync every defaultResync (0: never), as
// client-go's constructor of the same name.
func NewDynamicSharedInformerFactory(client Client, defaultResync time.Duration) *Factory {
	return NewFilteredDynamicSharedInformerFactory(client, defaultResync, metav1.NamespaceAll, nil)
}

// NewFilteredDynamicSharedInformerFactory returns a factory over client
// whose informers watch namespace ("" every namespace) with tweak (may be
// nil) applied to every list and watch, as client-go's constructor of the
// same name. Listers see only what the informers were given.
func NewFilteredDynamicSharedInformerFactory(client Client, defaultResync time.Duration, namespace string, tweak TweakListOptionsFunc) *Factory {
	return NewFactory(client, defaultResync, informers.WithNamespace(namespace), informers.WithTweakListOptions(tweak))
}

// NewFactory returns a factory over client whose informers resync every
// defaultResync (0: never) and take the options of runtime/informers
// (namespaces, tweak, transform, lean, metrics...) as a generated factory
// does.
func NewFactory(client Client, defaultResync time.Duration, options ...informers.Option) *Factory {
	return &Factory{client: client, bases: informers.NewResourceFactories("dynamicinformer", defaultResync, options...)}
}

// ForResource returns the shared informer of the namespaced resource gvr,
// creating it on first use (started by the next Start, or at once if the
// factory runs). For a cluster-scoped resource in a factory limited to
// namespaces, use ForClusterResource.
func (f *Factory) ForResource(gvr schema.GroupVersionResource) GenericInformer {
	return f.forResource(gvr, true)
}

// ForClusterResource is ForResource for a cluster-scoped resource: one
// list/watch whatever namespaces the factory watches.
func (f *Factory) ForClusterResource(gvr schema.GroupVersionResource) GenericInformer {
	return f.forResource(gvr, false)
}

func (f *Factory) forResource(gvr schema.GroupVersionResource, namespaced bool) GenericInformer {
	var inf cache.SharedIndexInformer[Object]
	f.bases.With(gvr, func(base *informers.Factory) {
		inf = informers.InformerFor[Object](base, namespaced, func(namespace string, resync time.Duration) cache.SharedIndexInformer[Object] {
			return NewFilteredDynamicInformer(f.client, gvr, namespace, resync, nil, base.TweakListOptions())
		})
	})
	return genericInformer{inf: inf, gvr: gvr}
}

// Start runs every informer not running yet until ctx ends, Shutdown, or
// its removal; it does not block. Informers requested later start at once
// with ctx.
func (f *Factory) Start(ctx context.Context) { f.bases.Start(ctx) }

// WaitForCacheSync blocks until every started informer synced or ctx ends.
// The map says per resource whether it synced; the error names each
// informer that did not and why, e.g. a resource the server does not serve
// (see informers.Factory.WaitForCacheSync). A resource removed while
// waiting is left out.
func (f *Factory) WaitForCacheSync(ctx context.Context) (map[schema.GroupVersionResource]bool, error) {
	return f.bases.WaitForCacheSync(ctx)
}

// RemoveInformer stops gvr's informer, waits until its goroutines have
// returned (its watches closed) and forgets it, so that a later ForResource
// creates a fresh one. Handlers registered on the old informer receive no
// further events; its cache keeps what it held. It returns an error if the
// factory has no informer of gvr, and one wrapping informers.ErrShutdown
// after Shutdown.
func (f *Factory) RemoveInformer(gvr schema.GroupVersionResource) error { return f.bases.Remove(gvr) }

// Resources returns the resources the factory has informers of, started or
// not.
func (f *Factory) Resources() []schema.GroupVersionResource { return f.bases.Resources() }

// Shutdown stops every informer and waits for their goroutines; afterwards
// Start does nothing and ForResource hands out informers that never run.
func (f *Factory) Shutdown() { f.bases.Shutdown() }
