package cache

import (
	"context"
	"fmt"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
)

type notificationKind uint8

const (
	notifyAdd notificationKind = iota + 1
	notifyUpdate
	notifyDelete
)

// notification is one handler call, stored by value in listener buffers so
// that distributing an event allocates nothing.
type notification[T Object] struct {
	kind notificationKind
	// initial is an add's isInInitialList: the object is one of the first
	// list's, or replayed to a handler that joined late. Only adds set it.
	initial bool
	// finalStateUnknown is a delete's finalStateUnknown: the informer
	// missed the delete and obj is the last state it knew. Only deletes
	// set it.
	finalStateUnknown bool
	// resync marks an update that re-delivers an unchanged object; only
	// listeners due for resync receive it.
	resync bool
	// leftScope marks a delete of an object that left the informer's
	// scope (see ScopeExitHandler).
	leftScope bool
	old, obj  T
}

// listener delivers notifications to one handler from its own goroutine. The
// distributing side appends to pending under mu and never waits for the
// handler; the listener goroutine swaps pending for an empty buffer and runs
// the handler on the taken batch, preserving order. One goroutine per
// handler (client-go uses two plus a channel hop per event).
type listener[T Object] struct {
	handler ResourceEventHandler[T]
	name    string

	mu      sync.Mutex
	pending []notification[T]
	spare   []notification[T]
	wake    chan struct{}
	// removed is set by remove; run checks it before every handler call,
	// so that at most the call already under way runs after remove.
	removed atomic.Bool
	// syncedAtRemoval freezes HasSynced when the listener is removed.
	syncedAtRemoval atomic.Bool

	// initialPending counts initial-list adds handed to this listener and
	// not yet returned from the handler.
	initialPending atomic.Int64
	informerSynced func() bool

	// resync bookkeeping, guarded by the processor's mutex.
	resyncPeriod time.Duration
	nextResync   time.Time
	resyncing    bool

	panics atomic.Int64

	// obs watches the backlog (nil: not watched); hm is its handler
	// metrics (nil: none). See listener_backlog.go.
	obs *listenerObs
	hm  HandlerMetrics
	// running is the size of the batch run is working through (mu).
	running int
}

func newListener[T Object](h ResourceEventHandler[T], resync time.Duration, now time.Time, synced func() bool) *listener[T] {
	return &listener[T]{
		handler:        h,
		name:           handlerName(h),
		wake:           make(chan struct{}, 1),
		informerSynced: synced,
		resyncPeriod:   resync,
		nextResync:     now.Add(resync),
	}
}

// HasSynced is the registration's sync state: the informer has synced and
// this handler has returned from every initial add.
func (l *listener[T]) HasSynced() bool {
	if l.removed.Load() {
		return l.syncedAtRemoval.Load()
	}
	return l.synced()
}

func (l *listener[T]) synced() bool {
	return l.informerSynced() && l.initialPending.Load() == 0
}

// enqueue appends notifications, skipping resync ones unless withResync; it
// never blocks on the handler.
func (l *listener[T]) enqueue(ns []notification[T], withResync bool) {
	if len(ns) == 0 {
		return
	}
	var initial int64
	l.mu.Lock()
	if l.removed.Load() {
		l.mu.Unlock()
		return
	}
	before := len(l.pending)
	for i := range ns {
		if ns[i].resync && !withResync {
			continue
		}
		if ns[i].kind == notifyAdd && ns[i].initial {
			initial++
		}
		l.pending = append(l.pending, ns[i])
	}
	if initial > 0 {
		l.initialPending.Add(initial)
	}
	added := len(l.pending) > before
	if l.obs != nil && added {
		l.obs.note(l.name, len(l.pending)+l.running, l.initialPending.Load())
	}
	l.mu.Unlock()
	if !added {
		return
	}
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// run delivers until ctx ends or the listener is removed.
func (l *listener[T]) run(ctx context.Context) {
	logger := klog.FromContext(ctx)
	for {
		l.mu.Lock()
		if l.removed.Load() {
			l.mu.Unlock()
			return
		}
		batch := l.pending
		l.pending = l.spare[:0]
		l.spare = nil
		l.running = len(batch)
		if l.obs != nil {
			l.obs.note(l.name, len(batch), l.initialPending.Load())
		}
		l.mu.Unlock()

		if len(batch) == 0 {
			select {
			case <-ctx.Done():
				return
			case <-l.wake:
			}
			l.mu.Lock()
			l.spare = batch
			l.mu.Unlock()
			continue
		}
		var start time.Duration
		if l.hm != nil {
			start = monoNow()
		}
		for i := range batch {
			if l.removed.Load() || ctx.Err() != nil {
				return
			}
			l.deliver(logger, &batch[i])
		}
		if l.hm != nil {
			l.observeBatch(start, len(batch))
		}
		clear(batch)
		l.mu.Lock()
		if l.spare == nil || cap(batch) > cap(l.spare) {
			l.spare = batch[:0]
		}
		l.mu.Unlock()
	}
}

// deliver runs one handler call, recovering and reporting a panic.
func (l *listener[T]) deliver(logger klog.Logger, n *notification[T]) {
	defer func() {
		if n.kind == notifyAdd && n.initial {
			l.initialPending.Add(-1)
		}
		if r := recover(); r != nil {
			l.panics.Add(1)
			logger.Error(fmt.Errorf("panic: %v", r), "Event handler panicked; the informer goes on",
				"handler", l.name, "stack", string(debug.Stack()))
		}
	}()
	switch n.kind {
	case notifyAdd:
		l.handler.OnAdd(n.obj, n.initial)
	case notifyUpdate:
		l.handler.OnUpdate(n.old, n.obj)
	case notifyDelete:
		if n.leftScope {
			DeliverScopeExit(l.handler, n.obj)
			return
		}
		l.handler.OnDelete(n.obj, n.finalStateUnknown)
	}
}

// remove stops delivery: pending notifications are dropped, and the
// listener's goroutine makes no further handler call after the one it may be
// running. HasSynced keeps the value it had.
func (l *listener[T]) remove() {
	l.mu.Lock()
	l.syncedAtRemoval.Store(l.synced())
	l.removed.Store(true)
	l.pending = nil
	if l.hm != nil {
		l.hm.SetBacklog(0)
	}
	l.mu.Unlock()
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// processor fans notifications out to listeners. Its mutex orders
// distribution against listener registration, so a handler that joins late
// sees every object exactly once: first as a synthetic add, then live. The
// informer reaches it only through its methods; mu is taken after the
// informer's startMu and before any listener's mu or the store's (see the
// lock order in informer.go).
type processor[T Object] struct {
	mu        sync.Mutex
	listeners []*listener[T]
	clock     clock.Clock

	// ctx is set while the informer runs; listeners added then start at once.
	ctx context.Context
	wg  sync.WaitGroup
}

// addListener registers l, starting it if the processor runs. When snapshot
// is not nil, l is first handed an initial add (isInInitialList=true) for
// every object snapshot returns. snapshot runs under the processor's lock,
// and applyAndDistribute changes the store only under that lock, so l sees
// each change exactly once: in the snapshot or as a live notification.
func (p *processor[T]) addListener(l *listener[T], snapshot func() []T) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if snapshot != nil {
		items := snapshot()
		replay := make([]notification[T], len(items))
		for i, obj := range items {
			replay[i] = notification[T]{kind: notifyAdd, obj: obj, initial: true}
		}
		l.enqueue(replay, false)
	}
	p.listeners = append(p.listeners, l)
	if p.ctx != nil {
		ctx := p.ctx
		p.wg.Go(func() { l.run(ctx) })
	}
}

// removeListener unregisters l; unknown listeners are ignored.
func (p *processor[T]) removeListener(l *listener[T]) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i, x := range p.listeners {
		if x == l {
			p.listeners = append(p.listeners[:i], p.listeners[i+1:]...)
			l.remove()
			return
		}
	}
}

// listenerCount returns the number of registered listeners.
func (p *processor[T]) listenerCount() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.listeners)
}

// start runs every registered listener until ctx ends.
func (p *processor[T]) start(ctx context.Context) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.ctx = ctx
	for _, l := range p.listeners {
		p.wg.Go(func() { l.run(ctx) })
	}
}

// wait returns once every listener goroutine has returned; the context
// given to start must have ended.
func (p *processor[T]) wait() { p.wg.Wait() }

// applyAndDistribute calls apply under the processor's lock and hands the
// notifications it appended to buf, in order, to every listener before
// releasing the lock; resync notifications go only to listeners being
// resynced. apply changes the store: holding the lock across the change and
// its distribution is what keeps a concurrent addListener from missing the
// change or seeing it twice. It returns buf emptied (references cleared) for
// reuse.
func (p *processor[T]) applyAndDistribute(buf []notification[T], apply func(buf []notification[T]) []notification[T]) []notification[T] {
	p.mu.Lock()
	defer p.mu.Unlock()
	ns := apply(buf)
	for _, l := range p.listeners {
		l.enqueue(ns, l.resyncing)
	}
	clear(ns)
	return ns[:0]
}

// resyncDue marks the listeners whose resync period elapsed and reports
// whether any did.
func (p *processor[T]) resyncDue() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.clock.Now()
	due := false
	for _, l := range p.listeners {
		l.resyncing = false
		if l.resyncPeriod > 0 && !now.Before(l.nextResync) {
			l.resyncing = true
			l.nextResync = now.Add(l.resyncPeriod)
			due = true
		}
	}
	return due
}

// minResyncPeriod returns the smallest resync period of the registered
// listeners, or 0 when none resyncs.
func (p *processor[T]) minResyncPeriod() time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	var m time.Duration
	for _, l := range p.listeners {
		if l.resyncPeriod > 0 && (m == 0 || l.resyncPeriod < m) {
			m = l.resyncPeriod
		}
	}
	return m
}
