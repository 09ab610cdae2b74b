package dynamicinformer

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
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
// the Factory's options, so namespaces, tweaks, resync, transforms and lean
// mode behave as in generated factories, and removing one resource stops
// exactly its goroutines and watches.
type Factory struct {
	client  Client
	resync  time.Duration
	options []informers.Option

	mu       sync.Mutex
	bases    map[schema.GroupVersionResource]*informers.Factory
	starts   []context.Context // contexts Start was called with, replayed on new bases
	shutdown bool
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
	return &Factory{client: client, resync: defaultResync, options: slices.Clone(options), bases: map[schema.GroupVersionResource]*informers.Factory{}}
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
	f.mu.Lock()
	defer f.mu.Unlock()
	base, ok := f.bases[gvr]
	if !ok {
		base = informers.NewFactory(f.resync, f.options...)
		if !f.shutdown {
			f.bases[gvr] = base
		} else {
			base.Shutdown() // its informer reports ErrShutdown
		}
	}
	inf := informers.InformerFor[Object](base, namespaced, func(namespace string, resync time.Duration) cache.SharedIndexInformer[Object] {
		return NewFilteredDynamicInformer(f.client, gvr, namespace, resync, nil, base.TweakListOptions())
	})
	if !ok && !f.shutdown {
		for _, ctx := range f.starts {
			base.Start(ctx)
		}
	}
	return genericInformer{inf: inf, gvr: gvr}
}

// Start runs every informer not running yet until ctx ends, Shutdown, or
// its removal; it does not block. Informers requested later start at once
// with ctx.
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
// informer that did not and why, e.g. a resource the server does not serve
// (see informers.Factory.WaitForCacheSync). A resource removed while
// waiting is left out.
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
		if f.removed(gvr, b) {
			continue
		}
		ok := true
		for _, s := range synced {
			ok = ok && s
		}
		if len(synced) > 0 {
			out[gvr] = ok
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", gvr, err))
		}
	}
	return out, errors.Join(errs...)
}

// removed reports whether b is no longer gvr's base: its informer was
// removed meanwhile.
func (f *Factory) removed(gvr schema.GroupVersionResource, b *informers.Factory) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.bases[gvr] != b
}

// RemoveInformer stops gvr's informer, waits until its goroutines have
// returned (its watches closed) and forgets it, so that a later ForResource
// creates a fresh one. Handlers registered on the old informer receive no
// further events; its cache keeps what it held. It returns an error if the
// factory has no informer of gvr, and one wrapping informers.ErrShutdown
// after Shutdown.
func (f *Factory) RemoveInformer(gvr schema.GroupVersionResource) error {
	f.mu.Lock()
	if f.shutdown {
		f.mu.Unlock()
		return fmt.Errorf("dynamicinformer: RemoveInformer(%s): %w", gvr, informers.ErrShutdown)
	}
	base, ok := f.bases[gvr]
	delete(f.bases, gvr)
	f.mu.Unlock()
	if !ok {
		return fmt.Errorf("dynamicinformer: the factory has no informer of %s", gvr)
	}
	base.Shutdown()
	return nil
}

// Resources returns the resources the factory has informers of, started or
// not.
func (f *Factory) Resources() []schema.GroupVersionResource {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]schema.GroupVersionResource, 0, len(f.bases))
	for gvr := range f.bases {
		out = append(out, gvr)
	}
	slices.SortFunc(out, func(a, b schema.GroupVersionResource) int {
		switch as, bs := a.String(), b.String(); {
		case as < bs:
			return -1
		case as > bs:
			return 1
		}
		return 0
	})
	return out
}

// Shutdown stops every informer and waits for their goroutines; afterwards
// Start does nothing and ForResource hands out informers that never run.
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
