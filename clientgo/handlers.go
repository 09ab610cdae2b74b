package clientgo

import (
	"fmt"

	toolscache "k8s.io/client-go/tools/cache"

	"github.com/typedinformer/typedinformer/runtime/cache"
)

// handler delivers the runtime's notifications to a client-go handler:
// objects as they are, and a delete the informer missed (or an object that
// left the informer's scope) as a DeletedFinalStateUnknown carrying the last
// state the informer knew.
type handler struct {
	h toolscache.ResourceEventHandler
}

func (a handler) OnAdd(obj cache.Object, isInInitialList bool) { a.h.OnAdd(obj, isInInitialList) }

func (a handler) OnUpdate(oldObj, newObj cache.Object) { a.h.OnUpdate(oldObj, newObj) }

func (a handler) OnDelete(obj cache.Object, finalStateUnknown bool) {
	if !finalStateUnknown {
		a.h.OnDelete(obj)
		return
	}
	a.h.OnDelete(toolscache.DeletedFinalStateUnknown{Key: cache.ObjectName{Namespace: obj.GetNamespace(), Name: obj.GetName()}.String(), Obj: obj})
}

// registration is what AddEventHandler returns: the runtime's registration
// and a DoneChecker of its HasSynced.
type registration struct {
	inner    cache.ResourceEventHandlerRegistration
	informer *sharedIndexInformer
	done     *doneChecker
}

var _ toolscache.ResourceEventHandlerRegistration = (*registration)(nil)

// HasSynced reports whether the informer has synced and this handler has
// been handed every object of the initial list (or, for a handler added
// later, of the cache when it was added).
func (r *registration) HasSynced() bool { return r.inner.HasSynced() }

// HasSyncedChecker returns a DoneChecker whose channel is closed once
// HasSynced is true.
func (r *registration) HasSyncedChecker() toolscache.DoneChecker { return r.done }

func (r *registration) String() string {
	return fmt.Sprintf("event handler of %s", r.informer.name)
}
