package cache

import "github.com/typedinformer/typedinformer/runtime/cache/internal/processor"

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
