package clientgo

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/typedinformer/typedinformer/runtime/cache"
	"github.com/typedinformer/typedinformer/runtime/lean"
)

// NewSharedIndexInformer is client-go's toolscache.NewSharedIndexInformer
// on the typedinformer runtime: an informer of exampleObject's type served
// by lw (with or without context methods), with a default handler resync
// period and index functions. Its signature is controller-runtime's
// cache.Options.NewInformer. When lw also has the runtime's
// cache.ItemLister[cache.Object] method (ListItems, as a ListerWatcher over
// runtime/wire has), every list goes through it and each item is filed as it
// is decoded; List is not called.
//
// The informer keeps client-go v0.37's contract: see the package comment.
// Where it differs from client-go's:
//
//   - An index function that fails does not panic: the object is stored,
//     left out of that index, and the error is reported (log, LastError).
//   - Objects of another type than exampleObject's fail the list they are
//     part of, or are dropped from the watch; both are reported through the
//     watch error handler and the log, and the informer does not sync until
//     a list holds only objects of its type.
//   - A nil exampleObject (or, with WithScheme, one of a type the scheme does
//     not know) gives an informer that never syncs: Run logs why and waits,
//     AddEventHandler fails with that error, LastError returns it.
//   - The toolscache.NamespaceIndex is always maintained.
func NewSharedIndexInformer(lw toolscache.ListerWatcher, exampleObject runtime.Object, defaultEventHandlerResyncPeriod time.Duration, indexers toolscache.Indexers) toolscache.SharedIndexInformer {
	return NewSharedIndexInformerWithOptions(lw, exampleObject, toolscache.SharedIndexInformerOptions{
		ResyncPeriod: defaultEventHandlerResyncPeriod,
		Indexers:     indexers,
	})
}

// NewInformerFunc returns NewSharedIndexInformer with the runtime's options
// opts, for controller-runtime's cache.Options.NewInformer, e.g.
// NewInformerFunc(WithLean(lean.Default())).
func NewInformerFunc(opts ...Option) func(toolscache.ListerWatcher, runtime.Object, time.Duration, toolscache.Indexers) toolscache.SharedIndexInformer {
	return func(lw toolscache.ListerWatcher, exampleObject runtime.Object, resync time.Duration, indexers toolscache.Indexers) toolscache.SharedIndexInformer {
		return NewSharedIndexInformerWithOptions(lw, exampleObject, toolscache.SharedIndexInformerOptions{
			ResyncPeriod: resync,
			Indexers:     indexers,
		}, opts...)
	}
}

// NewSharedIndexInformerWithOptions is client-go's
// toolscache.NewSharedIndexInformerWithOptions on the typedinformer runtime
// (see NewSharedIndexInformer), with the runtime's options opts beside
// client-go's. ObjectDescription names the informer; InformerMetricsProvider
// receives client-go's informer metrics when Identifier is reserved.
func NewSharedIndexInformerWithOptions(lw toolscache.ListerWatcher, exampleObject runtime.Object, o toolscache.SharedIndexInformerOptions, opts ...Option) toolscache.SharedIndexInformer {
	var extra options
	for _, opt := range opts {
		if opt != nil {
			opt(&extra)
		}
	}
	s := &sharedIndexInformer{
		resyncCheckPeriod:    o.ResyncPeriod,
		defaultHandlerResync: o.ResyncPeriod,
		lw:                   lw,
		example:              exampleObject,
		expected:             newExpectedType(exampleObject),
		regs:                 map[*registration]struct{}{},
	}
	s.name = informerName(o.ObjectDescription, extra.name, exampleObject)
	s.initErr = checkExample(lw, exampleObject, extra)

	ropts := cache.SharedIndexInformerOptions[cache.Object]{
		ResyncPeriod:         o.ResyncPeriod,
		Indexers:             typedIndexers(o.Indexers),
		Name:                 s.name,
		Reflector:            extra.reflector,
		Metrics:              extra.metrics,
		ShardScope:           extra.shard,
		SkipUnchangedUpdates: extra.skipUnchangedUpdates,
	}
	if o.InformerMetricsProvider != nil && o.Identifier.Reserved() {
		if n, err := cache.NewInformerName(o.Identifier.Name()); err == nil {
			ropts.Identifier = n.WithResource(o.Identifier.GroupVersionResource())
			ropts.InformerMetricsProvider = metricsProvider{p: o.InformerMetricsProvider, id: o.Identifier}
		}
	}
	var rlw cache.ListerWatcher
	if lw != nil {
		rlw = runtimeListerWatcher(lw)
	}
	s.inner = cache.NewTypedSharedIndexInformer(cache.NewSharedIndexInformerWithOptions[cache.Object](rlw, ropts))
	if extra.lean != (lean.Options{}) {
		s.lean = lean.ObjectTransform(extra.lean)
	}
	if err := s.inner.SetTransform(s.transform); err != nil && s.initErr == nil {
		s.initErr = err
	}
	s.indexer = newIndexer(s.inner.GetIndexer(), s.inner.LastSyncResourceVersion)
	s.indexer.funcs = toolscache.Indexers{}
	for name, f := range o.Indexers {
		s.indexer.funcs[name] = f
	}
	s.synced = &doneChecker{name: fmt.Sprintf("SharedIndexInformer %s", s.name), ch: s.inner.HasSyncedChecker().Done()}
	if s.initErr != nil {
		// Run never runs the runtime's informer: it never syncs.
		s.synced.ch = make(chan struct{})
	}
	return s
}

// informerName is the informer's name in logs, errors and metrics.
func informerName(description, name string, example runtime.Object) string {
	switch {
	case name != "":
		return name
	case description != "":
		return description
	case example == nil:
		return "<nil>"
	}
	if gvk := example.GetObjectKind().GroupVersionKind(); gvk.Kind != "" {
		return gvk.String()
	}
	return fmt.Sprintf("%T", example)
}

// checkExample returns why no informer can serve exampleObject, or nil.
func checkExample(lw toolscache.ListerWatcher, example runtime.Object, extra options) error {
	if lw == nil {
		return errors.New("clientgo: nil ListerWatcher")
	}
	if example == nil {
		return errors.New("clientgo: nil example object: the informer cannot tell which type it serves")
	}
	if _, ok := example.(cache.Object); !ok {
		return fmt.Errorf("clientgo: example object %T has no object metadata", example)
	}
	if extra.scheme == nil {
		return nil
	}
	switch example.(type) {
	case *unstructured.Unstructured, *metav1.PartialObjectMetadata:
		return nil
	}
	if _, _, err := extra.scheme.ObjectKinds(example); err != nil {
		return fmt.Errorf("clientgo: example object %T: %w", example, err)
	}
	return nil
}

// sharedIndexInformer is client-go's SharedIndexInformer over a runtime
// informer of cache.Object.
type sharedIndexInformer struct {
	lw       toolscache.ListerWatcher
	example  runtime.Object
	expected expectedType
	name     string
	// initErr, when set, keeps the informer from ever syncing.
	initErr error

	inner   cache.TypedSharedIndexInformer[cache.Object]
	indexer *indexer
	lean    func(runtime.Object) (runtime.Object, error)

	// userTransform is the SetTransform function, set before Run.
	userTransform atomic.Pointer[toolscache.TransformFunc]

	synced *doneChecker

	// defaultHandlerResync is the resync period of handlers added without
	// one.
	defaultHandlerResync time.Duration

	mu      sync.Mutex
	started bool
	stopped bool
	// regs are the registrations neither removed nor ended by the
	// informer's stop; nil once it has stopped.
	regs map[*registration]struct{}
	// resyncCheckPeriod is client-go's: how often the informer checks which
	// handlers are due for a resync. It starts at the default handler
	// resync period and is lowered, before Run, to any shorter handler
	// period; 0 means the informer never resyncs.
	resyncCheckPeriod time.Duration
	// onError is the SetWatchErrorHandler(WithContext) function.
	onError toolscache.WatchErrorHandlerWithContext
	// refl describes the informer to watch error handlers, which take a
	// client-go *Reflector; it is never run.
	refl *toolscache.Reflector
}

var _ toolscache.SharedIndexInformer = (*sharedIndexInformer)(nil)

// transform is the runtime informer's transform: the type check, then
// SetTransform's function, then the lean transform.
func (s *sharedIndexInformer) transform(obj cache.Object) (cache.Object, error) {
	if err := s.expected.check(obj); err != nil {
		return obj, err
	}
	if f := s.userTransform.Load(); f != nil && *f != nil {
		out, err := (*f)(obj)
		if err != nil {
			return obj, err
		}
		o, ok := out.(cache.Object)
		if !ok {
			return obj, fmt.Errorf("transform returned %T, which has no object metadata", out)
		}
		obj = o
	}
	if s.lean != nil {
		out, err := s.lean(obj)
		if err != nil {
			return obj, err
		}
		o, ok := out.(cache.Object)
		if !ok {
			return obj, fmt.Errorf("lean transform returned %T, which has no object metadata", out)
		}
		obj = o
	}
	return obj, nil
}

// AddEventHandler registers handler with the informer's default resync
// period; see client-go's SharedInformer.
func (s *sharedIndexInformer) AddEventHandler(handler toolscache.ResourceEventHandler) (toolscache.ResourceEventHandlerRegistration, error) {
	return s.AddEventHandlerWithOptions(handler, toolscache.HandlerOptions{})
}

// AddEventHandlerWithResyncPeriod registers handler with a resync period of
// its own (raised to the informer's minimum).
func (s *sharedIndexInformer) AddEventHandlerWithResyncPeriod(handler toolscache.ResourceEventHandler, resyncPeriod time.Duration) (toolscache.ResourceEventHandlerRegistration, error) {
	return s.AddEventHandlerWithOptions(handler, toolscache.HandlerOptions{ResyncPeriod: &resyncPeriod})
}

// AddEventHandlerWithOptions registers handler with options' logger and
// resync period (nil fields take the informer's defaults). A handler added
// after Run first gets OnAdd(obj, true) for every cached object.
func (s *sharedIndexInformer) AddEventHandlerWithOptions(h toolscache.ResourceEventHandler, options toolscache.HandlerOptions) (toolscache.ResourceEventHandlerRegistration, error) {
	if s.initErr != nil {
		return nil, fmt.Errorf("handler not added: %w", s.initErr)
	}
	if h == nil {
		return nil, fmt.Errorf("informer %s: nil event handler", s.name)
	}
	resync := s.handlerResync(options)
	c := newCalls()
	reg, err := s.inner.AddEventHandlerWithOptions(handler{h, c}, cache.HandlerOptions{Logger: options.Logger, ResyncPeriod: &resync})
	if err != nil {
		return nil, err
	}
	return s.register(reg, c), nil
}

// minimumResyncPeriod is client-go's lower bound of a handler's resync
// period.
const minimumResyncPeriod = time.Second

// handlerResync returns the resync period a handler gets, by client-go's
// rules: options' period (else the informer's default) is raised to one
// second; one shorter than the informer's resync check period lowers that
// period before Run and is raised to it after; and an informer whose check
// period is 0 (no default resync period) resyncs no handler.
func (s *sharedIndexInformer) handlerResync(options toolscache.HandlerOptions) time.Duration {
	logger := klog.Background()
	if options.Logger != nil {
		logger = *options.Logger
	}
	resync := s.defaultHandlerResync
	if options.ResyncPeriod != nil {
		resync = *options.ResyncPeriod
	}
	if resync <= 0 {
		return 0
	}
	if resync < minimumResyncPeriod {
		logger.Info("Warning: resync period is too small. Changing it to the minimum allowed value", "resyncPeriod", resync, "minimumResyncPeriod", minimumResyncPeriod)
		resync = minimumResyncPeriod
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if resync < s.resyncCheckPeriod {
		if s.started {
			logger.Info("Warning: resync period is smaller than resync check period and the informer has already started. Changing it to the resync check period", "resyncPeriod", resync, "resyncCheckPeriod", s.resyncCheckPeriod)
			resync = s.resyncCheckPeriod
		} else {
			s.resyncCheckPeriod = resync
		}
	}
	if s.resyncCheckPeriod == 0 {
		logger.Info("Warning: the specified resyncPeriod is invalid because this shared informer doesn't support resyncing", "desired", resync)
		return 0
	}
	return resync
}

// register wraps the runtime's registration of a handler whose calls c
// tracks. If the informer has stopped meanwhile, the handler's calls end at
// once.
func (s *sharedIndexInformer) register(reg cache.ResourceEventHandlerRegistration, c *calls) *registration {
	r := &registration{
		inner:    reg,
		informer: s,
		done:     &doneChecker{name: fmt.Sprintf("event handler of SharedIndexInformer %s", s.name), ch: reg.HasSyncedChecker().Done()},
		calls:    c,
	}
	s.mu.Lock()
	if s.stopped {
		c.end()
	} else {
		s.regs[r] = struct{}{}
	}
	s.mu.Unlock()
	return r
}

// RemoveEventHandler stops delivering to handle. Once it returns, at most
// the one call already under way reaches the handler. Removing a
// registration twice, or one of another informer of this package, does
// nothing; anything else is an error.
func (s *sharedIndexInformer) RemoveEventHandler(handle toolscache.ResourceEventHandlerRegistration) error {
	r, ok := handle.(*registration)
	if !ok {
		return fmt.Errorf("informer %s: registration %T was not returned by an informer of this package", s.name, handle)
	}
	if r.informer != s {
		return nil
	}
	if err := s.inner.RemoveEventHandler(r.inner); err != nil {
		return err
	}
	s.mu.Lock()
	delete(s.regs, r)
	s.mu.Unlock()
	r.calls.end()
	return nil
}

// GetStore returns the informer's cache; it must be treated as read-only.
func (s *sharedIndexInformer) GetStore() toolscache.Store { return s.indexer }

// GetIndexer returns the informer's cache; it must be treated as read-only.
func (s *sharedIndexInformer) GetIndexer() toolscache.Indexer { return s.indexer }

// AddIndexers adds index functions, also after Run, and indexes the cached
// objects with them.
func (s *sharedIndexInformer) AddIndexers(indexers toolscache.Indexers) error {
	s.mu.Lock()
	stopped := s.stopped
	s.mu.Unlock()
	if stopped {
		return errors.New("indexer was not added because it has stopped already")
	}
	return s.indexer.AddIndexers(indexers)
}

// GetController returns client-go's view of the informer's controller:
// its Run methods do nothing (Run the informer instead), the rest reports
// the informer's state.
func (s *sharedIndexInformer) GetController() toolscache.Controller { return controller{s} }

// Run is RunWithContext until stopCh is closed.
func (s *sharedIndexInformer) Run(stopCh <-chan struct{}) {
	s.RunWithContext(wait.ContextForChannel(stopCh))
}

// RunWithContext lists and watches until ctx is done and every goroutine
// the informer started has returned. A second call logs and returns.
func (s *sharedIndexInformer) RunWithContext(ctx context.Context) {
	logger := klog.FromContext(ctx)
	s.mu.Lock()
	if s.started {
		s.mu.Unlock()
		logger.Info("Warning: the sharedIndexInformer has started, run more than once is not allowed", "informer", s.name)
		return
	}
	s.started = true
	onError := s.onError
	s.mu.Unlock()
	// Every goroutine of the runtime informer has returned: no handler
	// call is under way or will start.
	defer func() {
		s.mu.Lock()
		s.stopped = true
		regs := s.regs
		s.regs = nil
		s.mu.Unlock()
		for r := range regs {
			r.calls.end()
		}
	}()
	if s.initErr != nil {
		logger.Error(s.initErr, "Informer cannot run; it stays unsynced", "informer", s.name)
		<-ctx.Done()
		return
	}
	if onError != nil {
		refl := s.reflector()
		if err := s.inner.SetWatchErrorHandler(func(ctx context.Context, err error) { onError(ctx, refl, err) }); err != nil {
			logger.Error(err, "Informer cannot set its watch error handler", "informer", s.name)
		}
	}
	s.inner.Run(ctx)
}

// reflector returns the client-go Reflector handed to watch error handlers.
// It describes the informer (Name, TypeDescription) and is never run.
func (s *sharedIndexInformer) reflector() *toolscache.Reflector {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.refl == nil {
		s.refl = toolscache.NewReflectorWithOptions(s.lw, s.example, toolscache.NewStore(toolscache.MetaNamespaceKeyFunc),
			toolscache.ReflectorOptions{Name: s.name, TypeDescription: s.expected.String()})
	}
	return s.refl
}

// HasStarted reports whether Run has been called, as client-go's informer
// does (a method of its type, not of the SharedIndexInformer interface).
func (s *sharedIndexInformer) HasStarted() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.started
}

// IsStopped reports whether Run has returned.
func (s *sharedIndexInformer) IsStopped() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stopped
}

// HasSynced reports whether the first complete list has been applied to the
// cache and handed to the handlers' queues.
func (s *sharedIndexInformer) HasSynced() bool {
	return s.initErr == nil && s.inner.HasSynced()
}

// HasSyncedChecker returns a DoneChecker whose channel is closed once
// HasSynced is true.
func (s *sharedIndexInformer) HasSyncedChecker() toolscache.DoneChecker { return s.synced }

// LastSyncResourceVersion is the resourceVersion last observed from the
// server (list, watch event or bookmark).
func (s *sharedIndexInformer) LastSyncResourceVersion() string {
	return s.inner.LastSyncResourceVersion()
}

// SetWatchErrorHandler sets the function called with every list or watch
// error. It must be called before Run.
func (s *sharedIndexInformer) SetWatchErrorHandler(handler toolscache.WatchErrorHandler) error {
	var h toolscache.WatchErrorHandlerWithContext
	if handler != nil {
		h = func(_ context.Context, r *toolscache.Reflector, err error) { handler(r, err) }
	}
	return s.SetWatchErrorHandlerWithContext(h)
}

// SetWatchErrorHandlerWithContext sets the function called with every list
// or watch error, with the informer's context. It must be called before
// Run. The *Reflector it gets names the informer; it is not running.
func (s *sharedIndexInformer) SetWatchErrorHandlerWithContext(handler toolscache.WatchErrorHandlerWithContext) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.started {
		return errors.New("informer has already started")
	}
	s.onError = handler
	return nil
}

// SetTransform sets the function applied to every object before it is
// cached and handed to handlers (after the type check, before the lean
// transform). It must be called before Run. A transform that fails fails
// the list the object is part of, or drops the watch event, and is
// reported like a list or watch error.
func (s *sharedIndexInformer) SetTransform(handler toolscache.TransformFunc) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.started {
		return errors.New("informer has already started")
	}
	s.userTransform.Store(&handler)
	return nil
}

// LastError is the most recent list or watch error, else an error about
// cached objects an index function failed on or events the transform
// rejected, else nil (this package's addition, as the runtime's AnyInformer).
func (s *sharedIndexInformer) LastError() error {
	if s.initErr != nil {
		return s.initErr
	}
	return s.inner.LastError()
}

// SyncError reports objects an index function failed on or events the
// transform (or the type check) rejected; see cache.AnyInformer.
func (s *sharedIndexInformer) SyncError() error {
	if s.initErr != nil {
		return s.initErr
	}
	return s.inner.SyncError()
}

// Name names the informer in logs and errors.
func (s *sharedIndexInformer) Name() string { return s.name }

// controller is client-go's Controller view of an informer (its
// GetController): Run does nothing, as client-go's does for a shared
// informer.
type controller struct{ s *sharedIndexInformer }

func (c controller) RunWithContext(context.Context)           {}
func (c controller) Run(<-chan struct{})                      {}
func (c controller) HasSynced() bool                          { return c.s.HasSynced() }
func (c controller) HasSyncedChecker() toolscache.DoneChecker { return c.s.HasSyncedChecker() }
func (c controller) LastSyncResourceVersion() string          { return c.s.LastSyncResourceVersion() }

// metricsProvider hands client-go's informer metrics provider the
// informer's client-go identity.
type metricsProvider struct {
	p  toolscache.InformerMetricsProvider
	id toolscache.InformerNameAndResource
}

func (m metricsProvider) NewQueuedItemMetric(cache.InformerNameAndResource) cache.GaugeMetric {
	return m.p.NewQueuedItemMetric(m.id)
}

func (m metricsProvider) NewProcessingLatencyMetric(cache.InformerNameAndResource) cache.HistogramMetric {
	return m.p.NewProcessingLatencyMetric(m.id)
}

func (m metricsProvider) NewStoreResourceVersionMetric(cache.InformerNameAndResource) cache.GaugeMetric {
	return m.p.NewStoreResourceVersionMetric(m.id)
}
