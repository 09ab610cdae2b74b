package cache

import (
	"errors"

	"github.com/typedinformer/typedinformer/runtime/cache/internal/processor"
)

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
//   - OnDelete: obj was removed, or the server reported the deletion of an
//     object the cache did not hold. finalStateUnknown is true when the
//     informer missed the delete (it found out on a relist, and tells of it
//     before the relist's adds and updates); obj is then the last state the
//     informer knew, which may be stale. An object that left the
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

// ResourceEventHandlerFuncs adapts up to three functions with client-go's
// one-argument shapes to a ResourceEventHandler, so that handlers written
// for client-go (AddFunc: c.enqueue) keep compiling once typed. A nil
// function ignores that kind of notification. The functions are called one
// at a time, in order, from the handler's goroutine (see
// ResourceEventHandler).
//
//   - AddFunc gets every added object; whether it came from the initial list
//     is dropped (use ResourceEventHandlerDetailedFuncs to see it).
//   - UpdateFunc gets changes and resyncs (then both carry the same
//     resourceVersion).
//   - DeleteFunc gets the deleted object. When the informer missed the
//     delete and learned of it on a relist (client-go's
//     DeletedFinalStateUnknown tombstone), DeleteFunc gets the typed last
//     state the informer knew, which may be stale; nothing wraps it, so no
//     type switch is needed. ResourceEventHandlerDetailedFuncs also reports
//     that case (finalStateUnknown).
type ResourceEventHandlerFuncs[T Object] struct {
	AddFunc    func(obj T)
	UpdateFunc func(oldObj, newObj T)
	DeleteFunc func(obj T)
}

// OnAdd calls AddFunc if it is set.
func (f ResourceEventHandlerFuncs[T]) OnAdd(obj T, _ bool) {
	if f.AddFunc != nil {
		f.AddFunc(obj)
	}
}

// OnUpdate calls UpdateFunc if it is set.
func (f ResourceEventHandlerFuncs[T]) OnUpdate(oldObj, newObj T) {
	if f.UpdateFunc != nil {
		f.UpdateFunc(oldObj, newObj)
	}
}

// OnDelete calls DeleteFunc if it is set, with the last known object for a
// delete the informer missed.
func (f ResourceEventHandlerFuncs[T]) OnDelete(obj T, _ bool) {
	if f.DeleteFunc != nil {
		f.DeleteFunc(obj)
	}
}

// ScopeExitHandler is an optional interface of a ResourceEventHandler. An
// informer with a scope (shard ranges, see SharedIndexInformerOptions.
// ShardScope, or a factory's namespace set) removes the objects that leave
// the scope from its cache when the scope changes, although they usually
// still exist on the server (another replica now caches them).
//
// By default a handler is told of such a removal as OnDelete(obj, true):
// the object left the cache and the informer did not observe a delete, so
// obj is the last state it knew. That keeps handlers that mirror the cache
// (counts, derived indexes) consistent. A handler that implements
// ScopeExitHandler gets OnScopeExit(obj) instead and no OnDelete: a sharded
// controller should not treat an object that merely moved to another
// replica as deleted (it would run finalization logic for a live object).
// IgnoreScopeExits turns any handler into one that is not told at all.
//
// OnScopeExit is delivered in order with the handler's other calls, after
// the object was removed from the store.
type ScopeExitHandler[T Object] interface {
	// OnScopeExit is called for an object removed from the cache because
	// it left the informer's scope.
	OnScopeExit(obj T)
}

// IgnoreScopeExits returns a handler that forwards every notification of h
// except objects leaving the informer's scope, of which it says nothing (see
// ScopeExitHandler). A nil h gives a nil handler, which AddEventHandler
// rejects.
func IgnoreScopeExits[T Object](h ResourceEventHandler[T]) ResourceEventHandler[T] {
	if h == nil {
		return nil
	}
	return scopeExitIgnorer[T]{h}
}

// scopeExitIgnorer is IgnoreScopeExits' handler.
type scopeExitIgnorer[T Object] struct {
	ResourceEventHandler[T]
}

// OnScopeExit does nothing.
func (scopeExitIgnorer[T]) OnScopeExit(T) {}

// HandlerName names the wrapped handler in logs and metrics.
func (s scopeExitIgnorer[T]) HandlerName() string {
	return processor.HandlerName(s.ResourceEventHandler)
}

// DeliverScopeExit tells h that obj left its informer's scope: OnScopeExit
// when h implements ScopeExitHandler, else OnDelete(obj, true). Handler
// wrappers (filters, serializers) call it to forward the notification.
func DeliverScopeExit[T Object](h ResourceEventHandler[T], obj T) {
	processor.DeliverScopeExit[T](h, obj)
}

// OnScopeExit forwards a scope exit of an object that passes the filter
// (see ScopeExitHandler).
func (f FilteringResourceEventHandler[T]) OnScopeExit(obj T) {
	if f.FilterFunc(obj) {
		DeliverScopeExit(f.Handler, obj)
	}
}
