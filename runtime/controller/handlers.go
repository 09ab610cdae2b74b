package controller

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/typedinformer/typedinformer/runtime/cache"
)

// EnqueueRequestForObject returns a handler that enqueues the Request of the
// object itself for every event (for an update, of the new object; of the
// old one too if its key differs, which cannot happen for one informer).
func EnqueueRequestForObject[T cache.Object]() EventHandler[T] {
	return forObject[T]{}
}

type forObject[T cache.Object] struct{}

func (forObject[T]) Create(_ context.Context, e CreateEvent[T], q Queue) { q.Add(RequestFor(e.Object)) }
func (forObject[T]) Update(_ context.Context, e UpdateEvent[T], q Queue) {
	q.Add(RequestFor(e.ObjectNew))
	if o := RequestFor(e.ObjectOld); o != RequestFor(e.ObjectNew) {
		q.Add(o)
	}
}
func (forObject[T]) Delete(_ context.Context, e DeleteEvent[T], q Queue) { q.Add(RequestFor(e.Object)) }

// MapFunc maps an object to the Requests it should trigger. It must not
// mutate obj.
type MapFunc[T cache.Object] func(ctx context.Context, obj T) []Request

// EnqueueRequestsFromMapFunc returns a handler that enqueues fn(obj) for
// every event; for an update, fn of both the old and the new object (so a
// change that moves an object from one target to another reaches both),
// duplicates collapsing in the queue.
func EnqueueRequestsFromMapFunc[T cache.Object](fn MapFunc[T]) EventHandler[T] {
	return fromMapFunc[T]{fn: fn}
}

type fromMapFunc[T cache.Object] struct{ fn MapFunc[T] }

func (h fromMapFunc[T]) add(ctx context.Context, obj T, q Queue) {
	for _, r := range h.fn(ctx, obj) {
		q.Add(r)
	}
}

func (h fromMapFunc[T]) Create(ctx context.Context, e CreateEvent[T], q Queue) {
	h.add(ctx, e.Object, q)
}
func (h fromMapFunc[T]) Update(ctx context.Context, e UpdateEvent[T], q Queue) {
	h.add(ctx, e.ObjectOld, q)
	h.add(ctx, e.ObjectNew, q)
}
func (h fromMapFunc[T]) Delete(ctx context.Context, e DeleteEvent[T], q Queue) {
	h.add(ctx, e.Object, q)
}

// EnqueueRequestForOwner returns a handler that enqueues the owners of the
// object whose kind is owner (matched on the group of the owner reference's
// apiVersion, any version) — only the managing controller's reference when
// onlyController is set. Owners are looked up in the object's namespace
// (owner references cannot cross namespaces; for a cluster-scoped object
// the Request has no namespace). For an update, the owners of both the old
// and the new object are enqueued.
func EnqueueRequestForOwner[T cache.Object](owner schema.GroupKind, onlyController bool) EventHandler[T] {
	return fromMapFunc[T]{fn: func(_ context.Context, obj T) []Request {
		var out []Request
		for _, ref := range obj.GetOwnerReferences() {
			if onlyController && (ref.Controller == nil || !*ref.Controller) {
				continue
			}
			if ref.Kind != owner.Kind {
				continue
			}
			gv, err := schema.ParseGroupVersion(ref.APIVersion)
			if err != nil || gv.Group != owner.Group {
				continue
			}
			out = append(out, Request{Namespace: obj.GetNamespace(), Name: ref.Name})
		}
		return out
	}}
}

// Funcs is an EventHandler made of optional functions; a nil function
// ignores that kind of event.
type Funcs[T cache.Object] struct {
	CreateFunc func(ctx context.Context, e CreateEvent[T], q Queue)
	UpdateFunc func(ctx context.Context, e UpdateEvent[T], q Queue)
	DeleteFunc func(ctx context.Context, e DeleteEvent[T], q Queue)
}

// Create calls CreateFunc if set.
func (f Funcs[T]) Create(ctx context.Context, e CreateEvent[T], q Queue) {
	if f.CreateFunc != nil {
		f.CreateFunc(ctx, e, q)
	}
}

// Update calls UpdateFunc if set.
func (f Funcs[T]) Update(ctx context.Context, e UpdateEvent[T], q Queue) {
	if f.UpdateFunc != nil {
		f.UpdateFunc(ctx, e, q)
	}
}

// Delete calls DeleteFunc if set.
func (f Funcs[T]) Delete(ctx context.Context, e DeleteEvent[T], q Queue) {
	if f.DeleteFunc != nil {
		f.DeleteFunc(ctx, e, q)
	}
}
