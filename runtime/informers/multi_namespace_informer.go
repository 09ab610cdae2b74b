package informers

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"

	"github.com/typedinformer/typedinformer/runtime/cache"
	"github.com/typedinformer/typedinformer/runtime/sharding"
)

// multiNamespaceInformer presents one informer per namespace as a single
// SharedIndexInformer: Run runs them all, HasSynced waits for all, handlers
// are registered on each and see events from every namespace, and the cache
// is a read view merging theirs. The set of namespaces may change while it
// runs (setNamespaces, see Factory.SetNamespaces).
type multiNamespaceInformer[T cache.Object] struct {
	indexer *multiNamespaceIndexer[T]
	// newChild builds the informer of a namespace that joins at run time
	// (nil: the set cannot change).
	newChild func(ns string) (cache.SharedIndexInformer[T], error)

	// setMu serializes changes of the namespace set.
	setMu sync.Mutex

	mu        sync.Mutex
	children  []*nsChild[T] // sorted by namespace
	handlers  []*handlerRec[T]
	transform cache.TransformFunc[T]
	onError   cache.WatchErrorHandler
	started   bool
	// stopping is set (under mu) before Run waits for wg: no goroutine
	// joins wg after it.
	stopping bool
	stopped  bool
	runCtx   context.Context
	wg       sync.WaitGroup
	// synced latches HasSynced: a namespace joining later does not turn
	// it false again. done is HasSyncedChecker's latch, closed with it.
	synced atomic.Bool
	done   *latch
}

// nsChild is one namespace's informer and, once running, how to stop it.
type nsChild[T cache.Object] struct {
	ns     string
	inf    cache.SharedIndexInformer[T]
	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}
}

// handlerRec is a handler registered on the multi-namespace informer, kept
// to register it on namespaces that join later.
type handlerRec[T cache.Object] struct {
	serial *serialHandler[T]
	opts   cache.HandlerOptions // nil fields: the informer's defaults
	reg    *multiRegistration
}

var _ cache.SharedIndexInformer[*metav1.PartialObjectMetadata] = (*multiNamespaceInformer[*metav1.PartialObjectMetadata])(nil)

func newMultiNamespaceInformer[T cache.Object](namespaces []string, children []cache.SharedIndexInformer[T]) *multiNamespaceInformer[T] {
	byNS := make(map[string]cache.Indexer[T], len(children))
	indexers := make([]cache.Indexer[T], len(children))
	m := &multiNamespaceInformer[T]{done: newLatch("namespaces " + strings.Join(namespaces, ","))}
	for i, c := range children {
		byNS[namespaces[i]] = c.GetIndexer()
		indexers[i] = c.GetIndexer()
		m.children = append(m.children, &nsChild[T]{ns: namespaces[i], inf: c})
	}
	m.indexer = &multiNamespaceIndexer[T]{namespaces: slices.Clone(namespaces), byNS: byNS, all: indexers}
	return m
}

// snapshot returns the current children.
func (m *multiNamespaceInformer[T]) snapshot() []*nsChild[T] {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.children)
}

// Run runs every namespace's informer and returns when ctx ended and all
// of them, including namespaces added meanwhile, have returned.
func (m *multiNamespaceInformer[T]) Run(ctx context.Context) {
	m.mu.Lock()
	if m.started {
		m.mu.Unlock()
		return
	}
	m.started = true
	m.runCtx = ctx
	for _, c := range m.children {
		m.startLocked(c)
	}
	m.mu.Unlock()

	<-ctx.Done()
	m.mu.Lock()
	m.stopping = true
	m.mu.Unlock()
	m.wg.Wait()

	m.mu.Lock()
	m.stopped = true
	m.mu.Unlock()
}

// startLocked runs c until the informer's context ends or c is removed.
// The caller holds mu and Run has started.
func (m *multiNamespaceInformer[T]) startLocked(c *nsChild[T]) {
	ctx, cancel := context.WithCancel(m.runCtx)
	c.ctx, c.cancel, c.done = ctx, cancel, make(chan struct{})
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		defer close(c.done)
		c.inf.Run(ctx)
	}()
	m.watchLocked(ctx, c.inf.HasSyncedChecker(), m.recheck)
	for _, h := range m.handlers {
		for _, r := range h.reg.regsOf(c.inf) {
			m.watchLocked(ctx, r.HasSyncedChecker(), m.recheck)
		}
	}
}

// watchLocked rechecks the sync latches once checker is done or ctx (a
// namespace's run) ends, so that HasSyncedChecker channels close without
// polling. The caller holds mu; nothing is started once Run is stopping.
func (m *multiNamespaceInformer[T]) watchLocked(ctx context.Context, checker cache.DoneChecker, recheck func()) {
	if m.stopping {
		return
	}
	m.wg.Go(func() {
		select {
		case <-checker.Done():
		case <-ctx.Done():
		}
		recheck()
	})
}

// recheck updates the informer's and every registration's sync latch.
func (m *multiNamespaceInformer[T]) recheck() {
	m.HasSynced()
	m.mu.Lock()
	handlers := slices.Clone(m.handlers)
	m.mu.Unlock()
	for _, h := range handlers {
		h.reg.HasSynced()
	}
}

func (m *multiNamespaceInformer[T]) HasSynced() bool {
	if m.synced.Load() {
		return true
	}
	for _, c := range m.snapshot() {
		if !c.inf.HasSynced() {
			return false
		}
	}
	m.synced.Store(true)
	m.done.close()
	return true
}

// HasSyncedChecker is HasSynced as a DoneChecker: done once every
// namespace's informer has synced.
func (m *multiNamespaceInformer[T]) HasSyncedChecker() cache.DoneChecker { return m.done }

func (m *multiNamespaceInformer[T]) IsStopped() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.stopped
}

// LastSyncResourceVersion joins the namespaces' resourceVersions as
// "ns=rv,…": each namespace has its own list/watch, so there is no single
// version. It is meant for logs, not for comparison.
func (m *multiNamespaceInformer[T]) LastSyncResourceVersion() string {
	children := m.snapshot()
	parts := make([]string, len(children))
	for i, c := range children {
		parts[i] = c.ns + "=" + c.inf.LastSyncResourceVersion()
	}
	return strings.Join(parts, ",")
}

// LastError joins the namespaces' last errors, each naming its namespace.
func (m *multiNamespaceInformer[T]) LastError() error {
	var errs []error
	for _, c := range m.snapshot() {
		if err := c.inf.LastError(); err != nil {
			errs = append(errs, fmt.Errorf("namespace %q: %w", c.ns, err))
		}
	}
	return errors.Join(errs...)
}

// SyncError joins the namespaces' sync errors, each naming its namespace.
func (m *multiNamespaceInformer[T]) SyncError() error {
	var errs []error
	for _, c := range m.snapshot() {
		if err := c.inf.SyncError(); err != nil {
			errs = append(errs, fmt.Errorf("namespace %q: %w", c.ns, err))
		}
	}
	return errors.Join(errs...)
}

func (m *multiNamespaceInformer[T]) Name() string {
	children := m.snapshot()
	if len(children) == 0 {
		return "informer in no namespace"
	}
	ns := make([]string, len(children))
	for i, c := range children {
		ns[i] = c.ns
	}
	return fmt.Sprintf("%s in namespaces %s", children[0].inf.Name(), strings.Join(ns, ","))
}

func (m *multiNamespaceInformer[T]) AddEventHandler(handler cache.ResourceEventHandler[T]) (cache.ResourceEventHandlerRegistration, error) {
	return m.addHandler(handler, cache.HandlerOptions{})
}

func (m *multiNamespaceInformer[T]) AddEventHandlerWithResyncPeriod(handler cache.ResourceEventHandler[T], resyncPeriod time.Duration) (cache.ResourceEventHandlerRegistration, error) {
	return m.addHandler(handler, cache.HandlerOptions{ResyncPeriod: &resyncPeriod})
}

func (m *multiNamespaceInformer[T]) AddEventHandlerWithOptions(handler cache.ResourceEventHandler[T], options cache.HandlerOptions) (cache.ResourceEventHandlerRegistration, error) {
	return m.addHandler(handler, options)
}

// addHandler registers handler on every namespace's informer behind a lock,
// so that the handler still runs one event at a time, as it would on a
// single informer; events of one namespace keep their order. Namespaces
// that join later get it too.
func (m *multiNamespaceInformer[T]) addHandler(handler cache.ResourceEventHandler[T], opts cache.HandlerOptions) (cache.ResourceEventHandlerRegistration, error) {
	if handler == nil {
		return nil, errors.New("informers: nil event handler")
	}
	rec := &handlerRec[T]{serial: &serialHandler[T]{handler: handler}, opts: opts,
		reg: &multiRegistration{owner: m, done: newLatch(handlerNameOf(handler) + " in " + m.done.Name())}}
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, c := range m.children {
		r, err := c.inf.AddEventHandlerWithOptions(rec.serial, opts)
		if err != nil {
			for _, done := range rec.reg.regs {
				_ = done.inf.(cache.SharedIndexInformer[T]).RemoveEventHandler(done.reg)
			}
			return nil, fmt.Errorf("namespace %q: %w", c.ns, err)
		}
		rec.reg.regs = append(rec.reg.regs, childReg{inf: c.inf, reg: r})
	}
	m.handlers = append(m.handlers, rec)
	for i, c := range m.children {
		if c.ctx != nil {
			m.watchLocked(c.ctx, rec.reg.regs[i].reg.HasSyncedChecker(), m.recheck)
		}
	}
	return rec.reg, nil
}

func (m *multiNamespaceInformer[T]) RemoveEventHandler(reg cache.ResourceEventHandlerRegistration) error {
	mr, ok := reg.(*multiRegistration)
	if !ok || mr.owner != m {
		return nil // not ours: like removing an unknown registration
	}
	m.mu.Lock()
	m.handlers = slices.DeleteFunc(m.handlers, func(h *handlerRec[T]) bool { return h.reg == mr })
	m.mu.Unlock()
	var errs []error
	for _, r := range mr.take() {
		if err := r.inf.(cache.SharedIndexInformer[T]).RemoveEventHandler(r.reg); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func (m *multiNamespaceInformer[T]) GetStore() cache.Store[T]     { return m.indexer }
func (m *multiNamespaceInformer[T]) GetIndexer() cache.Indexer[T] { return m.indexer }

func (m *multiNamespaceInformer[T]) AddIndexers(indexers cache.Indexers[T]) error {
	return m.indexer.AddIndexers(indexers)
}

func (m *multiNamespaceInformer[T]) SetTransform(f cache.TransformFunc[T]) error {
	m.mu.Lock()
	m.transform = f
	m.mu.Unlock()
	return m.each(func(c cache.SharedIndexInformer[T]) error { return c.SetTransform(f) })
}

func (m *multiNamespaceInformer[T]) SetWatchErrorHandler(handler cache.WatchErrorHandler) error {
	m.mu.Lock()
	m.onError = handler
	m.mu.Unlock()
	return m.each(func(c cache.SharedIndexInformer[T]) error { return c.SetWatchErrorHandler(handler) })
}

func (m *multiNamespaceInformer[T]) each(fn func(cache.SharedIndexInformer[T]) error) error {
	var errs []error
	for _, c := range m.snapshot() {
		if err := fn(c.inf); err != nil {
			errs = append(errs, fmt.Errorf("namespace %q: %w", c.ns, err))
		}
	}
	return errors.Join(errs...)
}

// SetShardScope sets scope on every namespace's informer; see
// cache.ShardedInformer.
func (m *multiNamespaceInformer[T]) SetShardScope(scope *sharding.Scope) error {
	return m.each(func(c cache.SharedIndexInformer[T]) error {
		si, ok := c.(cache.ShardedInformer)
		if !ok {
			return fmt.Errorf("informer %T cannot be sharded", c)
		}
		return si.SetShardScope(scope)
	})
}

// ShardStatus merges the namespaces' statuses: the first namespace's
// ranges and selector, ServerSide only if every namespace's list was
// sharded by the server, Listed only if every one listed, and the first
// reason for client-side filtering. ok is false until every namespace has
// a status.
func (m *multiNamespaceInformer[T]) ShardStatus() (cache.ShardStatus, bool) {
	var out cache.ShardStatus
	children := m.snapshot()
	for i, c := range children {
		si, ok := c.inf.(cache.ShardedInformer)
		if !ok {
			return cache.ShardStatus{}, false
		}
		st, ok := si.ShardStatus()
		if !ok {
			return cache.ShardStatus{}, false
		}
		if i == 0 {
			out = st
			continue
		}
		out.ServerSide = out.ServerSide && st.ServerSide
		out.Listed = out.Listed && st.Listed
		if out.ClientSide == "" {
			out.ClientSide = st.ClientSide
		}
	}
	return out, len(children) > 0
}

// childReg is a handler's registration on one namespace's informer.
type childReg struct {
	inf any // the namespace's cache.SharedIndexInformer[T]
	reg cache.ResourceEventHandlerRegistration
}

// multiRegistration is a handler's registration on every namespace. Its
// HasSynced latches: a namespace joining later does not turn it false.
// done is HasSyncedChecker's latch, closed with it.
type multiRegistration struct {
	owner  any
	mu     sync.Mutex
	regs   []childReg
	synced atomic.Bool
	done   *latch
}

// HasSyncedChecker is HasSynced as a DoneChecker: done once the handler has
// synced on every namespace.
func (r *multiRegistration) HasSyncedChecker() cache.DoneChecker { return r.done }

// regsOf returns the registrations on the namespace informer inf.
func (r *multiRegistration) regsOf(inf any) []cache.ResourceEventHandlerRegistration {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []cache.ResourceEventHandlerRegistration
	for _, c := range r.regs {
		if c.inf == inf {
			out = append(out, c.reg)
		}
	}
	return out
}

func (r *multiRegistration) HasSynced() bool {
	if r.synced.Load() {
		return true
	}
	r.mu.Lock()
	regs := slices.Clone(r.regs)
	r.mu.Unlock()
	for _, reg := range regs {
		if !reg.reg.HasSynced() {
			return false
		}
	}
	r.synced.Store(true)
	r.done.close()
	return true
}

// take removes and returns every namespace registration.
func (r *multiRegistration) take() []childReg {
	r.mu.Lock()
	defer r.mu.Unlock()
	regs := r.regs
	r.regs = nil
	return regs
}

// serialHandler lets one handler be fed by several informers without ever
// running two of its calls at once.
type serialHandler[T cache.Object] struct {
	mu      sync.Mutex
	handler cache.ResourceEventHandler[T]
}

func (s *serialHandler[T]) OnAdd(obj T, isInInitialList bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.handler.OnAdd(obj, isInInitialList)
}

func (s *serialHandler[T]) OnUpdate(oldObj, newObj T) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.handler.OnUpdate(oldObj, newObj)
}

func (s *serialHandler[T]) OnDelete(obj T, finalStateUnknown bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.handler.OnDelete(obj, finalStateUnknown)
}

// OnScopeExit forwards a scope exit under the lock (see
// cache.ScopeExitHandler): the wrapped handler decides how it is told.
func (s *serialHandler[T]) OnScopeExit(obj T) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cache.DeliverScopeExit(s.handler, obj)
}

// HandlerName names the wrapped handler in logs and metrics.
func (s *serialHandler[T]) HandlerName() string { return handlerNameOf(s.handler) }

// handlerNameOf names h as the cache package does.
func handlerNameOf(h any) string {
	if n, ok := h.(cache.HandlerName); ok {
		if s := n.HandlerName(); s != "" {
			return s
		}
	}
	return fmt.Sprintf("%T", h)
}

// enteringHandler feeds a handler from a namespace that joined while the
// informer ran: that namespace's objects are new to the handler's view, so
// its initial adds arrive with isInInitialList=false.
type enteringHandler[T cache.Object] struct {
	*serialHandler[T]
}

func (e enteringHandler[T]) OnAdd(obj T, _ bool) { e.serialHandler.OnAdd(obj, false) }

// setNamespaces changes the namespace set to want (sorted, deduplicated,
// not empty, without NamespaceAll). A joining namespace gets a new informer
// carrying every registered handler, the transform, the watch error
// handler and the indexers; it starts at once when the informer runs, and
// its objects reach the handlers as OnAdd(obj, false). A leaving
// namespace's informer is stopped and waited for; its objects are then
// removed from the cache and every handler is told of each as an object
// that left the scope (cache.DeliverScopeExit), from this goroutine.
func (m *multiNamespaceInformer[T]) setNamespaces(ctx context.Context, want []string) error {
	if m.newChild == nil {
		return errors.New("this informer's namespace set cannot change")
	}
	m.setMu.Lock()
	defer m.setMu.Unlock()
	current := m.snapshot()
	var errs []error
	for _, ns := range want {
		if slices.ContainsFunc(current, func(c *nsChild[T]) bool { return c.ns == ns }) {
			continue
		}
		if err := m.addNamespace(ns); err != nil {
			errs = append(errs, fmt.Errorf("adding namespace %q: %w", ns, err))
		}
	}
	for _, c := range current {
		if !slices.Contains(want, c.ns) {
			m.removeNamespace(ctx, c)
		}
	}
	return errors.Join(errs...)
}

func (m *multiNamespaceInformer[T]) addNamespace(ns string) error {
	inf, err := m.newChild(ns)
	if err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.transform != nil {
		if err := inf.SetTransform(m.transform); err != nil {
			return err
		}
	}
	if m.onError != nil {
		if err := inf.SetWatchErrorHandler(m.onError); err != nil {
			return err
		}
	}
	// Register every handler, then publish the namespace; on an error
	// nothing of it stays behind.
	regs := make([]cache.ResourceEventHandlerRegistration, len(m.handlers))
	for i, h := range m.handlers {
		var eh cache.ResourceEventHandler[T] = h.serial
		if m.started {
			eh = enteringHandler[T]{h.serial}
		}
		r, err := inf.AddEventHandlerWithOptions(eh, h.opts)
		if err != nil {
			for _, done := range regs[:i] {
				_ = inf.RemoveEventHandler(done)
			}
			return fmt.Errorf("registering handler %s: %w", handlerNameOf(h.serial.handler), err)
		}
		regs[i] = r
	}
	if err := m.indexer.addNamespace(ns, inf.GetIndexer()); err != nil {
		for _, done := range regs {
			_ = inf.RemoveEventHandler(done)
		}
		return err
	}
	for i, h := range m.handlers {
		h.reg.mu.Lock()
		h.reg.regs = append(h.reg.regs, childReg{inf: inf, reg: regs[i]})
		h.reg.mu.Unlock()
	}
	c := &nsChild[T]{ns: ns, inf: inf}
	m.children = append(m.children, c)
	slices.SortFunc(m.children, func(a, b *nsChild[T]) int { return strings.Compare(a.ns, b.ns) })
	if m.started && !m.stopping && !m.stopped && m.runCtx.Err() == nil {
		m.startLocked(c)
	}
	return nil
}

func (m *multiNamespaceInformer[T]) removeNamespace(ctx context.Context, c *nsChild[T]) {
	m.mu.Lock()
	m.children = slices.DeleteFunc(m.children, func(x *nsChild[T]) bool { return x == c })
	handlers := slices.Clone(m.handlers)
	m.mu.Unlock()
	if c.cancel != nil {
		c.cancel()
		<-c.done
	}
	left := c.inf.GetStore().List()
	m.indexer.removeNamespace(c.ns)
	for _, h := range handlers {
		h.reg.mu.Lock()
		h.reg.regs = slices.DeleteFunc(h.reg.regs, func(r childReg) bool { return r.inf == any(c.inf) })
		h.reg.mu.Unlock()
		for _, obj := range left {
			deliverExit(ctx, h.serial, obj)
		}
	}
	m.recheck() // the namespace that was waited for may be gone
}

// deliverExit tells h that obj left the scope, recovering a panic.
func deliverExit[T cache.Object](ctx context.Context, h *serialHandler[T], obj T) {
	defer func() {
		if r := recover(); r != nil {
			klog.FromContext(ctx).Error(fmt.Errorf("panic: %v", r), "Event handler panicked on an object leaving the namespace set; going on",
				"handler", handlerNameOf(h.handler), "stack", string(debug.Stack()))
		}
	}()
	h.OnScopeExit(obj)
}
