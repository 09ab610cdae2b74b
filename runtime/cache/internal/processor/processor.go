package processor

import (
	"context"
	"fmt"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/typedinformer/typedinformer/runtime/internal/keys"
)

// Kind says which handler method a Notification calls.
type Kind uint8

// The kinds of Notification.
const (
	Add Kind = iota + 1
	Update
	Delete
)

// Notification is one handler call, stored by value in listener buffers so
// that distributing an event allocates nothing. The store builds them as it
// applies deltas (see store.Indexer.ApplyDeltas).
type Notification[T keys.Object] struct {
	Kind Kind
	// Initial is an add's isInInitialList: the object is one of the first
	// list's, or replayed to a handler that joined late. Only adds set it.
	Initial bool
	// FinalStateUnknown is a delete's finalStateUnknown: the informer
	// missed the delete and Obj is the last state it knew. Only deletes
	// set it.
	FinalStateUnknown bool
	// Resync marks an update whose old and new objects have the same
	// resourceVersion (client-go's "sync" notification: a periodic
	// resync, a relist that found the object unchanged, or any update
	// from a server, such as a fake clientset, that sets no
	// resourceVersion); only listeners whose syncing flag is set receive
	// it.
	Resync bool
	// LeftScope marks a delete of an object that left the informer's
	// scope (see runtime/cache's ScopeExitHandler).
	LeftScope bool
	Old, Obj  T
}

// Handler is what a listener delivers to: runtime/cache's
// ResourceEventHandler.
type Handler[T keys.Object] interface {
	// OnAdd is called for an object new to the cache.
	OnAdd(obj T, isInInitialList bool)
	// OnUpdate is called for a change or a resync of a cached object.
	OnUpdate(oldObj, newObj T)
	// OnDelete is called for an object removed from the cache.
	OnDelete(obj T, finalStateUnknown bool)
}

// ScopeExitHandler is runtime/cache's ScopeExitHandler: a Handler told
// apart when an object leaves the informer's scope.
type ScopeExitHandler[T keys.Object] interface {
	// OnScopeExit is called instead of OnDelete for an object that left
	// the informer's scope.
	OnScopeExit(obj T)
}

// DeliverScopeExit tells h that obj left its informer's scope:
// OnScopeExit when h implements ScopeExitHandler, else OnDelete(obj, true).
func DeliverScopeExit[T keys.Object](h Handler[T], obj T) {
	if s, ok := h.(ScopeExitHandler[T]); ok {
		s.OnScopeExit(obj)
		return
	}
	h.OnDelete(obj, true)
}

// HandlerMetrics is runtime/cache's HandlerMetrics: one handler's backlog
// and latency, safe for concurrent use.
type HandlerMetrics interface {
	// SetBacklog is the number of notifications not yet delivered.
	SetBacklog(n int)
	// ObserveLatency records how long one handler call took.
	ObserveLatency(d time.Duration)
}

// noteChunkSize is how many notifications one chunk of a listener's queue
// holds: 6 KB for a pointer type.
const noteChunkSize = 256

// noteFreeChunks is how many emptied chunks a listener keeps for reuse:
// enough for a steady stream (one being filled while one is delivered), not
// the peak of a burst.
const noteFreeChunks = 2

// noteChunk is one link of a listener's queue of pending notifications.
type noteChunk[T keys.Object] struct {
	next  *noteChunk[T]
	n     int
	notes [noteChunkSize]Notification[T]
}

// Listener delivers notifications to one handler from its own goroutine. The
// distributing side appends to the pending chunks under mu and never waits
// for the handler; the listener goroutine takes the whole chain and runs the
// handler on it, preserving order. A backlog grows a chunk at a time, so a
// burst (an initial list of 100k objects) neither copies what is queued nor
// leaves a trail of outgrown arrays, and the chunks beyond noteFreeChunks
// are dropped once delivered. One goroutine per handler (client-go uses two
// plus a channel hop per event).
type Listener[T keys.Object] struct {
	handler Handler[T]
	name    string

	mu sync.Mutex
	// head..tail are the pending notifications, oldest first (nil: none);
	// queued counts them. free holds emptied chunks for reuse.
	head, tail *noteChunk[T]
	queued     int
	free       *noteChunk[T]
	nFree      int
	wake       chan struct{}
	// removed is set by remove; run checks it before every handler call,
	// so that at most the call already under way runs after remove.
	removed atomic.Bool
	// syncedAtRemoval freezes HasSynced when the listener is removed.
	syncedAtRemoval atomic.Bool

	// initialPending counts initial-list adds handed to this listener and
	// not yet returned from the handler.
	initialPending atomic.Int64
	informerSynced func() bool

	// synced is closed once HasSynced is true (see checkSynced), never
	// after a Remove that froze HasSynced false. syncedMu orders closing it
	// against Remove; syncedName is its DoneChecker name.
	syncedMu     sync.Mutex
	synced       chan struct{}
	syncedClosed bool
	syncedName   string

	// resync bookkeeping, guarded by the processor's mutex. syncing is
	// client-go's per-listener flag: whether resync notifications reach
	// this listener. It starts set (unless the informer skips unchanged
	// updates) and each resync check (Processor.ResyncDue) sets it to
	// whether this listener is due then.
	resyncPeriod time.Duration
	nextResync   time.Time
	syncing      bool

	panics atomic.Int64

	// logger, when not nil, replaces the informer's logger for this
	// handler's panics (HandlerOptions.Logger). Set before run starts.
	logger *klog.Logger

	// obs watches the backlog (nil: not watched); hm is its handler
	// metrics (nil: none). See backlog.go.
	obs *Backlog
	hm  HandlerMetrics
	// running is the size of the batch run is working through (mu).
	running int
}

// ListenerConfig is what a listener is built from besides its handler.
type ListenerConfig struct {
	// Name names the handler in logs and metrics (see HandlerName).
	Name string
	// Resync is the handler's resync period (0: none), first due at
	// Now+Resync.
	Resync time.Duration
	Now    time.Time
	// Synced is the informer's HasSynced. Once it is true, the processor
	// must be told (Processor.InformerSynced).
	Synced func() bool
	// SyncedName names the informer's sync in the listener's SyncedName.
	SyncedName string
	// SkipResyncs starts the listener not syncing: it gets no resync
	// notification before its first due resync. client-go's listeners
	// start syncing.
	SkipResyncs bool
	// Logger, when not nil, replaces the informer's logger for the
	// handler's panics.
	Logger *klog.Logger
	// Backlog, when not nil, watches the listener's backlog; Metrics, when
	// not nil, are the handler's metrics (also fed the backlog by it).
	Backlog *Backlog
	Metrics HandlerMetrics
}

// NewListener returns a listener delivering to h, configured by c.
func NewListener[T keys.Object](h Handler[T], c ListenerConfig) *Listener[T] {
	return &Listener[T]{
		handler:        h,
		name:           c.Name,
		wake:           make(chan struct{}, 1),
		informerSynced: c.Synced,
		synced:         make(chan struct{}),
		syncedName:     c.SyncedName + " + event handler " + c.Name,
		resyncPeriod:   c.Resync,
		nextResync:     c.Now.Add(c.Resync),
		syncing:        !c.SkipResyncs,
		logger:         c.Logger,
		obs:            c.Backlog,
		hm:             c.Metrics,
	}
}

// HasSynced is the registration's sync state: the informer has synced and
// this handler has returned from every initial add. It is true exactly when
// SyncedDone's channel is closed: the first call that finds the listener
// synced closes it, if the event that made it so has not yet.
func (l *Listener[T]) HasSynced() bool {
	select {
	case <-l.synced:
		return true
	default:
	}
	if l.removed.Load() {
		return l.syncedAtRemoval.Load()
	}
	if !l.isSynced() {
		return false
	}
	l.checkSynced()
	select {
	case <-l.synced:
		return true
	default:
		return false // removed meanwhile, unsynced
	}
}

// SyncedDone returns a channel that is closed once HasSynced is true.
func (l *Listener[T]) SyncedDone() <-chan struct{} { return l.synced }

// SyncedName names the listener's sync: the informer's sync name and the
// handler's name.
func (l *Listener[T]) SyncedName() string { return l.syncedName }

func (l *Listener[T]) isSynced() bool {
	return l.informerSynced() && l.initialPending.Load() == 0
}

// checkSynced closes synced if the listener has synced and was not
// removed. It is called whenever one of the two conditions may have turned
// true: the informer synced, or the last pending initial add returned.
func (l *Listener[T]) checkSynced() {
	l.syncedMu.Lock()
	defer l.syncedMu.Unlock()
	if l.syncedClosed || l.removed.Load() || !l.isSynced() {
		return
	}
	l.syncedClosed = true
	close(l.synced)
}

// enqueue appends notifications, skipping resync ones unless withResync; it
// never blocks on the handler.
func (l *Listener[T]) enqueue(ns []Notification[T], withResync bool) {
	if len(ns) == 0 {
		return
	}
	var initial int64
	l.mu.Lock()
	if l.removed.Load() {
		l.mu.Unlock()
		return
	}
	before := l.queued
	for i := range ns {
		if ns[i].Resync && !withResync {
			continue
		}
		if ns[i].Kind == Add && ns[i].Initial {
			initial++
		}
		l.pushLocked(&ns[i])
	}
	l.enqueuedLocked(before, initial)
}

// enqueueInitialAdds appends an initial add (isInInitialList=true) for
// every object of objs, as enqueue would, without building them first.
func (l *Listener[T]) enqueueInitialAdds(objs []T) {
	if len(objs) == 0 {
		return
	}
	l.mu.Lock()
	if l.removed.Load() {
		l.mu.Unlock()
		return
	}
	before := l.queued
	for _, obj := range objs {
		l.pushLocked(&Notification[T]{Kind: Add, Obj: obj, Initial: true})
	}
	l.enqueuedLocked(before, int64(len(objs)))
}

// pushLocked appends a copy of n to the pending chain; the caller holds mu.
func (l *Listener[T]) pushLocked(n *Notification[T]) {
	t := l.tail
	if t == nil || t.n == noteChunkSize {
		c := l.free
		if c != nil {
			l.free, c.next = c.next, nil
			l.nFree--
		} else {
			c = new(noteChunk[T])
		}
		if t == nil {
			l.head = c
		} else {
			t.next = c
		}
		l.tail, t = c, c
	}
	t.notes[t.n] = *n
	t.n++
	l.queued++
}

// enqueuedLocked finishes an enqueue that found before notifications
// queued and added initial initial adds: it counts them, notes the backlog,
// releases mu and wakes the listener if anything was added.
func (l *Listener[T]) enqueuedLocked(before int, initial int64) {
	if initial > 0 {
		l.initialPending.Add(initial)
	}
	added := l.queued > before
	if l.obs != nil && added {
		l.obs.note(l.name, l.queued+l.running, l.initialPending.Load())
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
func (l *Listener[T]) run(ctx context.Context) {
	// epoch anchors the batch timings: the time since a time.Time that
	// carries a monotonic reading is one clock read, about half of a
	// time.Now (which also reads the wall clock).
	epoch := time.Now()
	logger := klog.FromContext(ctx)
	if l.logger != nil {
		logger = *l.logger
	}
	for {
		l.mu.Lock()
		if l.removed.Load() {
			l.mu.Unlock()
			return
		}
		batch, n := l.head, l.queued
		l.head, l.tail, l.queued = nil, nil, 0
		l.running = n
		if l.obs != nil {
			l.obs.note(l.name, n, l.initialPending.Load())
		}
		l.mu.Unlock()

		if batch == nil {
			select {
			case <-ctx.Done():
				return
			case <-l.wake:
			}
			continue
		}
		var start time.Duration
		if l.hm != nil {
			start = time.Since(epoch)
		}
		for c := batch; c != nil; c = c.next {
			for i := range c.n {
				if l.removed.Load() || ctx.Err() != nil {
					return
				}
				l.deliver(logger, &c.notes[i])
			}
		}
		if l.hm != nil {
			l.observeBatch(epoch, start, n)
		}
		l.recycle(batch)
	}
}

// recycle empties the delivered chain batch (dropping its object
// references for the collector) and keeps up to noteFreeChunks of its
// chunks for reuse.
func (l *Listener[T]) recycle(batch *noteChunk[T]) {
	var keep, last *noteChunk[T]
	kept := 0
	for c := batch; c != nil && kept < noteFreeChunks; c = c.next {
		clear(c.notes[:c.n])
		c.n = 0
		if keep == nil {
			keep = c
		}
		last = c
		kept++
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.removed.Load() || keep == nil {
		return
	}
	for kept > 0 && l.nFree+kept > noteFreeChunks {
		// Keep only what fits; the rest goes to the collector.
		keep = keep.next
		kept--
	}
	if kept == 0 {
		return
	}
	last.next = l.free
	l.free = keep
	l.nFree += kept
}

// deliver runs one handler call, recovering and reporting a panic.
func (l *Listener[T]) deliver(logger klog.Logger, n *Notification[T]) {
	defer func() {
		if n.Kind == Add && n.Initial && l.initialPending.Add(-1) == 0 {
			l.checkSynced()
		}
		if r := recover(); r != nil {
			l.panics.Add(1)
			logger.Error(fmt.Errorf("panic: %v", r), "Event handler panicked; the informer goes on",
				"handler", l.name, "stack", string(debug.Stack()))
		}
	}()
	switch n.Kind {
	case Add:
		l.handler.OnAdd(n.Obj, n.Initial)
	case Update:
		l.handler.OnUpdate(n.Old, n.Obj)
	case Delete:
		if n.LeftScope {
			DeliverScopeExit(l.handler, n.Obj)
			return
		}
		l.handler.OnDelete(n.Obj, n.FinalStateUnknown)
	}
}

// Remove stops delivery: pending notifications are dropped, and the
// listener's goroutine makes no further handler call after the one it may be
// running. HasSynced keeps the value it had.
func (l *Listener[T]) Remove() {
	l.mu.Lock()
	l.syncedMu.Lock()
	wasSynced := l.isSynced()
	l.syncedAtRemoval.Store(wasSynced)
	l.removed.Store(true)
	if wasSynced && !l.syncedClosed {
		l.syncedClosed = true
		close(l.synced)
	}
	l.syncedMu.Unlock()
	l.head, l.tail, l.queued = nil, nil, 0
	l.free, l.nFree = nil, 0
	if l.hm != nil {
		l.hm.SetBacklog(0)
	}
	l.mu.Unlock()
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// Processor fans notifications out to listeners. Its mutex orders
// distribution against listener registration, so a handler that joins late
// sees every object exactly once: first as a synthetic add, then live. The
// informer reaches it only through its methods; mu is taken after the
// informer's startMu and before any listener's mu or the store's (see the
// lock order in informer.go).
type Processor[T keys.Object] struct {
	mu        sync.Mutex
	listeners []*Listener[T]
	// Clock is read by ResyncDue; set it before the first call.
	Clock clock.Clock

	// ctx is set while the informer runs; listeners added then start at once.
	ctx context.Context
	wg  sync.WaitGroup
}

// AddListener registers l, starting it if the processor runs. When snapshot
// is not nil, l is first handed an initial add (isInInitialList=true) for
// every object snapshot returns. snapshot runs under the processor's lock,
// and ApplyAndDistribute changes the store only under that lock, so l sees
// each change exactly once: in the snapshot or as a live notification.
func (p *Processor[T]) AddListener(l *Listener[T], snapshot func() []T) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if snapshot != nil {
		l.enqueueInitialAdds(snapshot())
	}
	p.listeners = append(p.listeners, l)
	l.checkSynced() // a running informer's empty cache: synced at once
	if p.ctx != nil {
		ctx := p.ctx
		p.wg.Go(func() { l.run(ctx) })
	}
}

// InformerSynced tells every listener that the informer's HasSynced turned
// true, so that each closes its SyncedDone channel once its handler has
// returned from its initial adds (at once when it has none pending).
func (p *Processor[T]) InformerSynced() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, l := range p.listeners {
		l.checkSynced()
	}
}

// RemoveListener unregisters l; unknown listeners are ignored.
func (p *Processor[T]) RemoveListener(l *Listener[T]) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i, x := range p.listeners {
		if x == l {
			p.listeners = append(p.listeners[:i], p.listeners[i+1:]...)
			l.Remove()
			return
		}
	}
}

// ListenerCount returns the number of registered listeners.
func (p *Processor[T]) ListenerCount() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.listeners)
}

// Start runs every registered listener until ctx ends.
func (p *Processor[T]) Start(ctx context.Context) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.ctx = ctx
	for _, l := range p.listeners {
		p.wg.Go(func() { l.run(ctx) })
	}
}

// Wait returns once every listener goroutine has returned; the context
// given to start must have ended.
func (p *Processor[T]) Wait() { p.wg.Wait() }

// ApplyAndDistribute calls apply under the processor's lock and hands the
// notifications it appended to buf, in order, to every listener before
// releasing the lock; resync notifications go only to listeners whose
// syncing flag is set. apply changes the store: holding the lock across the change and
// its distribution is what keeps a concurrent AddListener from missing the
// change or seeing it twice. It returns buf emptied (references cleared) for
// reuse.
func (p *Processor[T]) ApplyAndDistribute(buf []Notification[T], apply func(buf []Notification[T]) []Notification[T]) []Notification[T] {
	p.mu.Lock()
	defer p.mu.Unlock()
	ns := apply(buf)
	for _, l := range p.listeners {
		l.enqueue(ns, l.syncing)
	}
	clear(ns)
	return ns[:0]
}

// ResyncDue is a resync check: it sets every listener's syncing flag to
// whether that listener is due now (its resync period is not 0 and has
// elapsed), schedules the next resync of those that are, and reports
// whether any is. A flag keeps its value until the next check, so a
// listener with resync period 0 stops receiving resync notifications at
// the first check and never gets them back.
func (p *Processor[T]) ResyncDue() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.Clock.Now()
	due := false
	for _, l := range p.listeners {
		l.syncing = l.resyncPeriod > 0 && !now.Before(l.nextResync)
		if l.syncing {
			l.nextResync = now.Add(l.resyncPeriod)
			due = true
		}
	}
	return due
}

// MinResyncPeriod returns the smallest resync period of the registered
// listeners, or 0 when none resyncs.
func (p *Processor[T]) MinResyncPeriod() time.Duration {
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
