package cache

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

// ErrVeryShortWatch is wrapped by the error a reflector reports when a watch
// closed within a second without delivering anything: usually a server or
// proxy problem, so the reflector backs off and relists.
var ErrVeryShortWatch = errors.New("very short watch: the watch closed within a second without delivering any event")

// ErrWrongType is wrapped by the error reported for a watch event whose
// object is not of the informer's type; the event is dropped.
var ErrWrongType = errors.New("watch event of the wrong type")

// reflectorSink is where the reflector puts what it observes: the DeltaFIFO.
type reflectorSink[T Object] interface {
	Add(obj T) error
	Update(obj T) error
	Delete(obj T) error
	Replace(list []T, resourceVersion string) error
	ReplaceInScope(list []T, resourceVersion string, inScope func(T) bool) error
}

// bookmarkSink is a reflectorSink that wants the resourceVersion of each
// watch bookmark.
type bookmarkSink interface {
	Bookmark(resourceVersion string)
}

// reflector lists and then watches a ListerWatcher, feeding a sink. One
// goroutine runs it; the state read by others is guarded by mu.
type reflector[T Object] struct {
	name      string
	lw        ListerWatcher
	sink      reflectorSink[T]
	opts      ReflectorOptions
	clock     clock.Clock
	transform TransformFunc[T]
	onError   func(ctx context.Context, err error)
	// metrics is nil unless the informer has metrics (see reflector_metrics.go).
	metrics InformerMetrics
	// events is the coarse clock eventTime reads: nil unless the
	// reflector runs with metrics on the real clock, when run starts it and
	// stops it (waiting for its goroutine) before returning. Only the
	// reflector's goroutine reads and writes the field.
	events *coarseClock
	// fields shares equal managedFields documents among the objects this
	// reflector stores (see prepare); only its goroutine uses it.
	fields fieldsCache
	// items is where the list type's Items field is (see extractList);
	// only the reflector's goroutine uses it.
	items itemsField
	// noWatchList: the client cannot stream (see DisableWatchList). Only
	// the reflector's goroutine reads and writes it after construction.
	noWatchList bool
	// scope, when not nil, limits the reflector to its ranges (see
	// reflector_shard.go); shard is the current cycle's snapshot and
	// shardLogged whether the client-side filtering was logged. Only the
	// reflector's goroutine uses shard and shardLogged.
	scope       *sharding.Scope
	shard       *shardCycle
	shardLogged bool

	mu            sync.Mutex
	shardStatus   ShardStatus
	lastSyncRV    string
	rvUnavailable bool // the last RV expired: relist with "" (consistent)
	lastErr       error
}

// newReflector returns a reflector of lw feeding sink; opts' unset fields
// take their defaults (ReflectorOptions.withDefaults).
func newReflector[T Object](name string, lw ListerWatcher, sink reflectorSink[T], opts ReflectorOptions) *reflector[T] {
	opts = opts.withDefaults()
	return &reflector[T]{name: name, lw: lw, sink: sink, opts: opts, clock: opts.Clock, noWatchList: !watchListWanted(opts, lw)}
}

func (r *reflector[T]) lastSyncResourceVersion() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.lastSyncRV
}

func (r *reflector[T]) setLastSyncRV(rv string) {
	r.mu.Lock()
	r.lastSyncRV = rv
	r.mu.Unlock()
}

func (r *reflector[T]) lastError() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.lastErr
}

func (r *reflector[T]) clearError() {
	r.mu.Lock()
	r.lastErr = nil
	r.mu.Unlock()
}

// report records err as the last error and tells the error hook.
func (r *reflector[T]) report(ctx context.Context, err error) {
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

// run lists and watches until ctx ends, backing off between failures.
func (r *reflector[T]) run(ctx context.Context) {
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
		if errors.Is(err, errScopeChanged) {
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
func (r *reflector[T]) relistResourceVersion() string {
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
func (r *reflector[T]) listAndWatch(ctx context.Context) error {
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
func (r *reflector[T]) watchAfterFakeStream(ctx context.Context, fake watch.Interface) (watch.Interface, error) {
	w, err := r.lw.Watch(ctx, metav1.ListOptions{
		ResourceVersion:     r.lastSyncResourceVersion(),
		AllowWatchBookmarks: true,
		TimeoutSeconds:      r.watchTimeout(),
	})
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
func (r *reflector[T]) watchTimeout() *int64 {
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
func (r *reflector[T]) watchList(ctx context.Context) (watch.Interface, bool, error) {
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
	w, err := r.lw.Watch(ctx, opts)
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
	var items []T
	index := map[keys.Key]int{}
	put := func(obj T) {
		k := keys.Of(obj)
		if i, ok := index[k]; ok {
			items[i] = obj
			return
		}
		index[k] = len(items)
		items = append(items, obj)
	}
	for {
		select {
		case <-ctx.Done():
			w.Stop()
			return nil, false, nil
		case ev, ok := <-w.ResultChan():
			if !ok {
				w.Stop()
				if len(items) == 0 && r.clock.Since(start) < time.Second {
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
				put(t)
			case watch.Deleted:
				k := keys.Of(obj)
				if i, ok := index[k]; ok {
					last := len(items) - 1
					items[i] = items[last]
					index[keys.Of(items[i])] = i
					items = items[:last]
					delete(index, k)
				}
			case watch.Bookmark:
				if obj.GetAnnotations()[initialEventsEndAnnotation] == "true" {
					finalRV := obj.GetResourceVersion()
					if err := r.sink.Replace(items, finalRV); err != nil {
						w.Stop()
						return nil, false, fmt.Errorf("watch-list %s: storing the initial events: %w", r.name, err)
					}
					r.mu.Lock()
					relist := r.rvUnavailable
					r.lastSyncRV = finalRV
					r.rvUnavailable = false
					r.lastErr = nil
					r.mu.Unlock()
					r.noteList(relist, finalRV)
					return w, false, nil
				}
			}
		}
	}
}

// watchLoop watches from the last synced RV, re-watching whenever a watch
// ends normally. It returns when a relist is needed (with the reason) or ctx
// ends (nil). first, if not nil, is an already-open watch to consume first.
func (r *reflector[T]) watchLoop(ctx context.Context, first watch.Interface) error {
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
				ResourceVersion:     r.lastSyncResourceVersion(),
				AllowWatchBookmarks: true,
				TimeoutSeconds:      r.watchTimeout(),
			}
			var err error
			w, err = r.lw.Watch(ctx, r.withShard(opts))
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
func (r *reflector[T]) handleWatch(ctx context.Context, w watch.Interface) error {
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
		case ev, ok := <-ch:
			if !ok {
				if events == 0 && r.clock.Since(start) < time.Second {
					return fmt.Errorf("watch %s from resourceVersion %q: %w", r.name, r.lastSyncResourceVersion(), ErrVeryShortWatch)
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
				if b, ok := r.sink.(bookmarkSink); ok {
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
