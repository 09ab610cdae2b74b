package cache

import "errors"

// ResourceEventHandler receives the changes an informer observes for objects
// of type T, under the contract written on SharedIndexInformer. In short:
//
//   - Which goroutine: each registration's own. The handler is called one
//     notification at a time, never concurrently with itself; different
//     handlers run concurrently. A call that blocks delays only this
//     handler, whose notifications queue up meanwhile. A panic is recovered
//     and logged.
//   - Order: the order the informer applied the changes to its store, which
//     is the order the server produced them across all keys. The store is
//     updated before the call.
//   - Exactly once: each applied change once per handler, except an update
//     that keeps the resourceVersion (a resync, a relist that found the
//     object unchanged, any update from a server that sets no
//     resourceVersion, such as client-go's fake clientsets). That reaches
//     the handler only while it is "syncing" (client-go's rule): from its
//     registration until the informer's first resync check, then from each
//     check at which its own resync period is due until the next check.
//     With no resync period configured no check runs, so the handler gets
//     every such update.
//   - Objects are shared with the store and the other handlers: a handler
//     must not mutate them (DeepCopy first).
//   - After RemoveEventHandler returns, at most the one call already under
//     way; after Run's context ends, no new call.
//
// The methods:
//
//   - OnAdd: obj was added to the cache. isInInitialList is true exactly when
//     obj came from the informer's first list, or is a synthetic add replayed
//     to a handler that joined after the informer started; each such object
//     reaches the handler once. A watch event never has it.
//   - OnUpdate: the object changed (oldObj is the state the cache held), or
//     it came again with the same resourceVersion (a resync, a relist, or a
//     server that sets none; then oldObj and newObj carry the same
//     resourceVersion, and whether this handler gets it follows the rule
//     above).
//   - OnDelete: obj was removed. finalStateUnknown is true when the informer
//     missed the delete (it found out on a relist); obj is then the last state
//     the informer knew, which may be stale. An object that left the
//     informer's scope also arrives as OnDelete(obj, true), unless the handler
//     implements ScopeExitHandler.
type ResourceEventHandler[T Object] interface {
	// OnAdd is called for an object new to the cache.
	OnAdd(obj T, isInInitialList bool)
	// OnUpdate is called for a change or a resync of a cached object.
	OnUpdate(oldObj, newObj T)
	// OnDelete is called for an object removed from the cache.
	OnDelete(obj T, finalStateUnknown bool)
}

// ResourceEventHandlerDetailedFuncs adapts up to three functions to a
// ResourceEventHandler; a nil function ignores that kind of notification.
type ResourceEventHandlerDetailedFuncs[T Object] struct {
	AddFunc    func(obj T, isInInitialList bool)
	UpdateFunc func(oldObj, newObj T)
	DeleteFunc func(obj T, finalStateUnknown bool)
}

// OnAdd calls AddFunc if it is set.
func (f ResourceEventHandlerDetailedFuncs[T]) OnAdd(obj T, isInInitialList bool) {
	if f.AddFunc != nil {
		f.AddFunc(obj, isInInitialList)
	}
}

// OnUpdate calls UpdateFunc if it is set.
func (f ResourceEventHandlerDetailedFuncs[T]) OnUpdate(oldObj, newObj T) {
	if f.UpdateFunc != nil {
		f.UpdateFunc(oldObj, newObj)
	}
}

// OnDelete calls DeleteFunc if it is set.
func (f ResourceEventHandlerDetailedFuncs[T]) OnDelete(obj T, finalStateUnknown bool) {
	if f.DeleteFunc != nil {
		f.DeleteFunc(obj, finalStateUnknown)
	}
}

// FilteringResourceEventHandler passes to Handler only the notifications for
// objects FilterFunc accepts. An update is translated so that Handler sees a
// consistent view of the filtered set:
//
//   - old and new both pass: OnUpdate;
//   - only new passes: OnAdd(new, false);
//   - only old passes: OnDelete(old, false);
//   - neither passes: nothing.
//
// FilterFunc must be a pure function of the object.
type FilteringResourceEventHandler[T Object] struct {
	FilterFunc func(obj T) bool
	Handler    ResourceEventHandler[T]
}

// validate rejects a filter without a function or a handler, which
// AddEventHandler reports instead of panicking on every event.
func (f FilteringResourceEventHandler[T]) validate() error {
	switch {
	case f.FilterFunc == nil:
		return errors.New("FilteringResourceEventHandler with a nil FilterFunc")
	case f.Handler == nil:
		return errors.New("FilteringResourceEventHandler with a nil Handler")
	}
	return nil
}

// OnAdd forwards obj if it passes the filter.
func (f FilteringResourceEventHandler[T]) OnAdd(obj T, isInInitialList bool) {
	if f.FilterFunc(obj) {
		f.Handler.OnAdd(obj, isInInitialList)
	}
}

// OnUpdate forwards the update, translated as described on the type.
func (f FilteringResourceEventHandler[T]) OnUpdate(oldObj, newObj T) {
	oldOK, newOK := f.FilterFunc(oldObj), f.FilterFunc(newObj)
	switch {
	case oldOK && newOK:
		f.Handler.OnUpdate(oldObj, newObj)
	case newOK:
		f.Handler.OnAdd(newObj, false)
	case oldOK:
		f.Handler.OnDelete(oldObj, false)
	}
}

// OnDelete forwards obj if it passes the filter.
func (f FilteringResourceEventHandler[T]) OnDelete(obj T, finalStateUnknown bool) {
	if f.FilterFunc(obj) {
		f.Handler.OnDelete(obj, finalStateUnknown)
	}
}
