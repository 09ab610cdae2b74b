package cache

import (
	"errors"
	"reflect"
	"strings"

	"github.com/typedinformer/typedinformer/runtime/cache/internal/processor"
)

// TypedResourceEventHandler is client-go v0.37's typed handler interface:
// ResourceEventHandler with the delete reported as a DeletedObject. Code
// written against client-go's TypedResourceEventHandler compiles against it
// unchanged; register it with TypedSharedIndexInformer.AddTypedEventHandler.
// It is called under the contract written on ResourceEventHandler (one call
// at a time per registration, in the store's order, objects read-only).
type TypedResourceEventHandler[T Object] interface {
	// OnAdd is called for an object new to the cache; see
	// ResourceEventHandler.OnAdd for isInInitialList.
	OnAdd(obj T, isInInitialList bool)
	// OnUpdate is called for a change or a resync of a cached object.
	OnUpdate(oldObj, newObj T)
	// OnDelete is called for an object removed from the cache.
	OnDelete(obj DeletedObject[T])
}

// DeletedFinalStateUnknown is client-go's tombstone: the informer missed a
// delete and learned of it on a relist. Here it appears only inside a
// DeletedObject (handlers registered with AddEventHandler get the typed
// object and finalStateUnknown instead). Obj holds the same T as the
// DeletedObject's OptionalObj: the last state the informer knew, possibly
// stale.
type DeletedFinalStateUnknown struct {
	// Key is the object's store key ("namespace/name" or "name").
	Key string
	// Obj is the last known object, of the informer's type T.
	Obj any
}

// DeletedObject is what a TypedResourceEventHandler's OnDelete receives,
// with client-go v0.37's fields and methods.
//
// OptionalObj is the deleted object. When the informer saw the delete it is
// the object's final state and FinalStateUnknown is nil. When it missed the
// delete (found out on a relist, or the object left the informer's scope),
// FinalStateUnknown is set and OptionalObj is the last state the informer
// knew, which may be stale. This runtime always has that last state, so
// OptionalObj is never the zero T; code written for client-go, where it can
// be, keeps working.
//
// GetName and GetNamespace make a DeletedObject usable with klog.KObj; they
// and GetKey and GetObjectName work whether or not OptionalObj is set.
type DeletedObject[T Object] struct {
	// OptionalObj is the deleted object (see the type's comment).
	OptionalObj T
	// FinalStateUnknown is nil when OptionalObj is the final state, else
	// the tombstone with the object's key.
	FinalStateUnknown *DeletedFinalStateUnknown
}

// GetObjectName returns the deleted object's namespace and name: from the
// tombstone's key when there is one (a key with more than one "/" keeps the
// rest in the name), else from OptionalObj; the zero ObjectName when
// neither is set.
func (d DeletedObject[T]) GetObjectName() ObjectName {
	if d.FinalStateUnknown != nil {
		ns, name, ok := strings.Cut(d.FinalStateUnknown.Key, "/")
		if !ok {
			return ObjectName{Name: ns}
		}
		return ObjectName{Namespace: ns, Name: name}
	}
	if isZero(d.OptionalObj) {
		return ObjectName{}
	}
	return ObjectName{Namespace: d.OptionalObj.GetNamespace(), Name: d.OptionalObj.GetName()}
}

// GetName returns the deleted object's name, without its namespace.
func (d DeletedObject[T]) GetName() string { return d.GetObjectName().Name }

// GetNamespace returns the deleted object's namespace ("" when it has none).
func (d DeletedObject[T]) GetNamespace() string { return d.GetObjectName().Namespace }

// GetKey returns the store key the object was held under ("" when neither
// a tombstone nor an object is set).
func (d DeletedObject[T]) GetKey() string {
	if d.FinalStateUnknown != nil {
		return d.FinalStateUnknown.Key
	}
	if isZero(d.OptionalObj) {
		return ""
	}
	return MetaObjectToName(d.OptionalObj).String()
}

// isZero reports whether obj is T's zero value (a nil pointer), on which
// GetName would panic. Object is not comparable, so this reflects; it runs
// only for deletes.
func isZero[T Object](obj T) bool {
	return reflect.ValueOf(&obj).Elem().IsZero()
}

// deletedObject builds what a typed handler receives for OnDelete(obj,
// finalStateUnknown).
func deletedObject[T Object](obj T, finalStateUnknown bool) DeletedObject[T] {
	d := DeletedObject[T]{OptionalObj: obj}
	if finalStateUnknown {
		d.FinalStateUnknown = &DeletedFinalStateUnknown{Key: MetaObjectToName(obj).String(), Obj: obj}
	}
	return d
}

// TypedResourceEventHandlerFuncs adapts up to three functions to a
// TypedResourceEventHandler, with client-go v0.37's shapes; a nil function
// ignores that kind of notification. AddFunc does not see isInInitialList
// (TypedResourceEventHandlerDetailedFuncs does).
type TypedResourceEventHandlerFuncs[T Object] struct {
	AddFunc    func(obj T)
	UpdateFunc func(oldObj, newObj T)
	DeleteFunc func(obj DeletedObject[T])
}

// OnAdd calls AddFunc if it is set.
func (f TypedResourceEventHandlerFuncs[T]) OnAdd(obj T, _ bool) {
	if f.AddFunc != nil {
		f.AddFunc(obj)
	}
}

// OnUpdate calls UpdateFunc if it is set.
func (f TypedResourceEventHandlerFuncs[T]) OnUpdate(oldObj, newObj T) {
	if f.UpdateFunc != nil {
		f.UpdateFunc(oldObj, newObj)
	}
}

// OnDelete calls DeleteFunc if it is set.
func (f TypedResourceEventHandlerFuncs[T]) OnDelete(obj DeletedObject[T]) {
	if f.DeleteFunc != nil {
		f.DeleteFunc(obj)
	}
}

// TypedResourceEventHandlerDetailedFuncs is TypedResourceEventHandlerFuncs
// whose AddFunc also gets isInInitialList.
type TypedResourceEventHandlerDetailedFuncs[T Object] struct {
	AddFunc    func(obj T, isInInitialList bool)
	UpdateFunc func(oldObj, newObj T)
	DeleteFunc func(obj DeletedObject[T])
}

// OnAdd calls AddFunc if it is set.
func (f TypedResourceEventHandlerDetailedFuncs[T]) OnAdd(obj T, isInInitialList bool) {
	if f.AddFunc != nil {
		f.AddFunc(obj, isInInitialList)
	}
}

// OnUpdate calls UpdateFunc if it is set.
func (f TypedResourceEventHandlerDetailedFuncs[T]) OnUpdate(oldObj, newObj T) {
	if f.UpdateFunc != nil {
		f.UpdateFunc(oldObj, newObj)
	}
}

// OnDelete calls DeleteFunc if it is set.
func (f TypedResourceEventHandlerDetailedFuncs[T]) OnDelete(obj DeletedObject[T]) {
	if f.DeleteFunc != nil {
		f.DeleteFunc(obj)
	}
}

// TypedFilteringResourceEventHandler passes to Handler only the
// notifications for objects FilterFunc accepts, translating updates as
// FilteringResourceEventHandler does (only the new object passes: OnAdd;
// only the old one: OnDelete with OptionalObj set and no tombstone).
// OnDelete filters on OptionalObj. FilterFunc must be a pure function of
// the object. Registering one with a nil FilterFunc or Handler is an error.
type TypedFilteringResourceEventHandler[T Object] struct {
	FilterFunc func(obj T) bool
	Handler    TypedResourceEventHandler[T]
}

func (f TypedFilteringResourceEventHandler[T]) validate() error {
	switch {
	case f.FilterFunc == nil:
		return errors.New("TypedFilteringResourceEventHandler with a nil FilterFunc")
	case f.Handler == nil:
		return errors.New("TypedFilteringResourceEventHandler with a nil Handler")
	}
	return nil
}

// OnAdd forwards obj if it passes the filter.
func (f TypedFilteringResourceEventHandler[T]) OnAdd(obj T, isInInitialList bool) {
	if f.FilterFunc(obj) {
		f.Handler.OnAdd(obj, isInInitialList)
	}
}

// OnUpdate forwards the update, translated as described on the type.
func (f TypedFilteringResourceEventHandler[T]) OnUpdate(oldObj, newObj T) {
	oldOK, newOK := f.FilterFunc(oldObj), f.FilterFunc(newObj)
	switch {
	case oldOK && newOK:
		f.Handler.OnUpdate(oldObj, newObj)
	case newOK:
		f.Handler.OnAdd(newObj, false)
	case oldOK:
		f.Handler.OnDelete(DeletedObject[T]{OptionalObj: oldObj})
	}
}

// OnDelete forwards obj if its OptionalObj passes the filter.
func (f TypedFilteringResourceEventHandler[T]) OnDelete(obj DeletedObject[T]) {
	if f.FilterFunc(obj.OptionalObj) {
		f.Handler.OnDelete(obj)
	}
}

// typedHandler runs a TypedResourceEventHandler as a ResourceEventHandler:
// OnDelete(obj, finalStateUnknown) becomes OnDelete(DeletedObject). It keeps
// the wrapped handler's name, its registration-time validation and, when
// the wrapped handler implements ScopeExitHandler, its scope exits.
type typedHandler[T Object] struct {
	h TypedResourceEventHandler[T]
}

func (a typedHandler[T]) OnAdd(obj T, isInInitialList bool) { a.h.OnAdd(obj, isInInitialList) }

func (a typedHandler[T]) OnUpdate(oldObj, newObj T) { a.h.OnUpdate(oldObj, newObj) }

func (a typedHandler[T]) OnDelete(obj T, finalStateUnknown bool) {
	a.h.OnDelete(deletedObject(obj, finalStateUnknown))
}

// OnScopeExit hands a scope exit to the wrapped handler's OnScopeExit if it
// has one, else to its OnDelete with a tombstone.
func (a typedHandler[T]) OnScopeExit(obj T) {
	if s, ok := a.h.(ScopeExitHandler[T]); ok {
		s.OnScopeExit(obj)
		return
	}
	a.h.OnDelete(deletedObject(obj, true))
}

// HandlerName names the adapter after the wrapped handler.
func (a typedHandler[T]) HandlerName() string { return processor.HandlerName(a.h) }

func (a typedHandler[T]) validate() error {
	if v, ok := a.h.(interface{ validate() error }); ok {
		return v.validate()
	}
	return nil
}

// OnScopeExit forwards a scope exit of an object that passes the filter:
// to Handler's OnScopeExit if it implements ScopeExitHandler, else to its
// OnDelete with a tombstone.
func (f TypedFilteringResourceEventHandler[T]) OnScopeExit(obj T) {
	if f.FilterFunc(obj) {
		typedHandler[T]{f.Handler}.OnScopeExit(obj)
	}
}
