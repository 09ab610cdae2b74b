package informers

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/klog/v2"

	"github.com/typedinformer/typedinformer/runtime/cache"
	"github.com/typedinformer/typedinformer/runtime/sharding"
)

// Factory holds at most one informer per Go type and runs them together.
// All methods are safe for concurrent use. Configuration is fixed at
// NewFactory; informers are added by InformerFor and started by Start.
type Factory struct {
	// Set once by NewFactory and read without locking afterwards, except
	// namespaces, which SetNamespaces replaces under mu.
	defaultResync time.Duration
	namespaces    []string
	tweak         TweakListOptionsFunc
	// sel holds tweak and the selectors SetSelectors sets; every informer
	// the factory builds follows it (options_selection.go).
	sel          *cache.Selection
	customResync map[reflect.Type]time.Duration
	transform    func(runtime.Object) (runtime.Object, error)
	lean         func(runtime.Object) (runtime.Object, error) // WithLean; runs after transform
	metrics      cache.DetailedInformerMetricsProvider        // WithInformerMetrics
	shardScope   *sharding.Scope                              // WithShardScope
	informerName *cache.InformerName                          // WithInformerName
	idMetrics    cache.InformerMetricsProvider                // WithInformerMetricsProvider
	writes       *cache.WriteTracker                          // WithWriteTracker
	// identities are the identities the factory gave its informers, by
	// resource, so that an informer built again after RemoveInformer
	// takes over its predecessor's reservation (guarded by mu).
	identities map[schema.GroupVersionResource]cache.InformerNameAndResource

	// namespaceSet: WithNamespaces chose specific namespaces, so namespaced
	// informers are multi-namespace ones whose set SetNamespaces changes.
	namespaceSet bool
	// setNSMu serializes SetNamespaces calls.
	setNSMu sync.Mutex

	// configErr reports options NewFactory had to ignore (nil ones).
	configErr error

	mu           sync.Mutex
	informers    map[reflect.Type]*entry
	shuttingDown bool
	// shutdown is closed by Shutdown; it ends pending WaitForCacheSyncs.
	shutdown chan struct{}
	wg       sync.WaitGroup
}

// ErrShutdown is wrapped by the errors of a Factory used after Shutdown:
// WaitForCacheSync, RemoveInformer, the informers InformerFor returns then,
// and Start's log line.
var ErrShutdown = errors.New("informers: the factory has been shut down")

// entry is one informer of the factory and, once started, how to stop it.
type entry struct {
	informer cache.AnyInformer
	started  bool
	cancel   context.CancelFunc
	done     chan struct{}
}

// NewFactory returns a factory whose informers resync handlers every
// defaultResync (0 disables resync) unless WithCustomResyncConfig says
// otherwise. A nil option is ignored and reported: Start logs it and
// WaitForCacheSync returns it.
func NewFactory(defaultResync time.Duration, options ...Option) *Factory {
	f := &Factory{
		defaultResync: defaultResync,
		namespaces:    []string{metav1.NamespaceAll},
		customResync:  map[reflect.Type]time.Duration{},
		informers:     map[reflect.Type]*entry{},
		shutdown:      make(chan struct{}),
	}
	var errs []error
	for i, o := range options {
		if o == nil {
			errs = append(errs, fmt.Errorf("informers: NewFactory: option %d is nil", i))
			continue
		}
		o(f)
	}
	if f.sel == nil {
		sel, err := cache.NewSelection(cache.TweakListOptionsFunc(f.tweak), "", "")
		if err != nil {
			errs = append(errs, fmt.Errorf("informers: NewFactory: WithTweakListOptions: %w", err))
			sel, _ = cache.NewSelection(nil, "", "")
		}
		f.sel = sel
	}
	f.configErr = errors.Join(errs...)
	return f
}

// TweakListOptions returns the function the factory's informers apply to
// every list and watch: the factory's Selection (the function set with
// WithTweakListOptions or SetTweakListOptions, then the selectors set with
// SetSelectors), read at each call. It is never nil.
func (f *Factory) TweakListOptions() TweakListOptionsFunc { return f.sel.ApplyTo }

// Namespaces returns the namespaces the factory's namespaced informers
// watch, sorted; [""] means every namespace. The caller must not modify the
// result.
func (f *Factory) Namespaces() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.namespaces
}

// ResyncPeriodFor returns the resync period informers of typ get.
func (f *Factory) ResyncPeriodFor(typ reflect.Type) time.Duration {
	if d, ok := f.customResync[typ]; ok {
		return d
	}
	return f.defaultResync
}

// Start runs every informer that is not running yet, each until ctx is
// cancelled, Shutdown is called or the informer is removed. It does not
// block and may be called again after more informers were requested. After
// Shutdown it starts nothing and logs an error wrapping ErrShutdown (and
// WaitForCacheSync returns one).
func (f *Factory) Start(ctx context.Context) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.shuttingDown {
		klog.FromContext(ctx).Error(ErrShutdown, "Factory.Start called after Shutdown; no informer started")
		return
	}
	if f.configErr != nil {
		klog.FromContext(ctx).Error(f.configErr, "Factory misconfigured")
	}
	for _, typ := range f.sortedTypesLocked() {
		e := f.informers[typ]
		if e.started {
			continue
		}
		runCtx, cancel := context.WithCancel(ctx)
		e.started, e.cancel, e.done = true, cancel, make(chan struct{})
		f.wg.Add(1)
		go func() {
			defer f.wg.Done()
			defer close(e.done)
			e.informer.Run(runCtx)
		}()
	}
}

// Shutdown stops every informer the factory started and blocks until all
// their goroutines have returned. Afterwards Start does nothing; informers
// already handed out keep their caches but no longer update them.
func (f *Factory) Shutdown() {
	f.mu.Lock()
	if !f.shuttingDown {
		f.shuttingDown = true
		close(f.shutdown)
	}
	for _, e := range f.informers {
		if e.cancel != nil {
			e.cancel()
		}
	}
	f.mu.Unlock()
	f.wg.Wait()
}

// WaitForCacheSync blocks until every started informer has synced or ctx
// ends. It reports per Go type whether the informer synced, and, if any did
// not, a *cache.NotSyncedError naming each of them with its last list/watch
// error (e.g. Forbidden, or NotFound for a CRD that is not installed); if
// all synced but some report a SyncError, a *cache.SyncedWithErrorsError.
// Informers requested but not yet started are not waited for. It fails at
// once, with an error wrapping ErrShutdown, when the factory is or gets shut
// down, and with the reason when an informer cannot run at all (see
// InformerFor) or NewFactory was given a nil option.
func (f *Factory) WaitForCacheSync(ctx context.Context) (map[reflect.Type]bool, error) {
	f.mu.Lock()
	shutDown := f.shuttingDown
	types := f.sortedTypesLocked()
	started := make([]reflect.Type, 0, len(types))
	syncers := make([]cache.Syncer, 0, len(types))
	var broken []error
	for _, typ := range types {
		e := f.informers[typ]
		if !e.started {
			continue
		}
		started = append(started, typ)
		syncers = append(syncers, e.informer)
		if p, ok := e.informer.(interface{ permanentErr() error }); ok {
			broken = append(broken, p.permanentErr())
		}
	}
	f.mu.Unlock()
	result := func() map[reflect.Type]bool {
		res := make(map[reflect.Type]bool, len(started))
		for i, typ := range started {
			res[typ] = syncers[i].HasSynced()
		}
		return res
	}
	switch {
	case shutDown:
		return result(), fmt.Errorf("informers: WaitForCacheSync: %w", ErrShutdown)
	case f.configErr != nil:
		return result(), f.configErr
	case broken != nil:
		return result(), errors.Join(broken...)
	}

	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	go func() {
		select {
		case <-f.shutdown:
			cancel(ErrShutdown)
		case <-ctx.Done():
		}
	}()
	err := cache.WaitForSync(ctx, syncers...)
	return result(), err
}

// StartWithContext is Start, under the name client-go v0.37's factories
// give the context-taking variant.
func (f *Factory) StartWithContext(ctx context.Context) { f.Start(ctx) }

// WaitForCacheSyncWithContext is WaitForCacheSync with client-go v0.37's
// result type: Synced per Go type, and Err when some informer did not sync
// (the *cache.NotSyncedError that says why) or the wait could not happen.
// Informers that synced but report a SyncError count as synced here, as
// they would in client-go; WaitForCacheSync reports them.
func (f *Factory) WaitForCacheSyncWithContext(ctx context.Context) cache.SyncResult {
	synced, err := f.WaitForCacheSync(ctx)
	var withErrors *cache.SyncedWithErrorsError
	if errors.As(err, &withErrors) {
		err = nil
	}
	return cache.SyncResult{Err: err, Synced: synced}
}

// RemoveInformer stops the informer for obj's Go type, waits until its
// goroutines have returned and forgets it, so that a later InformerFor
// creates a fresh one. Handlers registered on the old informer receive no
// further events. It returns an error if the factory has no such informer.
//
// After Shutdown it returns an error wrapping ErrShutdown.
func (f *Factory) RemoveInformer(obj runtime.Object) error {
	typ := reflect.TypeOf(obj)
	f.mu.Lock()
	if f.shuttingDown {
		f.mu.Unlock()
		return fmt.Errorf("informers: RemoveInformer(%v): %w", typ, ErrShutdown)
	}
	e, ok := f.informers[typ]
	if ok {
		delete(f.informers, typ)
	}
	f.mu.Unlock()
	if !ok {
		return fmt.Errorf("informers: factory has no informer for %v", typ)
	}
	if e.started {
		e.cancel()
		<-e.done
	}
	return nil
}

// Informers returns the factory's informers by Go type; started or not.
func (f *Factory) Informers() map[reflect.Type]cache.AnyInformer {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make(map[reflect.Type]cache.AnyInformer, len(f.informers))
	for typ, e := range f.informers {
		out[typ] = e.informer
	}
	return out
}

// sortedTypesLocked orders informers by type name so that starts and error
// messages are deterministic.
func (f *Factory) sortedTypesLocked() []reflect.Type {
	types := make([]reflect.Type, 0, len(f.informers))
	for typ := range f.informers {
		types = append(types, typ)
	}
	slices.SortFunc(types, func(a, b reflect.Type) int {
		switch an, bn := a.String(), b.String(); {
		case an < bn:
			return -1
		case an > bn:
			return 1
		}
		return 0
	})
	return types
}
