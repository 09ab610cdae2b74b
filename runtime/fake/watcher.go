package fake

import (
	"context"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/clock"

	"github.com/typedinformer/typedinformer/runtime/cache"
)

// watcher is one open watch. The server appends events to queue under its
// own lock (never blocking on the client); the watcher's goroutine hands
// them to the client in order through result.
type watcher[T cache.Object] struct {
	s         *Server[T]
	ctx       context.Context
	filter    filter
	bookmarks bool
	result    chan watch.Event
	timer     clock.Timer // closes the watch after TimeoutSeconds; guarded by s.mu

	mu      sync.Mutex
	queue   []watch.Event
	closing bool // deliver what is queued, then close result
	wake    chan struct{}

	stopOnce sync.Once
	stopped  chan struct{}
}

var _ watch.Interface = (*watcher[cache.Object])(nil)

func newWatcher[T cache.Object](ctx context.Context, s *Server[T], f filter, bookmarks bool) *watcher[T] {
	return &watcher[T]{
		s:         s,
		ctx:       ctx,
		filter:    f,
		bookmarks: bookmarks,
		result:    make(chan watch.Event),
		wake:      make(chan struct{}, 1),
		stopped:   make(chan struct{}),
	}
}

func secondsToDuration(s int64) time.Duration { return time.Duration(s) * time.Second }

// ResultChan returns the event stream; it is closed when the watch ends.
func (w *watcher[T]) ResultChan() <-chan watch.Event { return w.result }

// Stop ends the watch from the client's side: queued events are dropped and
// the result channel is closed. It may be called any number of times.
func (w *watcher[T]) Stop() {
	w.stopOnce.Do(func() { close(w.stopped) })
	w.s.removeWatcher(w)
}

// send queues ev; it never blocks.
func (w *watcher[T]) send(ev watch.Event) {
	w.mu.Lock()
	if w.closing {
		w.mu.Unlock()
		return
	}
	w.queue = append(w.queue, ev)
	w.mu.Unlock()
	w.poke()
}

// closeAfter queues the final events, if any, and makes the watch close
// once everything queued was delivered.
func (w *watcher[T]) closeAfter(final ...watch.Event) {
	w.mu.Lock()
	if !w.closing {
		w.queue = append(w.queue, final...)
		w.closing = true
	}
	w.mu.Unlock()
	w.poke()
}

func (w *watcher[T]) poke() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

func (w *watcher[T]) start() { go w.run() }

// run delivers queued events until the watch is stopped, ctx ends, or the
// server closed it and the queue is drained.
func (w *watcher[T]) run() {
	defer close(w.result)
	defer w.s.removeWatcher(w)
	for {
		w.mu.Lock()
		for len(w.queue) == 0 {
			if w.closing {
				w.mu.Unlock()
				return
			}
			w.mu.Unlock()
			select {
			case <-w.wake:
			case <-w.stopped:
				return
			case <-w.ctx.Done():
				return
			}
			w.mu.Lock()
		}
		w.mu.Unlock()
		if held := w.s.heldEvents(); held != nil {
			select {
			case <-held:
				continue
			case <-w.stopped:
				return
			case <-w.ctx.Done():
				return
			}
		}
		w.mu.Lock()
		ev := w.queue[0]
		w.queue[0] = watch.Event{}
		w.queue = w.queue[1:]
		w.mu.Unlock()
		select {
		case w.result <- ev:
		case <-w.stopped:
			return
		case <-w.ctx.Done():
			return
		}
	}
}
