package reflector

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/typedinformer/typedinformer/runtime/internal/keys"
	"github.com/typedinformer/typedinformer/runtime/sharding"
)

// initialEventsEndAnnotation marks the bookmark that ends the initial events
// of a watch-list stream.
const initialEventsEndAnnotation = "k8s.io/initial-events-end"

// ErrVeryShortWatch is wrapped by the error reported when a watch closed
// within a second without delivering anything (runtime/cache exports it).
var ErrVeryShortWatch = errors.New("very short watch: the watch closed within a second without delivering any event")

// ErrWrongType is wrapped by the error reported for an object not of the
// reflector's type, which is dropped (runtime/cache exports it).
var ErrWrongType = errors.New("watch event of the wrong type")

// Sink is where a reflector puts what it observes: the informer's
// DeltaFIFO. Its methods are called from the reflector's goroutine only.
type Sink[T keys.Object] interface {
	// Add queues a watch's Added event.
	Add(obj T) error
	// Update queues a watch's Modified event.
	Update(obj T) error
	// Delete queues a watch's Deleted event.
	Delete(obj T) error
	// Replace replaces the content with a complete list (or the initial
	// events of a watch-list stream) at resourceVersion.
	Replace(list []T, resourceVersion string) error
	// ReplaceInScope replaces the content with list, where objects for
	// which inScope (nil: all) is false are out of the reflector's shard
	// and may not be in list.
	ReplaceInScope(list []T, resourceVersion string, inScope func(T) bool) error
}

// BookmarkSink is a Sink that wants the resourceVersion of each watch
// bookmark.
type BookmarkSink interface {
	// Bookmark records the resourceVersion of a watch bookmark.
	Bookmark(resourceVersion string)
}

// ListerWatcher is what a reflector lists and watches; runtime/cache's
// ListerWatcher satisfies it.
type ListerWatcher interface {
	// List returns one page of the list opts asks for.
	List(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error)
	// Watch starts a watch.
	Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error)
}

// Metrics is what a reflector reports; runtime/cache's InformerMetrics
// satisfies it. Its methods are called from the reflector's goroutine.
type Metrics interface {
	// IncLists counts a list that stored its result.
	IncLists()
	// IncWatches counts a watch the server accepted.
	IncWatches()
	// IncRelistsAfterExpired counts a list made because the held
	// resourceVersion expired.
	IncRelistsAfterExpired()
	// IncWatchRestarts counts a watch that ended and is restarted.
	IncWatchRestarts(reason string)
	// IncErrors counts a reported list or watch error.
	IncErrors(reason string)
	// ObserveEvent records a list's or watch event's resourceVersion.
	ObserveEvent(at time.Time, resourceVersion string)
}

// Config is what a reflector is built from. Numbers and durations must be
// set (runtime/cache applies ReflectorOptions' defaults before building
// one); the hooks may be nil.
type Config[T keys.Object] struct {
	// Name names the informer in errors and logs.
	Name string
	LW   ListerWatcher
	Sink Sink[T]
	// PageSize is the Limit of each page of a consistent list;
	// MinWatchTimeout the lower bound of the randomised watch timeout;
	// InitialBackoff, MaxBackoff and BackoffResetAfter shape the delays
	// between failures. Clock is read for all of them.
	PageSize                                      int64
	MinWatchTimeout                               time.Duration
	InitialBackoff, MaxBackoff, BackoffResetAfter time.Duration
	Clock                                         clock.Clock
	// DisableWatchList: never try watch-list streaming (see
	// watchListWanted for the other reasons not to).
	DisableWatchList bool
	// DisableManagedFieldsSharing keeps every object's managedFields
	// documents its own (see fieldsCache).
	DisableManagedFieldsSharing bool
	// Transform, when not nil, turns each received object into the one
	// stored; an error fails that list or drops that watch event.
	Transform func(T) (T, error)
	// OnError, when not nil, is told every reported error instead of the
	// log.
	OnError func(ctx context.Context, err error)
	// Metrics, when not nil, receives the list/watch metrics.
	Metrics Metrics
	// Scope, when not nil, limits the reflector to its ranges; a sharded
	// reflector always lists instead of streaming (only a list response
	// carries the ListMeta.ShardInfo it checks).
	Scope *sharding.Scope
	// Selection, when not nil, edits the options of every list and watch
	// call, and its change ends the cycle: the reflector relists with the
	// new value (see selection.go).
	Selection Selection
}

// Reflector lists and then watches a ListerWatcher, feeding a Sink. Run's
// goroutine owns it; the state others read (LastSyncResourceVersion,
// LastError, ShardStatus) is guarded by mu, which is never held while
// calling out (the sink, the ListerWatcher, hooks or metrics).
type Reflector[T keys.Object] struct {
	name      string
	lw        ListerWatcher
	sink      Sink[T]
	opts      Config[T]
	clock     clock.Clock
	transform func(T) (T, error)
	onError   func(ctx context.Context, err error)
	// metrics is nil unless the informer has metrics (see metrics.go).
	metrics Metrics
	// events is the coarse clock eventTime reads: nil unless the
	// reflector runs with metrics on the real clock, when Run starts it and
	// stops it (waiting for its goroutine) before returning. Only the
	// reflector's goroutine reads and writes the field.
	events *coarseClock
	// fields shares equal managedFields documents among the objects this
	// reflector stores (see prepare); only its goroutine uses it.
	fields fieldsCache
	// items is where the list type's Items field is (see extractList);
	// only the reflector's goroutine uses it.
	items itemsField
	// noWatchList: the client cannot stream (see Config.DisableWatchList).
	// Only the reflector's goroutine reads and writes it after
	// construction.
	noWatchList bool
	// scope, when not nil, limits the reflector to its ranges (see
	// shard.go); shard is the current cycle's snapshot and shardLogged
	// whether the client-side filtering was logged. Only the reflector's
	// goroutine uses shard and shardLogged.
	scope       *sharding.Scope
	shard       *shardCycle
	shardLogged bool
	// shardFields is where the shard fields are, looked up by New when
	// the reflector has a scope; read-only afterwards.
	shardFields shardFields
	// selection, when not nil, is applied to every call; sel is the
	// current cycle's snapshot and storedGen the generation of the latest
	// list stored. Only the reflector's goroutine uses sel and storedGen.
	selection Selection
	sel       *selCycle
	storedGen uint64

	mu            sync.Mutex
	shardStatus   ShardStatus
	lastSyncRV    string
	rvUnavailable bool // the last RV expired: relist with "" (consistent)
	lastErr       error
	listedGen     uint64
	listedSel     bool
}

// New returns a reflector configured by c.
func New[T keys.Object](c Config[T]) *Reflector[T] {
	r := &Reflector[T]{
		name: c.Name, lw: c.LW, sink: c.Sink, opts: c, clock: c.Clock,
		transform: c.Transform, onError: c.OnError, metrics: c.Metrics, scope: c.Scope, selection: c.Selection,
		noWatchList: c.Scope != nil || !watchListWanted(c.DisableWatchList, c.LW),
	}
	if c.Scope != nil {
		r.shardFields = lookupShardFields()
	}
	return r
}

// LastSyncResourceVersion is the resourceVersion the store was last synced
// to (a list's, or the latest watch event's); "" before the first list.
func (r *Reflector[T]) LastSyncResourceVersion() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.lastSyncRV
}

func (r *Reflector[T]) setLastSyncRV(rv string) {
	r.mu.Lock()
	r.lastSyncRV = rv
	r.mu.Unlock()
}

// LastError is the last list or watch error, nil once a list or watch
// succeeded after it.
func (r *Reflector[T]) LastError() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.lastErr
}

func (r *Reflector[T]) clearError() {
	r.mu.Lock()
	r.lastErr = nil
	r.mu.Unlock()
}

// report records err as the last error and tells the error hook.
func (r *Reflector[T]) report(ctx context.Context, err error) {
	r.mu.Lock()
	r.lastErr = err
	r.mu.Unlock()
	r.noteError(err)
	if r.onError != nil {
		r.onError(ctx, err)
	} else {
		klog.FromContext(ctx).Error(err, "List/watch failed", "informer", r.name)
	}
}

// Run lists and watches until ctx ends, backing off between failures. It
// returns once every goroutine it started has ended.
func (r *Reflector[T]) Run(ctx context.Context) {
	if _, onRealClock := r.clock.(clock.RealClock); onRealClock && r.metrics != nil {
		c, stop := startCoarseClock()
		defer stop()
		r.events = c
		defer func() { r.events = nil }()
	}
	b := &backoff{initial: r.opts.InitialBackoff, max: r.opts.MaxBackoff, resetAfter: r.opts.BackoffResetAfter, clock: r.clock}
	for ctx.Err() == nil {
		err := r.listAndWatch(ctx)
		if ctx.Err() != nil {
			return
		}
		if errors.Is(err, errScopeChanged) || errors.Is(err, errSelectionChanged) {
			continue
		}
		if err != nil {
			r.report(ctx, err)
		}
		if !r.waitBackoff(ctx, b) {
			return
		}
	}
}

// relistResourceVersion is the RV the next list asks for: "0" (any recent
// state, served from the watch cache) the first time, the last synced RV
// afterwards, and "" (a consistent read) once that RV has expired.
func (r *Reflector[T]) relistResourceVersion() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.rvUnavailable {
		return ""
	}
	if r.lastSyncRV == "" {
		return "0"
	}
	return r.lastSyncRV
}

func isExpired(err error) bool {
	if apierrors.IsResourceExpired(err) || apierrors.IsGone(err) {
		return true
	}
	msg := err.Error()
	return strings.Contains(msg, "too old resource version") || strings.Contains(msg, "Too large resource version")
}

// listAndWatch performs one list (or watch-list) and then watches until an
// error needs a relist. It returns nil only when ctx ended.
func (r *Reflector[T]) listAndWatch(ctx context.Context) error {
	r.beginSelection()
	if r.scope != nil {
		r.beginShardCycle()
		if len(r.shard.ranges) == 0 {
			return r.emptyShard(ctx)
		}
	}
	var w, fake watch.Interface
	listFirst := true
	if !r.noWatchList {
		wl, fallback, err := r.watchList(ctx)
		switch {
		case err == nil && wl == nil:
			return nil // ctx ended
		case err == nil:
			w, listFirst = wl, false
		case !fallback:
			return err
		default:
			klog.FromContext(ctx).V(2).Info("Watch-list streaming failed; listing instead", "informer", r.name, "err", err)
			if errors.Is(err, errNoStreaming) {
				fake = wl // see watchAfterFakeStream
			}
		}
	}
	if listFirst {
		if err := r.list(ctx); err != nil {
			if fake != nil {
				fake.Stop()
			}
			return err
		}
	}
	if fake != nil {
		var err error
		if w, err = r.watchAfterFakeStream(ctx, fake); err != nil {
			return err
		}
	}
	return r.watchLoop(ctx, w)
}

// watchAfterFakeStream opens the watch that follows the list when the
// watch-list request was answered by a fake watcher, fake. It watches from
// the list's resourceVersion, as client-go does with a fake clientset: the
// object tracker replays every stored object into a watch opened with
// sendInitialEvents, and consuming fake would hand each listed object to the
// handlers a second time (as an update with an unchanged resourceVersion).
// A ListerWatcher that hands out one watcher whatever the options, as tests
// do, returns fake again, which is then consumed as the watch.
func (r *Reflector[T]) watchAfterFakeStream(ctx context.Context, fake watch.Interface) (watch.Interface, error) {
	w, err := r.lw.Watch(ctx, r.callOpts(metav1.ListOptions{
		ResourceVersion:     r.LastSyncResourceVersion(),
		AllowWatchBookmarks: true,
		TimeoutSeconds:      r.watchTimeout(),
	}))
	if err != nil || w != fake {
		fake.Stop()
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, nil // watchLoop returns at once
		}
		return nil, fmt.Errorf("watch %s: %w", r.name, err)
	}
	r.noteWatch()
	return w, nil
}

// watchTimeout is a random server-side timeout in [min, 2*min), so that
// watches of many clients do not expire together.
func (r *Reflector[T]) watchTimeout() *int64 {
	d := r.opts.MinWatchTimeout + time.Duration(rand.Int64N(int64(r.opts.MinWatchTimeout)))
	s := int64(d / time.Second)
	if s < 1 {
		s = 1
	}
	return &s
}

// watchList starts a watch that streams the initial state, collects it up to
// the initial-events-end bookmark, replaces the sink's content with it and
// returns the still-open watch. fallback is true when the server refused
// the request or the stream failed before the initial events ended, and a
// list should be used instead this time. On errNoStreaming the returned
// watch is a fake watcher to consume after the list.
func (r *Reflector[T]) watchList(ctx context.Context) (watch.Interface, bool, error) {
	r.mu.Lock()
	rv := r.lastSyncRV
	if r.rvUnavailable {
		rv = ""
	}
	r.mu.Unlock()
	send := true
	opts := metav1.ListOptions{
		ResourceVersion:      rv,
		ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan,
		SendInitialEvents:    &send,
		AllowWatchBookmarks:  true,
		TimeoutSeconds:       r.watchTimeout(),
	}
	start := r.clock.Now()
	w, err := r.lw.Watch(ctx, r.callOpts(opts))
	if err != nil {
		if ctx.Err() != nil {
			return nil, false, nil
		}
		if isExpired(err) {
			r.mu.Lock()
			r.rvUnavailable = true
			r.mu.Unlock()
			return nil, false, fmt.Errorf("watch-list %s: %w", r.name, err)
		}
		if utilnet.IsConnectionRefused(err) || apierrors.IsTooManyRequests(err) {
			// The server is down or busy: a list would fail too; retry the
			// stream after the backoff.
			return nil, false, fmt.Errorf("watch-list %s: %w", r.name, err)
		}
		return nil, true, fmt.Errorf("watch-list %s: %w", r.name, err)
	}
	if isFakeWatcher(w) {
		r.noWatchList = true
		return w, true, fmt.Errorf("watch-list %s: %w", r.name, errNoStreaming)
	}
	r.noteWatch()
	// The initial events in order, DELETED ones at the indexes in deleted;
	// resolved into the initial state at the bookmark (see initialState).
	var evs []T
	var deleted []int
	for {
		select {
		case <-ctx.Done():
			w.Stop()
			return nil, false, nil
		case ev, ok := <-w.ResultChan():
			if !ok {
				w.Stop()
				if len(evs) == 0 && r.clock.Since(start) < time.Second {
					return nil, true, fmt.Errorf("watch-list %s: %w", r.name, ErrVeryShortWatch)
				}
				return nil, true, fmt.Errorf("watch-list %s: the watch closed before the initial events ended", r.name)
			}
			if ev.Type == watch.Error {
				w.Stop()
				err := apierrors.FromObject(ev.Object)
				if isExpired(err) {
					r.mu.Lock()
					r.rvUnavailable = true
					r.mu.Unlock()
					return nil, false, fmt.Errorf("watch-list %s: %w", r.name, err)
				}
				return nil, true, fmt.Errorf("watch-list %s: %w", r.name, err)
			}
			obj, ok := ev.Object.(T)
			if !ok {
				r.report(ctx, fmt.Errorf("watch-list %s: %w: got %T, want %T", r.name, ErrWrongType, ev.Object, *new(T)))
				continue
			}
			switch ev.Type {
			case watch.Added, watch.Modified:
				t, err := r.prepare(obj)
				if err != nil {
					w.Stop()
					return nil, true, fmt.Errorf("watch-list %s: transforming %s: %w", r.name, keys.StringOf(obj), err)
				}
				evs = append(evs, t)
			case watch.Deleted:
				deleted = append(deleted, len(evs))
				evs = append(evs, obj)
			case watch.Bookmark:
				if obj.GetAnnotations()[initialEventsEndAnnotation] == "true" {
					finalRV := obj.GetResourceVersion()
					if r.selectionChanged() {
						w.Stop()
						return nil, false, errSelectionChanged
					}
					r.clearError() // before the store can apply the list, as in list
					if err := r.sink.ReplaceInScope(initialState(evs, deleted), finalRV, r.replaceScope()); err != nil {
						w.Stop()
						return nil, false, fmt.Errorf("watch-list %s: storing the initial events: %w", r.name, err)
					}
					r.mu.Lock()
					relist := r.rvUnavailable
					r.lastSyncRV = finalRV
					r.rvUnavailable = false
					r.mu.Unlock()
					r.noteList(relist, finalRV)
					r.selectionStored()
					return w, false, nil
				}
			}
		}
	}
}

// watchLoop watches from the last synced RV, re-watching whenever a watch
// ends normally. It returns when a relist is needed (with the reason) or ctx
// ends (nil). first, if not nil, is an already-open watch to consume first.
func (r *Reflector[T]) watchLoop(ctx context.Context, first watch.Interface) error {
	retry := &backoff{initial: r.opts.InitialBackoff, max: r.opts.MaxBackoff, resetAfter: r.opts.BackoffResetAfter, clock: r.clock}
	w := first
	for {
		if ctx.Err() != nil {
			if w != nil {
				w.Stop()
			}
			return nil
		}
		if w == nil {
			opts := metav1.ListOptions{
				ResourceVersion:     r.LastSyncResourceVersion(),
				AllowWatchBookmarks: true,
				TimeoutSeconds:      r.watchTimeout(),
			}
			var err error
			w, err = r.lw.Watch(ctx, r.callOpts(opts))
			if err != nil {
				if ctx.Err() != nil {
					return nil
				}
				if isExpired(err) {
					r.mu.Lock()
					r.rvUnavailable = true
					r.mu.Unlock()
					return fmt.Errorf("watch %s: %w", r.name, err)
				}
				if utilnet.IsConnectionRefused(err) || apierrors.IsTooManyRequests(err) {
					// The server is down or busy: keep our state and retry
					// the watch rather than relisting everything.
					r.report(ctx, fmt.Errorf("watch %s: %w", r.name, err))
					if !retry.wait(ctx.Done(), retry.next()) {
						return nil
					}
					continue
				}
				return fmt.Errorf("watch %s: %w", r.name, err)
			}
			r.clearError()
			r.noteWatch()
		}
		err := r.handleWatch(ctx, w)
		w.Stop()
		w = nil
		if ctx.Err() == nil {
			r.noteWatchEnd(err)
		}
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
	}
}

// handleWatch applies a watch's events to the sink until it closes (nil),
// reports an error event, or ctx ends.
func (r *Reflector[T]) handleWatch(ctx context.Context, w watch.Interface) error {
	start := r.clock.Now()
	events := 0
	ch := w.ResultChan()
	var scopeChanged <-chan struct{} // nil (never ready) when unsharded
	if r.shard != nil {
		scopeChanged = r.shard.changed
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-scopeChanged:
			return errScopeChanged
		case <-r.selChanged():
			return errSelectionChanged
		case ev, ok := <-ch:
			if !ok {
				if events == 0 && r.clock.Since(start) < time.Second {
					return fmt.Errorf("watch %s from resourceVersion %q: %w", r.name, r.LastSyncResourceVersion(), ErrVeryShortWatch)
				}
				return nil
			}
			if ev.Type == watch.Error {
				err := apierrors.FromObject(ev.Object)
				if isExpired(err) {
					r.mu.Lock()
					r.rvUnavailable = true
					r.mu.Unlock()
				}
				return fmt.Errorf("watch %s: %w", r.name, err)
			}
			if r.selectionChanged() {
				// The event may come from a watch of the new value; the
				// relist brings it.
				return errSelectionChanged
			}
			events++
			obj, ok := ev.Object.(T)
			if !ok {
				r.report(ctx, fmt.Errorf("watch %s: %w: %s event with %T, want %T; dropped", r.name, ErrWrongType, ev.Type, ev.Object, *new(T)))
				continue
			}
			rv := obj.GetResourceVersion()
			if ev.Type != watch.Bookmark && !r.inShard(obj) {
				// Out of the ranges: the server ignored the selector, or
				// (defensively) sent it anyway. Objects never move between
				// ranges by themselves, so the store cannot hold it.
				if rv != "" {
					r.setLastSyncRV(rv)
				}
				continue
			}
			if ev.Type != watch.Bookmark {
				t, err := r.prepare(obj)
				if err != nil {
					r.report(ctx, fmt.Errorf("watch %s: transforming %s: %w; event dropped", r.name, keys.StringOf(obj), err))
					continue
				}
				obj = t
			}
			var err error
			switch ev.Type {
			case watch.Added:
				err = r.sink.Add(obj)
			case watch.Modified:
				err = r.sink.Update(obj)
			case watch.Deleted:
				err = r.sink.Delete(obj)
			case watch.Bookmark:
				if b, ok := r.sink.(BookmarkSink); ok {
					b.Bookmark(rv)
				}
			default:
				r.report(ctx, fmt.Errorf("watch %s: unknown event type %q; dropped", r.name, ev.Type))
				continue
			}
			if err != nil {
				r.report(ctx, fmt.Errorf("watch %s: applying %s of %s: %w", r.name, ev.Type, keys.StringOf(obj), err))
			}
			if rv != "" {
				r.setLastSyncRV(rv)
				r.noteEvent(rv)
			}
		}
	}
}
