package clientgo

import (
	"context"
	"slices"
	"sync"
	"time"
)

// doneChecker is client-go's DoneChecker over a HasSynced function: its
// channel is closed by the informer's sync watcher once synced() is true.
type doneChecker struct {
	name   string
	synced func() bool
	ch     chan struct{}
}

// Name names what is waited for.
func (d *doneChecker) Name() string { return d.name }

// Done returns a channel that is closed once the informer (or handler) has
// synced; it stays open if that never happens.
func (d *doneChecker) Done() <-chan struct{} { return d.ch }

// syncWatcher closes the channels of doneCheckers once they have synced.
// The runtime reports sync through HasSynced only, so the watcher polls the
// pending checkers while there are any, starting every millisecond and
// slowing down to every 50 ms, and sleeps on a wake channel while there are
// none. It runs inside the informer's Run, which waits for it.
type syncWatcher struct {
	mu      sync.Mutex
	pending []*doneChecker
	wake    chan struct{}
}

func newSyncWatcher() *syncWatcher {
	return &syncWatcher{wake: make(chan struct{}, 1)}
}

// add returns a checker of synced and queues it.
func (w *syncWatcher) add(name string, synced func() bool) *doneChecker {
	d := &doneChecker{name: name, synced: synced, ch: make(chan struct{})}
	w.mu.Lock()
	w.pending = append(w.pending, d)
	w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default:
	}
	return d
}

// remove stops watching d: its channel is closed now if it has synced,
// else it stays open.
func (w *syncWatcher) remove(d *doneChecker) {
	w.mu.Lock()
	defer w.mu.Unlock()
	i := slices.Index(w.pending, d)
	if i < 0 {
		return // closed already
	}
	if d.synced() {
		close(d.ch)
	}
	w.pending = slices.Delete(w.pending, i, i+1)
}

// sweep closes the channels of the checkers that have synced and reports
// whether any is left.
func (w *syncWatcher) sweep() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	left := w.pending[:0]
	for _, d := range w.pending {
		if d.synced() {
			close(d.ch)
			continue
		}
		left = append(left, d)
	}
	clear(w.pending[len(left):])
	w.pending = left
	return len(left) > 0
}

const (
	minSyncPoll = time.Millisecond
	maxSyncPoll = 50 * time.Millisecond
)

// run sweeps until ctx is done.
func (w *syncWatcher) run(ctx context.Context) {
	delay := minSyncPoll
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		if !w.sweep() {
			select {
			case <-ctx.Done():
				return
			case <-w.wake:
				delay = minSyncPoll
				continue
			}
		}
		timer.Reset(delay)
		select {
		case <-ctx.Done():
			return
		case <-w.wake:
			delay = minSyncPoll
		case <-timer.C:
			delay = min(2*delay, maxSyncPoll)
		}
	}
}
