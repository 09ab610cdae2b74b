package cache

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/typedinformer/typedinformer/runtime/cache/internal/deltafifo"
	"github.com/typedinformer/typedinformer/runtime/cache/internal/processor"
	"github.com/typedinformer/typedinformer/runtime/cache/internal/reflector"
	"github.com/typedinformer/typedinformer/runtime/cache/internal/store"
	"github.com/typedinformer/typedinformer/runtime/internal/keys"
	"github.com/typedinformer/typedinformer/runtime/sharding"
)

// Locking. An informer's mutexes are taken in this order, never against it
// (a lock may be skipped, e.g. processBatch takes no startMu):
//
//	startMu → proc.mu → listener.mu → listener.syncedMu → fifo.mu → gate.mu → indexer.mu
//
//   - startMu (sharedIndexInformer) guards the lifecycle (started, stopping,
//     stopped), the reflector pointer and the settings that must be made
//     before Run. AddEventHandler holds it while it registers the listener,
//     so no handler joins a stopping informer; SetMetricsProvider holds it
//     while it counts listeners.
//   - proc.mu (processor) guards the listener list and their resync
//     bookkeeping. A store change and its distribution happen under it
//     (Processor.ApplyAndDistribute), and so does a late handler's snapshot
//     of the store (Processor.AddListener): that is what makes each change
//     reach each handler exactly once.
//   - listener.mu guards one handler's pending notifications. The processor
//     takes it to enqueue and to remove; remove reads the informer's
//     HasSynced under it, which takes fifo.mu.
//   - listener.syncedMu orders closing a listener's sync channel against
//     its removal; closing it reads the informer's HasSynced (fifo.mu).
//     The fifo calls Processor.InformerSynced, which takes proc.mu and
//     each listener's syncedMu, only after releasing fifo.mu.
//   - fifo.mu (deltafifo.Queue, the DeltaFIFO) guards the queue. PopBatch
//     releases it before it calls processBatch. Replace and Resync
//     read the store's keys and objects under it (the queue's KnownObjects),
//     taking indexer.mu.
//   - gate.mu (writeGate, write_gate.go) guards the program's writes the
//     store has not applied. The DeltaFIFO's observer signals the gate
//     with fifo.mu held; the gate reads the store under it. A
//     WriteTracker's mu is a leaf: released before it hands a write to
//     the gates.
//   - indexer.mu (store.Indexer, an RWMutex) is innermost: nothing here
//     takes another of these locks while holding it. The informer writes
//     objects to the store only under proc.mu (store.Indexer.ApplyDeltas) and releases
//     indexer.mu before any listener.mu is taken; index functions run
//     under it.
//
// Leaves, under which none of these is taken: errMu (transform errors),
// the reflector's mu (its status) and a Selection's mu (selection.go),
// which FollowSelection takes under startMu and which a Selection takes
// before its followers' to close their change channels. The informer uses the processor and the
// store only through their methods, never their mutexes or fields.

// minimumResyncPeriod is the smallest handler resync period honoured.
const minimumResyncPeriod = time.Second

// maxPopBatch bounds how many keys the informer applies under one store lock,
// keeping readers' waits short during an initial sync. A relist that
// implies deletions is applied under one lock whatever its size (see
// deltafifo.Queue), as client-go replaces its store.
const maxPopBatch = 256

type sharedIndexInformer[T Object] struct {
	lw      ListerWatcher
	opts    SharedIndexInformerOptions[T]
	name    string
	clock   clock.Clock
	indexer *store.Indexer[T]
	fifo    *deltafifo.Queue[T]
	proc    *processor.Processor[T]
	refl    *reflector.Reflector[T]

	startMu sync.Mutex
	started bool
	stopped bool
	// stopping is set once Run's context ended: no handler may be added
	// (and no listener goroutine started) while Run waits for the others.
	stopping  bool
	transform TransformFunc[T]
	onError   WatchErrorHandler
	// scope limits the informer to shard ranges (nil: everything).
	scope *sharding.Scope
	// sel is the informer's own selection, applied to every list and
	// watch; it may follow another one (FollowSelection). Never nil.
	sel *Selection

	resyncChanged chan struct{}
	// notes is processBatch's reused notification buffer (one popper).
	notes []processor.Notification[T]
	// initErr is a construction error (e.g. a nil ListerWatcher): Run then
	// runs nothing and LastError reports it.
	initErr error

	// transformErrs holds, per key, the error of the transform on the
	// key's latest watch event (that event was dropped), until a later
	// event of the key transforms cleanly or a list succeeds.
	errMu         sync.Mutex
	transformErrs map[keys.Key]error
	nTransformErr atomic.Int64

	// metrics is nil unless a provider was given (informer_metrics.go);
	// logger is Run's context logger, for the backlog warning.
	metrics InformerMetrics
	logger  atomic.Pointer[klog.Logger]
	// idMetrics is nil unless an InformerMetricsProvider was given for a
	// reserved Identifier (informer_metrics_provider.go).
	idMetrics *identityMetrics
	// gate holds the program's writes the store has not applied yet
	// (write_gate.go); it never waits without a WriteTracker.
	gate *writeGate[T]
}

func newSharedIndexInformer[T Object](lw ListerWatcher, opts SharedIndexInformerOptions[T]) SharedIndexInformer[T] {
	opts = opts.withDefaults()
	indexers, indexersErr := mergeAnyIndexers(opts.Indexers, opts.AnyIndexers)
	opts.Indexers = indexers
	s := &sharedIndexInformer[T]{
		lw:            lw,
		opts:          opts,
		name:          opts.Name,
		clock:         opts.Reflector.Clock,
		indexer:       store.New[T](indexFuncs(opts.Indexers)),
		proc:          &processor.Processor[T]{Clock: opts.Reflector.Clock},
		resyncChanged: make(chan struct{}, 1),
		scope:         opts.ShardScope,
	}
	s.gate = &writeGate[T]{s: s}
	sel, selErr := NewSelection(nil, opts.LabelSelector, opts.FieldSelector)
	if selErr != nil {
		sel, _ = NewSelection(nil, "", "")
	}
	s.sel = sel
	s.fifo = deltafifo.New[T](s.indexer)
	s.fifo.SetOnSynced(s.proc.InformerSynced)
	s.fifo.SetObserver(storeObserver[T]{s})
	s.transformErrs = map[keys.Key]error{}
	switch {
	case lw == nil:
		s.initErr = fmt.Errorf("informer %s: nil ListerWatcher", s.name)
	case indexersErr != nil:
		s.initErr = fmt.Errorf("informer %s: %w", s.name, indexersErr)
	case selErr != nil:
		s.initErr = fmt.Errorf("informer %s: %w", s.name, selErr)
	}
	if opts.Metrics != nil {
		s.metrics = opts.Metrics.NewInformerMetrics(s.name)
	}
	if opts.InformerMetricsProvider != nil {
		s.installInformerMetrics()
	}
	return s
}

// storeObserver is the informer's DeltaFIFO observer: a list's or
// bookmark's resourceVersion the store reached becomes the store's
// (LastStoreSyncResourceVersion) and lets reads waiting for writes
// re-check; both it and the queue depth go to the InformerMetricsProvider's
// metrics, if any.
type storeObserver[T Object] struct{ s *sharedIndexInformer[T] }

// Queued implements deltafifo.Observer.
func (o storeObserver[T]) Queued(n int) {
	if m := o.s.idMetrics; m != nil {
		m.Queued(n)
	}
}

// Reached implements deltafifo.Observer.
func (o storeObserver[T]) Reached(rv string) {
	o.s.indexer.Bookmark(rv)
	o.s.gate.advance()
	if m := o.s.idMetrics; m != nil {
		m.Reached(rv)
	}
}

// GenerationReached implements deltafifo.GenerationObserver: the store
// holds the list of the informer's selection of generation gen (see
// informerSink.SelectionStored).
func (o storeObserver[T]) GenerationReached(gen uint64) {
	o.s.gate.selectionApplied(gen)
}

func (s *sharedIndexInformer[T]) Name() string { return s.name }

func (s *sharedIndexInformer[T]) Run(ctx context.Context) {
	s.startMu.Lock()
	if s.started {
		s.startMu.Unlock()
		klog.FromContext(ctx).Info("Informer already started; Run returns at once", "informer", s.name)
		return
	}
	s.started = true
	if s.initErr != nil {
		s.startMu.Unlock()
		klog.FromContext(ctx).Error(s.initErr, "Informer cannot run; it stays unsynced", "informer", s.name)
		<-ctx.Done()
		s.startMu.Lock()
		s.stopped = true
		s.startMu.Unlock()
		return
	}
	ro := s.opts.Reflector // defaulted by newSharedIndexInformer
	cfg := reflector.Config[T]{
		Name: s.name, LW: s.lw, Sink: informerSink[T]{s.fifo, s},
		PageSize: ro.PageSize, MinWatchTimeout: ro.MinWatchTimeout,
		InitialBackoff: ro.InitialBackoff, MaxBackoff: ro.MaxBackoff, BackoffResetAfter: ro.BackoffResetAfter,
		Clock: ro.Clock, DisableWatchList: ro.DisableWatchList, DisableManagedFieldsSharing: ro.DisableManagedFieldsSharing,
		Transform: s.checkedTransform(),
		// A sharded informer lists (paginated) instead of streaming: only
		// a list's ListMeta.ShardInfo says whether the server applied the
		// selector.
		Scope:     s.scope,
		Metrics:   s.metrics,
		Selection: s.sel,
	}
	s.handOverGauges()
	logger := klog.FromContext(ctx)
	s.logger.Store(&logger)
	if h := s.onError; h != nil {
		cfg.OnError = func(ctx context.Context, err error) { h(ctx, err) }
	}
	s.refl = reflector.New(cfg)
	// Subscribed only while running: see FollowSelection.
	s.sel.subscribe()
	s.startMu.Unlock()

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	s.proc.Start(ctx)
	wg.Go(func() { s.refl.Run(ctx) })
	wg.Go(func() { s.resyncLoop(ctx) })
	wg.Go(func() { s.processLoop(ctx) })

	<-ctx.Done()
	s.startMu.Lock()
	s.stopping = true
	s.startMu.Unlock()
	s.fifo.Close()
	wg.Wait()
	s.proc.Wait()
	s.sel.unsubscribe()
	s.detachWriteTracker()
	s.startMu.Lock()
	s.stopped = true
	s.startMu.Unlock()
}

func (s *sharedIndexInformer[T]) processLoop(ctx context.Context) {
	logger := klog.FromContext(ctx)
	process := s.processBatch
	if m := s.idMetrics; m != nil {
		process = func(batch []deltafifo.Delta[T], initial bool) error {
			start := s.clock.Now()
			err := s.processBatch(batch, initial)
			observeBatch(m, batch, s.clock.Since(start))
			return err
		}
	}
	for {
		err := s.fifo.PopBatch(maxPopBatch, process)
		if errors.Is(err, deltafifo.ErrClosed) {
			return
		}
		s.gate.advance()
		if s.metrics != nil {
			s.noteBatch()
		}
		if err != nil {
			logger.Error(err, "Applying deltas failed", "informer", s.name)
		}
	}
}

// processBatch applies popped deltas to the store in order and distributes
// the resulting notifications in the same order, both under the processor's
// lock, so that a handler joining concurrently sees each change exactly once
// (see Processor.ApplyAndDistribute). initial marks the first list's deltas
// (see deltafifo.Queue). Objects an index function fails on are stored anyway (see
// putLocked); the errors are returned for the log and stay reported by
// LastError/SyncError.
func (s *sharedIndexInformer[T]) processBatch(batch []deltafifo.Delta[T], initial bool) error {
	var indexErrs []error
	s.notes = s.proc.ApplyAndDistribute(s.notes, func(notes []processor.Notification[T]) []processor.Notification[T] {
		notes, indexErrs = s.indexer.ApplyDeltas(batch, initial, notes)
		return notes
	})
	if indexErrs != nil {
		return fmt.Errorf("informer %s: objects stored but left out of an index: %w", s.name, errors.Join(indexErrs...))
	}
	return nil
}

// resyncLoop runs a resync check (Processor.ResyncDue) every check period,
// counted from its previous wake (or its start), and queues a resync when
// some handler is due. The check period is the smallest resync period of
// the registered handlers and the informer's default (see checkPeriod). A
// handler added or removed changes the period but does not restart the
// count: handlers coming and going more often than the period must not
// postpone a resync that is due, nor lose a timer that fired meanwhile.
func (s *sharedIndexInformer[T]) resyncLoop(ctx context.Context) {
	last := s.clock.Now()
	var period time.Duration
	for {
		period = s.checkPeriod(period)
		if period == 0 {
			select {
			case <-ctx.Done():
				return
			case <-s.resyncChanged:
				continue
			}
		}
		if wait := last.Add(period).Sub(s.clock.Now()); wait > 0 {
			t := s.clock.NewTimer(wait)
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-s.resyncChanged:
				t.Stop()
				continue // the period may have changed; the count goes on from last
			case <-t.C():
			}
		}
		last = s.clock.Now()
		if s.proc.ResyncDue() {
			if err := s.fifo.Resync(); err != nil {
				klog.FromContext(ctx).Error(err, "Resync failed", "informer", s.name)
			}
		}
	}
}

// checkPeriod returns how often resync checks run: the smallest resync
// period among the registered handlers and the informer's default, or, when
// none is set, prev (the period checks ran at so far; 0 before any). As in
// client-go, whose check period is fixed once the informer runs, checks
// that started never stop: removing the last handler with a resync period
// leaves them running, so a handler added later with period 0 still loses
// its syncing flag at the next check.
func (s *sharedIndexInformer[T]) checkPeriod(prev time.Duration) time.Duration {
	p := s.proc.MinResyncPeriod()
	if d := max(s.opts.ResyncPeriod, minimumResyncPeriod); s.opts.ResyncPeriod > 0 && (p == 0 || d < p) {
		p = d
	}
	if p == 0 {
		return prev
	}
	return p
}

func (s *sharedIndexInformer[T]) HasSynced() bool { return s.fifo.HasSynced() }

func (s *sharedIndexInformer[T]) HasSyncedChecker() DoneChecker {
	return chanChecker{name: s.syncedName(), ch: s.fifo.Synced()}
}

// syncedName names the informer's sync in DoneCheckers: client-go's
// "SharedIndexInformer <Go type>", with the informer's name.
func (s *sharedIndexInformer[T]) syncedName() string {
	var zero T
	return fmt.Sprintf("SharedIndexInformer %T (%s)", zero, s.name)
}

// chanChecker is a DoneChecker over a channel.
type chanChecker struct {
	name string
	ch   <-chan struct{}
}

func (c chanChecker) Name() string          { return c.name }
func (c chanChecker) Done() <-chan struct{} { return c.ch }

// registration is what AddEventHandler returns: a listener, with its sync
// as a DoneChecker.
type registration[T Object] struct {
	*processor.Listener[T]
}

func (r registration[T]) HasSyncedChecker() DoneChecker {
	return chanChecker{name: r.SyncedName(), ch: r.SyncedDone()}
}

func (s *sharedIndexInformer[T]) IsStopped() bool {
	s.startMu.Lock()
	defer s.startMu.Unlock()
	return s.stopped
}

func (s *sharedIndexInformer[T]) LastSyncResourceVersion() string {
	s.startMu.Lock()
	r := s.refl
	s.startMu.Unlock()
	if r == nil {
		return ""
	}
	return r.LastSyncResourceVersion()
}

func (s *sharedIndexInformer[T]) LastError() error {
	if s.initErr != nil {
		return s.initErr
	}
	s.startMu.Lock()
	r := s.refl
	s.startMu.Unlock()
	if r != nil {
		if err := r.LastError(); err != nil {
			return err
		}
	}
	return s.SyncError()
}

func (s *sharedIndexInformer[T]) SyncError() error {
	if s.initErr != nil {
		return s.initErr
	}
	var errs []error
	if err := s.indexer.ObjectErrors(); err != nil {
		errs = append(errs, err)
	}
	if err := s.transformErrors(); err != nil {
		errs = append(errs, err)
	}
	if errs == nil {
		return nil
	}
	return fmt.Errorf("informer %s: %w", s.name, errors.Join(errs...))
}

func (s *sharedIndexInformer[T]) AddEventHandler(handler ResourceEventHandler[T]) (ResourceEventHandlerRegistration, error) {
	return s.AddEventHandlerWithResyncPeriod(handler, s.opts.ResyncPeriod)
}

func (s *sharedIndexInformer[T]) AddEventHandlerWithResyncPeriod(handler ResourceEventHandler[T], resyncPeriod time.Duration) (ResourceEventHandlerRegistration, error) {
	return s.addEventHandler(handler, resyncPeriod, nil)
}

func (s *sharedIndexInformer[T]) AddEventHandlerWithOptions(handler ResourceEventHandler[T], options HandlerOptions) (ResourceEventHandlerRegistration, error) {
	resync := s.opts.ResyncPeriod
	if options.ResyncPeriod != nil {
		resync = *options.ResyncPeriod
	}
	return s.addEventHandler(handler, resync, options.Logger)
}

func (s *sharedIndexInformer[T]) AddTypedEventHandler(handler TypedResourceEventHandler[T], options ...HandlerOptions) (ResourceEventHandlerRegistration, error) {
	return addTypedEventHandler[T](s, handler, options)
}

func (s *sharedIndexInformer[T]) AddTypedIndexers(indexers TypedIndexers[T]) error {
	return s.AddIndexers(indexers)
}

func (s *sharedIndexInformer[T]) GetTypedIndexer() TypedIndexer[T] {
	return NewTypedIndexer(s.GetIndexer())
}

// addEventHandler registers handler with the given resync period and,
// when logger is not nil, a logger of its own.
func (s *sharedIndexInformer[T]) addEventHandler(handler ResourceEventHandler[T], resyncPeriod time.Duration, logger *klog.Logger) (ResourceEventHandlerRegistration, error) {
	if handler == nil {
		return nil, fmt.Errorf("informer %s: nil event handler", s.name)
	}
	if v, ok := handler.(interface{ validate() error }); ok {
		if err := v.validate(); err != nil {
			return nil, fmt.Errorf("informer %s: %w", s.name, err)
		}
	}
	s.startMu.Lock()
	defer s.startMu.Unlock()
	if s.stopped || s.stopping {
		return nil, fmt.Errorf("informer %s: handler not added: %w", s.name, errStopped)
	}
	if resyncPeriod > 0 && resyncPeriod < minimumResyncPeriod {
		resyncPeriod = minimumResyncPeriod
	}
	cfg := processor.ListenerConfig{
		Name: processor.HandlerName(handler), Resync: resyncPeriod, Now: s.clock.Now(), Synced: s.HasSynced,
		SyncedName:  s.syncedName(),
		SkipResyncs: s.opts.SkipUnchangedUpdates, Logger: logger,
	}
	s.observe(&cfg)
	l := processor.NewListener[T](handler, cfg)
	// A handler joining a running informer first gets the cache replayed
	// as initial adds (see Processor.AddListener).
	var snapshot func() []T
	if s.started {
		snapshot = s.indexer.List
	}
	s.proc.AddListener(l, snapshot)
	select {
	case s.resyncChanged <- struct{}{}:
	default:
	}
	return registration[T]{l}, nil
}

func (s *sharedIndexInformer[T]) RemoveEventHandler(reg ResourceEventHandlerRegistration) error {
	r, ok := reg.(registration[T])
	if !ok {
		return fmt.Errorf("informer %s: registration %T was not returned by this informer", s.name, reg)
	}
	s.proc.RemoveListener(r.Listener)
	select {
	case s.resyncChanged <- struct{}{}:
	default:
	}
	return nil
}

func (s *sharedIndexInformer[T]) GetStore() Store[T] { return indexer[T]{s.indexer, s.gate} }

func (s *sharedIndexInformer[T]) GetIndexer() Indexer[T] { return indexer[T]{s.indexer, s.gate} }

// AddIndexers adds index functions to the store; see Indexer.AddIndexers.
func (s *sharedIndexInformer[T]) AddIndexers(indexers Indexers[T]) error {
	if err := s.indexer.AddIndexers(indexFuncs(indexers)); err != nil {
		return fmt.Errorf("informer %s: %w", s.name, err)
	}
	return nil
}

func (s *sharedIndexInformer[T]) SetTransform(f TransformFunc[T]) error {
	return s.beforeRun("SetTransform", func() { s.transform = f })
}

func (s *sharedIndexInformer[T]) SetWatchErrorHandler(handler WatchErrorHandler) error {
	return s.beforeRun("SetWatchErrorHandler", func() { s.onError = handler })
}

// SetShardScope limits the informer to the ranges of scope; see
// SharedIndexInformerOptions.ShardScope. It must be called before Run.
func (s *sharedIndexInformer[T]) SetShardScope(scope *sharding.Scope) error {
	return s.beforeRun("SetShardScope", func() { s.scope = scope })
}

// ShardStatus reports the informer's latest sharded list; see
// ShardedInformer.
func (s *sharedIndexInformer[T]) ShardStatus() (ShardStatus, bool) {
	s.startMu.Lock()
	r := s.refl
	s.startMu.Unlock()
	if r == nil {
		return ShardStatus{}, false
	}
	st, ok := r.ShardStatus()
	return ShardStatus(st), ok
}

// beforeRun applies set under startMu unless the informer was started, in
// which case it reports errAlreadyStarted for the setter what.
func (s *sharedIndexInformer[T]) beforeRun(what string, set func()) error {
	s.startMu.Lock()
	defer s.startMu.Unlock()
	if s.started {
		return fmt.Errorf("informer %s: %s: %w", s.name, what, errAlreadyStarted)
	}
	set()
	return nil
}

// informerSink is what the informer's reflector feeds: the DeltaFIFO, with
// Replace also forgetting transform errors (a successful list transformed
// every listed object, and the others are gone).
type informerSink[T Object] struct {
	*deltafifo.Queue[T]
	s *sharedIndexInformer[T]
}

// Replace forgets the transform errors and queues the list; see
// ReplaceInScope.
func (w informerSink[T]) Replace(list []T, rv string) error {
	return w.ReplaceInScope(list, rv, nil)
}

// ReplaceInScope forgets the transform errors and queues the list, marking
// the objects that left the scope (see deltafifo.Queue.ReplaceInScope). An
// empty store is first told the list's size per namespace (see
// store.Indexer.ReserveFor).
func (w informerSink[T]) ReplaceInScope(list []T, rv string, inScope func(T) bool) error {
	w.s.clearTransformErrors()
	w.s.indexer.ReserveFor(list)
	return w.Queue.ReplaceInScope(list, rv, inScope)
}

// SelectionStored marks in the DeltaFIFO that the list just queued holds
// the informer's selection of generation gen: the write gate learns it
// once the store has applied that list.
func (w informerSink[T]) SelectionStored(gen uint64) {
	w.Queue.MarkGeneration(gen)
}

// Bookmark tells the DeltaFIFO the resourceVersion of a watch bookmark: the
// store reaches it once the deltas queued before it are applied.
func (w informerSink[T]) Bookmark(rv string) {
	w.Queue.Bookmark(rv)
}

// checkedTransform wraps the user's transform so that misuse is an error the
// reflector reports (the list fails, or the watch event is dropped) instead
// of a panic or a nil object in the store: a nil result, a result with
// another key, or a panic. Failures are remembered per key for SyncError.
func (s *sharedIndexInformer[T]) checkedTransform() TransformFunc[T] {
	user := s.transform
	if user == nil {
		return nil
	}
	return func(obj T) (T, error) {
		out, err := callTransform(user, obj)
		if err != nil || s.nTransformErr.Load() > 0 {
			s.noteTransform(keys.Of(obj), err)
		}
		return out, err
	}
}

// callTransform runs a transform, checking its result.
func callTransform[T Object](fn TransformFunc[T], obj T) (out T, err error) {
	var zero T
	defer func() {
		if r := recover(); r != nil {
			out, err = zero, fmt.Errorf("transform panicked on %s: %v", keys.StringOf(obj), r)
		}
	}()
	out, err = fn(obj)
	switch {
	case err != nil:
		return zero, err
	case isNilObject(out):
		return zero, fmt.Errorf("transform returned nil for %s", keys.StringOf(obj))
	case out.GetNamespace() != obj.GetNamespace() || out.GetName() != obj.GetName():
		return zero, fmt.Errorf("transform changed the key of %s to %s", keys.StringOf(obj), keys.StringOf(out))
	}
	return out, nil
}

// isNilObject reports whether obj is a nil pointer (or nil interface).
func isNilObject[T Object](obj T) bool {
	v := reflect.ValueOf(obj)
	switch v.Kind() {
	case reflect.Invalid:
		return true
	case reflect.Pointer, reflect.Interface, reflect.Map, reflect.Slice:
		return v.IsNil()
	}
	return false
}

// noteTransform records (err != nil) or clears the transform error of k.
func (s *sharedIndexInformer[T]) noteTransform(k keys.Key, err error) {
	s.errMu.Lock()
	defer s.errMu.Unlock()
	if err != nil {
		s.transformErrs[k] = fmt.Errorf("transforming %s: %w", k, err)
	} else {
		delete(s.transformErrs, k)
	}
	s.nTransformErr.Store(int64(len(s.transformErrs)))
}

func (s *sharedIndexInformer[T]) clearTransformErrors() {
	if s.nTransformErr.Load() == 0 {
		return
	}
	s.errMu.Lock()
	defer s.errMu.Unlock()
	clear(s.transformErrs)
	s.nTransformErr.Store(0)
}

// transformErrors summarises the recorded transform errors, naming the first
// key in key order; nil when there are none.
func (s *sharedIndexInformer[T]) transformErrors() error {
	if s.nTransformErr.Load() == 0 {
		return nil
	}
	s.errMu.Lock()
	defer s.errMu.Unlock()
	var first string
	var firstErr error
	for k, err := range s.transformErrs {
		if ks := k.String(); firstErr == nil || ks < first {
			first, firstErr = ks, err
		}
	}
	if firstErr == nil {
		return nil
	}
	if n := len(s.transformErrs); n > 1 {
		return fmt.Errorf("%w (and %d more objects whose latest event was dropped)", firstErr, n-1)
	}
	return fmt.Errorf("%w (its latest event was dropped)", firstErr)
}
