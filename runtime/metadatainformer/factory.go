package metadatainformer

import (
	"context"
	"reflect"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/typedinformer/typedinformer/runtime/cache"
	"github.com/typedinformer/typedinformer/runtime/informers"
)

// Factory hands out one shared metadata informer per resource and starts,
// syncs and stops them together; resources can be added (ForResource) and
// removed (RemoveInformer) while it runs. It is safe for concurrent use.
// Each resource's informer lives in its own informers.Factory built with
// the Factory's options (see informers.ResourceFactories), so namespaces
// (one list/watch per namespace behind a merged cache), tweaks, resync,
// transforms and lean mode behave exactly as in generated factories.
type Factory struct {
	client Client
	bases  *informers.ResourceFactories
}

// NewFactory returns a metadata factory over client whose informers resync
// every defaultResync (0: never) and take options as a generated factory
// does.
func NewFactory(client Client, defaultResync time.Duration, options ...informers.Option) *Factory {
	return &Factory{client: client, bases: informers.NewResourceFactories("metadatainformer", defaultResync, options...)}
}

// NewFactoryFromBase returns a metadata factory configured like base, the
// runtime factory of a generated factory (its Base()): the same namespaces
// (as they are now: a later base.SetNamespaces does not reach it),
// list-option tweak and selectors (its Selections, shared: their changes
// reach both; for a view, its parent's and its own), transform (including WithLean), shard scope
// (WithShardScope, shared: its changes reach both) and the resync period
// base gives *metav1.PartialObjectMetadata. Its informers are started,
// synced and stopped through the returned Factory, not through base.
func NewFactoryFromBase(client Client, base *informers.Factory) *Factory {
	nsOpt := informers.WithNamespaces(base.Namespaces()...)
	if ns := base.Namespaces(); len(ns) == 1 {
		nsOpt = informers.WithNamespace(ns[0]) // one plain informer, as base has
	}
	opts := []informers.Option{nsOpt, informers.WithSelection(base.Selections()...)}
	if s := base.ShardScope(); s != nil {
		opts = append(opts, informers.WithShardScope(s))
	}
	if t := base.Transform(); t != nil {
		opts = append(opts, informers.WithTransform(t))
	}
	return NewFactory(client, base.ResyncPeriodFor(reflect.TypeFor[Object]()), opts...)
}

// ForResource returns the shared metadata informer of the namespaced
// resource gvr, creating it on first use (started by the next Start, or at
// once if the factory runs).
func (f *Factory) ForResource(gvr schema.GroupVersionResource) Informer {
	return f.forResource(gvr, true)
}

// ForClusterResource is ForResource for a cluster-scoped resource: one
// list/watch whatever namespaces the factory watches.
func (f *Factory) ForClusterResource(gvr schema.GroupVersionResource) Informer {
	return f.forResource(gvr, false)
}

func (f *Factory) forResource(gvr schema.GroupVersionResource, namespaced bool) Informer {
	var inf cache.SharedIndexInformer[Object]
	f.bases.With(gvr, func(base *informers.Factory) {
		inf = informers.InformerFor[Object](base, namespaced, func(namespace string, resync time.Duration) cache.SharedIndexInformer[Object] {
			return NewFilteredInformer(f.client, gvr, namespace, resync, nil, base.TweakListOptions())
		})
	})
	return informer{inf: inf, gvr: gvr}
}

// Start runs every informer not running yet until ctx ends, Shutdown, or
// its removal; it does not block. Informers requested later start at once
// with ctx.
func (f *Factory) Start(ctx context.Context) { f.bases.Start(ctx) }

// WaitForCacheSync blocks until every started informer synced or ctx ends.
// The map says per resource whether it synced; the error names each
// informer that did not and why (see informers.Factory.WaitForCacheSync).
func (f *Factory) WaitForCacheSync(ctx context.Context) (map[schema.GroupVersionResource]bool, error) {
	return f.bases.WaitForCacheSync(ctx)
}

// RemoveInformer stops gvr's informer, waits until its goroutines have
// returned (its watches closed) and forgets it, so that a later ForResource
// creates a fresh one. It returns an error if the factory has no informer
// of gvr, and one wrapping informers.ErrShutdown after Shutdown.
func (f *Factory) RemoveInformer(gvr schema.GroupVersionResource) error { return f.bases.Remove(gvr) }

// Resources returns the resources the factory has informers of, started or
// not.
func (f *Factory) Resources() []schema.GroupVersionResource { return f.bases.Resources() }

// Shutdown stops every informer and waits for their goroutines; afterwards
// Start does nothing and ForResource hands out informers that never run.
func (f *Factory) Shutdown() { f.bases.Shutdown() }
