package informers

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/klog/v2"

	"github.com/typedinformer/typedinformer/runtime/cache"
	"github.com/typedinformer/typedinformer/runtime/sharding"
)

// Factory holds at most one informer per Go type and selection and runs
// them together. All methods are safe for concurrent use. Configuration is
// fixed at NewFactory; informers are added by InformerFor and started by
// Start. A view of a factory (ForSelection, WithSelectionOf) hands out the
// informers of another selection, which the factory it was taken of holds
// and runs (see view.go).
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

	// root is nil for a factory built by NewFactory; for a view, the
	// factory that holds its informers. A view's mu, informers,
	// shuttingDown, shutdown, wg, namespaces and identities are unused:
	// holder() returns the factory whose are.
	root *Factory
	// sels are the Selections the factory's informers follow and apply,
	// the root's first; sel is the last, and keys the factory's informers
	// in the holder (entryKey).
	sels []*cache.Selection
	// shared are the Selections given with WithSelection.
	shared []*cache.Selection
	// closed is set by a view's Shutdown (guarded by the holder's mu).
	closed bool
	// viewErr is why WithSelectionOf could not make a view: InformerFor
	// then returns informers reporting it.
	viewErr error
	// viewOf is the WithSelectionOf option's request, used by NewFactory.
	viewOf *viewRequest

	mu           sync.Mutex
	informers    map[entryKey]*entry
	nextSeq      uint64
	shuttingDown bool
	// shutdown is closed by Shutdown; it ends pending WaitForCacheSyncs.
	shutdown chan struct{}
	wg       sync.WaitGroup
}

// ErrShutdown is wrapped by the errors of a Factory used after Shutdown:
// WaitForCacheSync, RemoveInformer, the informers InformerFor returns then,
// and Start's log line.
var ErrShutdown = errors.New("informers: the factory has been shut down")

// entryKey identifies an informer in its holder: its Go type and the
// Selection of the factory or view it was requested through.
type entryKey struct {
	typ reflect.Type
	sel *cache.Selection
}

// entry is one informer of the factory and, once started, how to stop it.
type entry struct {
	informer cache.AnyInformer
	// seq orders entries of one type by creation.
	seq     uint64
	started bool
	cancel  context.CancelFunc
	done    chan struct{}
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
		informers:     map[entryKey]*entry{},
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
	switch {
	case len(f.shared) > 0:
		f.sels, f.sel = f.shared, f.shared[len(f.shared)-1]
	default:
		sel, err := cache.NewSelection(cache.TweakListOptionsFunc(f.tweak), "", "")
		if err != nil {
			errs = append(errs, fmt.Errorf("informers: NewFactory: WithTweakListOptions: %w", err))
			sel, _ = cache.NewSelection(nil, "", "")
		}
		f.sel, f.sels = sel, []*cache.Selection{sel}
	}
	f.shared = nil
	if f.viewOf != nil {
		if err := f.viewOf.parent.initView(f, f.viewOf.label, f.viewOf.field); err != nil {
			err = fmt.Errorf("informers: NewFactory: WithSelectionOf: %w", err)
			f.viewErr = err
			errs = append(errs, err)
		}
	}
	f.configErr = errors.Join(errs...)
	return f
}

// holder returns the factory that holds f's informers: f itself, or the
// factory a view was taken of.
func (f *Factory) holder() *Factory {
	if f.root != nil {
		return f.root
	}
	return f
}

// TweakListOptions returns the function the factory's informers apply to
// every list and watch: the factory's Selection (the function set with
// WithTweakListOptions or SetTweakListOptions, then the selectors set with
// SetSelectors), read at each call. It is never nil.
//
// For a view, it applies the Selection of the factory the view was taken of
// and then the view's own.
func (f *Factory) TweakListOptions() TweakListOptionsFunc {
	if len(f.sels) <= 1 {
		return f.sel.ApplyTo
	}
	sels := f.sels
	return func(opts *metav1.ListOptions) {
		for _, s := range sels {
			s.ApplyTo(opts)
		}
	}
}

// Namespaces returns the namespaces the factory's namespaced informers
// watch, sorted; [""] means every namespace. The caller must not modify the
// result.
func (f *Factory) Namespaces() []string {
	r := f.holder()
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.namespaces
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
// WaitForCacheSync returns one). On a view it starts every informer of the
// factory the view was taken of, its views' included.
func (f *Factory) Start(ctx context.Context) {
	if f.viewErr != nil {
		klog.FromContext(ctx).Error(f.viewErr, "Factory misconfigured")
	}
	if f.root != nil {
		f.root.Start(ctx)
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.shuttingDown {
		klog.FromContext(ctx).Error(ErrShutdown, "Factory.Start called after Shutdown; no informer started")
		return
	}
	if f.configErr != nil {
		klog.FromContext(ctx).Error(f.configErr, "Factory misconfigured")
	}
	for _, k := range f.sortedKeysLocked(nil) {
		e := f.informers[k]
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
// already handed out keep their caches but no longer update them. The
// informers of the factory's views are stopped too. On a view, Shutdown
// stops and forgets only the view's informers, and the view hands out no
// more (see ForSelection).
func (f *Factory) Shutdown() {
	if f.root != nil {
		f.shutdownView()
		return
	}
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
//
// A type with informers of several selections (views, see ForSelection)
// counts as synced when all of them have. On a view it waits for every
// informer of the factory the view was taken of, as Start starts them.
func (f *Factory) WaitForCacheSync(ctx context.Context) (map[reflect.Type]bool, error) {
	r := f.holder()
	r.mu.Lock()
	shutDown := r.shuttingDown || f.closed
	keys := r.sortedKeysLocked(nil)
	started := make([]reflect.Type, 0, len(keys))
	syncers := make([]cache.Syncer, 0, len(keys))
	var broken []error
	for _, k := range keys {
		e := r.informers[k]
		if !e.started {
			continue
		}
		started = append(started, k.typ)
		syncers = append(syncers, e.informer)
		if p, ok := e.informer.(interface{ permanentErr() error }); ok {
			broken = append(broken, p.permanentErr())
		}
	}
	r.mu.Unlock()
	result := func() map[reflect.Type]bool {
		res := make(map[reflect.Type]bool, len(started))
		for i, typ := range started {
			synced, seen := res[typ]
			res[typ] = syncers[i].HasSynced() && (synced || !seen)
		}
		return res
	}
	switch {
	case shutDown:
		return result(), fmt.Errorf("informers: WaitForCacheSync: %w", ErrShutdown)
	case f.configErr != nil:
		return result(), f.configErr
	case r.configErr != nil:
		return result(), r.configErr
	case broken != nil:
		return result(), errors.Join(broken...)
	}

	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	go func() {
		select {
		case <-r.shutdown:
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
//
// It removes the informer of the factory's own selection only: on a view,
// the view's informer of that type; the informers of the same type of the
// factory's other views stay.
func (f *Factory) RemoveInformer(obj runtime.Object) error {
	typ := reflect.TypeOf(obj)
	r := f.holder()
	r.mu.Lock()
	if r.shuttingDown || f.closed {
		r.mu.Unlock()
		return fmt.Errorf("informers: RemoveInformer(%v): %w", typ, ErrShutdown)
	}
	k := entryKey{typ: typ, sel: f.sel}
	e, ok := r.informers[k]
	if ok {
		delete(r.informers, k)
	}
	r.mu.Unlock()
	if !ok {
		return fmt.Errorf("informers: factory has no informer for %v%s", typ, f.selectionSuffix())
	}
	if e.started {
		e.cancel()
		<-e.done
	}
	return nil
}

// Informers returns the factory's informers by Go type; started or not.
// Those of its views are not included; a view returns its own.
func (f *Factory) Informers() map[reflect.Type]cache.AnyInformer {
	r := f.holder()
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[reflect.Type]cache.AnyInformer{}
	for k, e := range r.informers {
		if k.sel == f.sel {
			out[k.typ] = e.informer
		}
	}
	return out
}

// sortedKeysLocked returns the keys of the informers (of type typ only,
// when typ is not nil) ordered by type name and then by creation, so that
// starts and error messages are deterministic. The caller holds f.mu.
func (f *Factory) sortedKeysLocked(typ reflect.Type) []entryKey {
	ks := make([]entryKey, 0, len(f.informers))
	for k := range f.informers {
		if typ == nil || k.typ == typ {
			ks = append(ks, k)
		}
	}
	slices.SortFunc(ks, func(a, b entryKey) int {
		if c := strings.Compare(a.typ.String(), b.typ.String()); c != 0 {
			return c
		}
		return cmp.Compare(f.informers[a].seq, f.informers[b].seq)
	})
	return ks
}
