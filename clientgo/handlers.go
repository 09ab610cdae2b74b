package clientgo

import (
	"fmt"
	"sync"
	"sync/atomic"

	toolscache "k8s.io/client-go/tools/cache"

	"github.com/typedinformer/typedinformer/runtime/cache"
)

// handler delivers the runtime's notifications to a client-go handler:
// objects as they are, and a delete the informer missed (or an object that
// left the informer's scope) as a DeletedFinalStateUnknown carrying the last
// state the informer knew.
type handler struct {
	h     toolscache.ResourceEventHandler
	calls *calls
}

func (a handler) OnAdd(obj cache.Object, isInInitialList bool) {
	if !a.calls.enter() {
		return
	}
	defer a.calls.exit()
	a.h.OnAdd(obj, isInInitialList)
}

func (a handler) OnUpdate(oldObj, newObj cache.Object) {
	if !a.calls.enter() {
		return
	}
	defer a.calls.exit()
	a.h.OnUpdate(oldObj, newObj)
}

func (a handler) OnDelete(obj cache.Object, finalStateUnknown bool) {
	if !a.calls.enter() {
		return
	}
	defer a.calls.exit()
	if !finalStateUnknown {
		a.h.OnDelete(obj)
		return
	}
	a.h.OnDelete(toolscache.DeletedFinalStateUnknown{Key: cache.ObjectName{Namespace: obj.GetNamespace(), Name: obj.GetName()}.String(), Obj: obj})
}

// calls tracks the calls of one registration's handler under way, so that
// ShutdownChan can tell when the last one has returned. Once ended, no call
// starts: one the runtime makes after that returns at once.
type calls struct {
	active   atomic.Int32
	ended    atomic.Bool
	once     sync.Once
	finished chan struct{}
}

func newCalls() *calls { return &calls{finished: make(chan struct{})} }

// enter reports whether a call may start; a true result must be paired
// with exit.
func (c *calls) enter() bool {
	c.active.Add(1)
	if c.ended.Load() {
		c.exit()
		return false
	}
	return true
}

func (c *calls) exit() {
	if c.active.Add(-1) == 0 && c.ended.Load() {
		c.once.Do(func() { close(c.finished) })
	}
}

// end lets no further call start; finished is closed once the calls under
// way have returned.
func (c *calls) end() {
	c.ended.Store(true)
	if c.active.Load() == 0 {
		c.once.Do(func() { close(c.finished) })
	}
}

// registration is what AddEventHandler returns: the runtime's registration,
// a DoneChecker of its HasSynced and its handler's calls.
type registration struct {
	inner    cache.ResourceEventHandlerRegistration
	informer *sharedIndexInformer
	done     *doneChecker
	calls    *calls
}

var _ toolscache.ResourceEventHandlerRegistration = (*registration)(nil)

// HasSynced reports whether the informer has synced and this handler has
// been handed every object of the initial list (or, for a handler added
// later, of the cache when it was added).
func (r *registration) HasSynced() bool { return r.inner.HasSynced() }

// HasSyncedChecker returns a DoneChecker whose channel is closed once
// HasSynced is true.
func (r *registration) HasSyncedChecker() toolscache.DoneChecker { return r.done }

// ShutdownChan returns a channel closed once the handler will not be
// called again and no call of it is under way: after RemoveEventHandler
// (at once if the informer never ran), or after the informer stopped.
// client-go's ShutDownEventHandler waits on it.
func (r *registration) ShutdownChan() <-chan struct{} { return r.calls.finished }

func (r *registration) String() string {
	return fmt.Sprintf("event handler of %s", r.informer.name)
}
