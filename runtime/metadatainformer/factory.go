package metadatainformer

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/typedinformer/typedinformer/runtime/cache"
	"github.com/typedinformer/typedinformer/runtime/informers"
)

// Factory hands out one shared metadata informer per resource and starts,
// syncs and stops them together. It is safe for concurrent use. Each
// resource's informer lives in its own informers.Factory built with the
// Factory's options, so namespaces (one list/watch per namespace behind a
// merged cache), tweaks, resync, transforms and lean mode behave exactly as
// in generated factories.
type Factory struct {
	client  Client
	resync  time.Duration
	options []informers.Option

	mu       sync.Mutex
	bases    map[schema.GroupVersionResource]*informers.Factory
	starts   []context.Context // contexts Start was called with, replayed on new bases
	shutdown bool
}

// NewFactory returns a metadata factory over client whose informers resync
// every defaultResync (0: never) and take options as a generated factory
// does.
func NewFactory(client Client, defaultResync time.Duration, options ...informers.Option) *Factory {
	return &Factory{client: client, resync: defaultResync, options: slices.Clone(options), bases: map[schema.GroupVersionResource]*informers.Factory{}}
}

// NewFactoryFromBase returns a metadata factory configured like base, the
// runtime factory of a generated factory (its Base()): the same namespaces
// (as they are now: a later base.SetNamespaces does not reach it),
// list-option tweak, transform (including WithLean), shard scope
// (WithShardScope, shared: its changes reach both) and the resync period
// base gives *metav1.PartialObjectMetadata. Its informers are started,
// synced and stopped through the returned Factory, not through base.
func NewFactoryFromBase(client Client, base *informers.Factory) *Factory {
	nsOpt := informers.WithNamespaces(base.Namespaces()...)
	if ns := base.Namespaces(); len(ns) == 1 {
		nsOpt = informers.WithNamespace(ns[0]) // one plain informer, as base has
	}
	opts := []informers.Option{nsOpt, informers.WithTweakListOptions(base.TweakListOptions())}
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
	f.mu.Lock()
	base, ok := f.bases[gvr]
	if !ok {
		base = informers.NewFactory(f.resync, f.options...)
		f.bases[gvr] = base
	}
	inf := informers.InformerFor[Object](base, namespaced, func(namespace string, resync time.Duration) cache.SharedIndexInformer[Object] {
		return NewFilteredInformer(f.client, gvr, namespace, resync, nil, base.TweakListOptions())
	})
	if !ok && !f.shutdown {
		for _, ctx := range f.starts {
			base.Start(ctx)
		}
	}
	f.mu.Unlock()
	return informer{inf: inf, gvr: gvr}
}

// Start runs every informer not running yet until ctx ends or Shutdown; it
// does not block. Informers requested later start at once with ctx.
func (f *Factory) Start(ctx context.Context) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.shutdown {
		return
	}
	f.starts = append(f.starts, ctx)
	for _, b := range f.bases {
		b.Start(ctx)
	}
}

// WaitForCacheSync blocks until every started informer synced or ctx ends.
// The map says per resource whether it synced; the error names each
// informer that did not and why (see informers.Factory.WaitForCacheSync).
func (f *Factory) WaitForCacheSync(ctx context.Context) (map[schema.GroupVersionResource]bool, error) {
	f.mu.Lock()
	bases := make(map[schema.GroupVersionResource]*informers.Factory, len(f.bases))
	for gvr, b := range f.bases {
		bases[gvr] = b
	}
	f.mu.Unlock()
	out := make(map[schema.GroupVersionResource]bool, len(bases))
	var errs []error
	for gvr, b := range bases {
		synced, err := b.WaitForCacheSync(ctx)
		ok := true
		for _, s := range synced {
			ok = ok && s
		}
		if len(synced) > 0 {
			out[gvr] = ok
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	return out, errors.Join(errs...)
}

// Shutdown stops every informer and waits for their goroutines; afterwards
// Start does nothing.
func (f *Factory) Shutdown() {
	f.mu.Lock()
	f.shutdown = true
	bases := make([]*informers.Factory, 0, len(f.bases))
	for _, b := range f.bases {
		bases = append(bases, b)
	}
	f.mu.Unlock()
	for _, b := range bases {
		b.Shutdown()
	}
}
