package cache

import "errors"

// ResourceEventHandler receives the changes an informer observes for objects
// of type T. The shared processor calls each registered handler from its own
// goroutine, one notification at a time, in the order the informer applied
// them to its store, which is the order the server produced them across all
// keys (see SharedInformer). The store is updated before the notification is
// handed out. Handlers must not mutate the objects they receive.
//
// Each object of the informer's first list is delivered exactly once with
// OnAdd(obj, true); so is each cached object, to a handler added later. Every
// other call has isInInitialList=false. After RemoveEventHandler returns, a
// handler receives at most the one call that was already under way.
//
//   - OnAdd: obj was added to the cache. isInInitialList is true when obj came
//     from the informer's initial list (or is a synthetic add replayed to a
//     handler that joined after the informer started).
//   - OnUpdate: the object changed, or a resync re-delivered it (then oldObj
//     and newObj carry the same resourceVersion).
//   - OnDelete: obj was removed. finalStateUnknown is true when the informer
//     missed the delete (it found out on a relist); obj is then the last state
//     the informer knew, which may be stale.
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
