package controller

import (
	"maps"

	"github.com/typedinformer/typedinformer/runtime/cache"
)

// Predicate filters events before they reach a Watch's handler: an event is
// handled only if every predicate returns true. Predicates must be pure
// functions of the event and must not mutate the objects.
type Predicate[T cache.Object] interface {
	// Create reports whether an add should be handled.
	Create(e CreateEvent[T]) bool
	// Update reports whether an update should be handled.
	Update(e UpdateEvent[T]) bool
	// Delete reports whether a delete should be handled.
	Delete(e DeleteEvent[T]) bool
}

// PredicateFuncs is a Predicate made of optional functions; a nil function
// lets that kind of event through.
type PredicateFuncs[T cache.Object] struct {
	CreateFunc func(e CreateEvent[T]) bool
	UpdateFunc func(e UpdateEvent[T]) bool
	DeleteFunc func(e DeleteEvent[T]) bool
}

// Create calls CreateFunc, or returns true.
func (p PredicateFuncs[T]) Create(e CreateEvent[T]) bool {
	return p.CreateFunc == nil || p.CreateFunc(e)
}

// Update calls UpdateFunc, or returns true.
func (p PredicateFuncs[T]) Update(e UpdateEvent[T]) bool {
	return p.UpdateFunc == nil || p.UpdateFunc(e)
}

// Delete calls DeleteFunc, or returns true.
func (p PredicateFuncs[T]) Delete(e DeleteEvent[T]) bool {
	return p.DeleteFunc == nil || p.DeleteFunc(e)
}

// NewPredicateFuncs returns a predicate that applies filter to the object of
// every event (the new object of an update).
func NewPredicateFuncs[T cache.Object](filter func(obj T) bool) Predicate[T] {
	return PredicateFuncs[T]{
		CreateFunc: func(e CreateEvent[T]) bool { return filter(e.Object) },
		UpdateFunc: func(e UpdateEvent[T]) bool { return filter(e.ObjectNew) },
		DeleteFunc: func(e DeleteEvent[T]) bool { return filter(e.Object) },
	}
}

// GenerationChangedPredicate lets through updates that change
// metadata.generation (spec changes, for resources with a status
// subresource), and every create and delete. Resyncs and status-only
// updates are dropped.
func GenerationChangedPredicate[T cache.Object]() Predicate[T] {
	return PredicateFuncs[T]{UpdateFunc: func(e UpdateEvent[T]) bool {
		return e.ObjectOld.GetGeneration() != e.ObjectNew.GetGeneration()
	}}
}

// ResourceVersionChangedPredicate lets through updates whose
// resourceVersion changed (dropping resyncs), and every create and delete.
func ResourceVersionChangedPredicate[T cache.Object]() Predicate[T] {
	return PredicateFuncs[T]{UpdateFunc: func(e UpdateEvent[T]) bool {
		return e.ObjectOld.GetResourceVersion() != e.ObjectNew.GetResourceVersion()
	}}
}

// LabelChangedPredicate lets through updates that change labels, and every
// create and delete.
func LabelChangedPredicate[T cache.Object]() Predicate[T] {
	return PredicateFuncs[T]{UpdateFunc: func(e UpdateEvent[T]) bool {
		return !maps.Equal(e.ObjectOld.GetLabels(), e.ObjectNew.GetLabels())
	}}
}

// AnnotationChangedPredicate lets through updates that change annotations,
// and every create and delete.
func AnnotationChangedPredicate[T cache.Object]() Predicate[T] {
	return PredicateFuncs[T]{UpdateFunc: func(e UpdateEvent[T]) bool {
		return !maps.Equal(e.ObjectOld.GetAnnotations(), e.ObjectNew.GetAnnotations())
	}}
}

// Or lets an event through if any of ps does.
func Or[T cache.Object](ps ...Predicate[T]) Predicate[T] {
	anyOf := func(f func(Predicate[T]) bool) bool {
		for _, p := range ps {
			if f(p) {
				return true
			}
		}
		return false
	}
	return PredicateFuncs[T]{
		CreateFunc: func(e CreateEvent[T]) bool { return anyOf(func(p Predicate[T]) bool { return p.Create(e) }) },
		UpdateFunc: func(e UpdateEvent[T]) bool { return anyOf(func(p Predicate[T]) bool { return p.Update(e) }) },
		DeleteFunc: func(e DeleteEvent[T]) bool { return anyOf(func(p Predicate[T]) bool { return p.Delete(e) }) },
	}
}

// Not inverts p.
func Not[T cache.Object](p Predicate[T]) Predicate[T] {
	return PredicateFuncs[T]{
		CreateFunc: func(e CreateEvent[T]) bool { return !p.Create(e) },
		UpdateFunc: func(e UpdateEvent[T]) bool { return !p.Update(e) },
		DeleteFunc: func(e DeleteEvent[T]) bool { return !p.Delete(e) },
	}
}
