package informers

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// ResourceFactories holds one Factory per resource, all built with the
// same options, for factories whose resources are chosen at run time
// (runtime/dynamicinformer, runtime/metadatainformer): resources are added
// (With) and removed (Remove) while they run, and are started, synced and
// stopped together. A Factory per resource keeps namespaces, tweaks,
// resync, transforms and lean mode exactly as in generated factories, and
// removing one resource stops exactly its goroutines and watches. It is
// safe for concurrent use.
type ResourceFactories struct {
	owner   string // names the user's factory in errors
	resync  time.Duration
	options []Option

	mu       sync.Mutex
	bases    map[schema.GroupVersionResource]*Factory
	starts   []context.Context // contexts Start was called with, replayed on new bases
	shutdown bool
}

// NewResourceFactories returns an empty set whose factories resync every
// defaultResync and take options; owner names the user's factory in errors
// (e.g. "dynamicinformer").
func NewResourceFactories(owner string, defaultResync time.Duration, options ...Option) *ResourceFactories {
	return &ResourceFactories{owner: owner, resync: defaultResync, options: slices.Clone(options), bases: map[schema.GroupVersionResource]*Factory{}}
}

// With calls use with gvr's Factory, creating it on first use, with the
// set's lock held: use asks the Factory for its informer (InformerFor). A
// Factory created here starts at once with every context Start was given.
// After Shutdown, use gets a Factory that is shut down, whose informers
// report ErrShutdown, and the set does not keep it.
func (r *ResourceFactories) With(gvr schema.GroupVersionResource, use func(base *Factory)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	base, ok := r.bases[gvr]
	if !ok {
		base = NewFactory(r.resync, r.options...)
		if r.shutdown {
			base.Shutdown()
		} else {
			r.bases[gvr] = base
		}
	}
	use(base)
	if !ok && !r.shutdown {
		for _, ctx := range r.starts {
			base.Start(ctx)
		}
	}
}

// Start runs every informer not running yet until ctx ends, Shutdown, or
// its removal; it does not block. Resources added later start at once
// with ctx.
func (r *ResourceFactories) Start(ctx context.Context) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.shutdown {
		return
	}
	r.starts = append(r.starts, ctx)
	for _, b := range r.bases {
		b.Start(ctx)
	}
}

// WaitForCacheSync blocks until every started informer synced or ctx ends.
// The map says per resource whether it synced; the error names each
// resource's informers that did not and why (see
// Factory.WaitForCacheSync). A resource removed while waiting is left out.
func (r *ResourceFactories) WaitForCacheSync(ctx context.Context) (map[schema.GroupVersionResource]bool, error) {
	r.mu.Lock()
	bases := make(map[schema.GroupVersionResource]*Factory, len(r.bases))
	for gvr, b := range r.bases {
		bases[gvr] = b
	}
	r.mu.Unlock()
	out := make(map[schema.GroupVersionResource]bool, len(bases))
	var errs []error
	for gvr, b := range bases {
		synced, err := b.WaitForCacheSync(ctx)
		if r.removed(gvr, b) {
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

// removed reports whether b is no longer gvr's Factory.
func (r *ResourceFactories) removed(gvr schema.GroupVersionResource, b *Factory) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.bases[gvr] != b
}

// Remove stops gvr's informers, waits until their goroutines have returned
// (their watches closed) and forgets gvr, so that a later With creates a
// fresh Factory. Handlers registered on the old informers receive no
// further events; their caches keep what they held. It returns an error
// if the set has no Factory of gvr, and one wrapping ErrShutdown after
// Shutdown.
func (r *ResourceFactories) Remove(gvr schema.GroupVersionResource) error {
	r.mu.Lock()
	if r.shutdown {
		r.mu.Unlock()
		return fmt.Errorf("%s: RemoveInformer(%s): %w", r.owner, gvr, ErrShutdown)
	}
	base, ok := r.bases[gvr]
	delete(r.bases, gvr)
	r.mu.Unlock()
	if !ok {
		return fmt.Errorf("%s: the factory has no informer of %s", r.owner, gvr)
	}
	base.Shutdown()
	return nil
}

// Resources returns the resources the set has a Factory of, started or
// not, in order.
func (r *ResourceFactories) Resources() []schema.GroupVersionResource {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]schema.GroupVersionResource, 0, len(r.bases))
	for gvr := range r.bases {
		out = append(out, gvr)
	}
	slices.SortFunc(out, func(a, b schema.GroupVersionResource) int { return strings.Compare(a.String(), b.String()) })
	return out
}

// Shutdown stops every informer and waits for their goroutines; afterwards
// Start does nothing and With hands out shut-down factories.
func (r *ResourceFactories) Shutdown() {
	r.mu.Lock()
	r.shutdown = true
	bases := make([]*Factory, 0, len(r.bases))
	for _, b := range r.bases {
		bases = append(bases, b)
	}
	r.mu.Unlock()
	for _, b := range bases {
		b.Shutdown()
	}
}
