package fake

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// FailNextList makes the next List call fail with err (for example
// apierrors.NewForbidden, apierrors.NewNotFound for a missing CRD, or a
// connection-refused error). It applies once and takes precedence over
// FailLists.
func (s *Server[T]) FailNextList(err error) {
	s.mu.Lock()
	s.failNextList = err
	s.mu.Unlock()
}

// FailNextWatch makes the next Watch call fail with err. It applies once and
// takes precedence over FailWatches.
func (s *Server[T]) FailNextWatch(err error) {
	s.mu.Lock()
	s.failNextWatch = err
	s.mu.Unlock()
}

// FailLists makes every List call fail with err until ClearFaults (nil
// clears it).
func (s *Server[T]) FailLists(err error) {
	s.mu.Lock()
	s.failLists = err
	s.mu.Unlock()
}

// FailWatches makes every Watch call fail with err until ClearFaults (nil
// clears it). Watches already open are not affected.
func (s *Server[T]) FailWatches(err error) {
	s.mu.Lock()
	s.failWatches = err
	s.mu.Unlock()
}

// ClearFaults removes every fault set with FailNextList, FailNextWatch,
// FailLists, FailWatches and SetListDelay.
func (s *Server[T]) ClearFaults() {
	s.mu.Lock()
	s.failNextList, s.failNextWatch, s.failLists, s.failWatches = nil, nil, nil, nil
	s.listDelay = 0
	s.mu.Unlock()
}

// SetListDelay makes every List call wait d (on the server's clock, see
// WithClock) before it is served; a List whose ctx ends meanwhile returns
// ctx's error. The list reflects the state after the wait. 0 removes the
// delay.
func (s *Server[T]) SetListDelay(d time.Duration) {
	s.mu.Lock()
	s.listDelay = d
	s.mu.Unlock()
}

// HoldWatchEvents makes every watch, open or opened later, hold its events
// instead of delivering them, as a slow watch does, until
// ReleaseWatchEvents; writes and lists are not affected.
func (s *Server[T]) HoldWatchEvents() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.held == nil {
		s.held = make(chan struct{})
	}
}

// ReleaseWatchEvents lets the watches deliver what they held, in order.
func (s *Server[T]) ReleaseWatchEvents() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.held != nil {
		close(s.held)
		s.held = nil
	}
}

// heldEvents returns the channel closed when held events are released,
// or nil when events are not held.
func (s *Server[T]) heldEvents() chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.held
}

// DropWatches closes every open watch as a server or proxy restart would:
// each delivers what was already queued, then its result channel closes
// with no error (a clean EOF).
func (s *Server[T]) DropWatches() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for w := range s.watchers {
		s.closeWatcherLocked(w)
	}
}

// ExpireWatches sends every open watch an ERROR event carrying a 410
// Expired metav1.Status (after what was already queued) and closes it. It
// does not forget history: call Compact as well to make re-watching from an
// older resourceVersion fail too.
func (s *Server[T]) ExpireWatches() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for w := range s.watchers {
		st := apierrors.NewResourceExpired(fmt.Sprintf("too old resource version: the watch expired at %d", s.rv)).Status()
		s.closeWatcherLocked(w, watch.Event{Type: watch.Error, Object: &st})
	}
}

// Compact forgets every remembered change, as an etcd compaction at the
// current resourceVersion: from now on, watches and exact lists from an
// older resourceVersion and continue tokens of older lists fail with 410
// Expired (ErrExpired). Open watches are not affected.
func (s *Server[T]) Compact() {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.history)
	s.history = s.history[:0]
	s.compactedRV = s.rv
}

// SendBookmarks queues, on every open watch that allowed bookmarks, a
// BOOKMARK whose object is an empty T carrying the current resourceVersion.
func (s *Server[T]) SendBookmarks() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for w := range s.watchers {
		if !w.bookmarks {
			continue
		}
		bm := newEmpty[T]()
		bm.SetResourceVersion(formatRV(s.rv))
		w.send(watch.Event{Type: watch.Bookmark, Object: bm})
	}
}

// InjectWrongType queues on every open watch a MODIFIED event whose object
// is a copy of obj (an object of another type than T), as a misbehaving
// server or conversion webhook would. It is the next event each of those
// watches delivers after what was already queued; no real change is lost.
func (s *Server[T]) InjectWrongType(obj runtime.Object) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for w := range s.watchers {
		w.send(watch.Event{Type: watch.Modified, Object: obj.DeepCopyObject()})
	}
}

// Calls returns how many List and Watch calls the server received,
// including failed ones; each page of a paginated list is one call.
func (s *Server[T]) Calls() (lists, watches int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lists, s.watches
}

// Requests returns every List and Watch call received so far, in order.
func (s *Server[T]) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Watchers returns the number of open watches.
func (s *Server[T]) Watchers() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.watchers)
}

// WaitForWatchers blocks until at least n watches are open (nil) or ctx
// ends (an error saying how many were open, wrapping ctx's error).
func (s *Server[T]) WaitForWatchers(ctx context.Context, n int) error {
	for {
		s.mu.Lock()
		have := len(s.watchers)
		changed := s.watchersChanged
		s.mu.Unlock()
		if have >= n {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return fmt.Errorf("fake %s: waiting for %d open watches, %d open: %w", s.cfg.resource, n, have, ctx.Err())
		}
	}
}

// closeWatcher closes w from the server's side, after the final events.
func (s *Server[T]) closeWatcher(w *watcher[T], final ...watch.Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, open := s.watchers[w]; open {
		s.closeWatcherLocked(w, final...)
	}
}

// closeWatcherLocked unregisters w and makes it close after final. The
// caller holds mu.
func (s *Server[T]) closeWatcherLocked(w *watcher[T], final ...watch.Event) {
	s.unregisterLocked(w)
	w.closeAfter(final...)
}

// removeWatcher unregisters w (when the client stopped it or its goroutine
// ended); unknown watchers are ignored.
func (s *Server[T]) removeWatcher(w *watcher[T]) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.unregisterLocked(w)
}

func (s *Server[T]) unregisterLocked(w *watcher[T]) {
	if _, open := s.watchers[w]; !open {
		return
	}
	delete(s.watchers, w)
	if w.timer != nil {
		w.timer.Stop()
	}
	s.notifyWatchersChangedLocked()
}

func (s *Server[T]) notifyWatchersChangedLocked() {
	close(s.watchersChanged)
	s.watchersChanged = make(chan struct{})
}
