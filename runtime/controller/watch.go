package controller

import (
	"context"
	"fmt"

	"github.com/typedinformer/typedinformer/runtime/cache"
	"github.com/typedinformer/typedinformer/runtime/workqueue"
)

// Queue is what event handlers add Requests to.
type Queue = workqueue.TypedPriorityInterface[Request]

// CreateEvent is an object added to an informer's cache.
type CreateEvent[T cache.Object] struct {
	Object T
	// IsInInitialList is true for objects of the informer's initial list
	// (and for the cache replayed to a handler registered late).
	IsInInitialList bool
}

// UpdateEvent is an object that changed (or a resync).
type UpdateEvent[T cache.Object] struct {
	ObjectOld, ObjectNew T
}

// DeleteEvent is an object removed from an informer's cache.
type DeleteEvent[T cache.Object] struct {
	Object T
	// DeleteStateUnknown is true when the informer missed the delete and
	// Object is the last state it knew.
	DeleteStateUnknown bool
}

// EventHandler turns informer events into Requests on a queue. Its methods
// are called one event at a time per watch, never concurrently, and must
// not mutate the objects.
type EventHandler[T cache.Object] interface {
	// Create enqueues the requests an add maps to.
	Create(ctx context.Context, e CreateEvent[T], q Queue)
	// Update enqueues the requests an update maps to.
	Update(ctx context.Context, e UpdateEvent[T], q Queue)
	// Delete enqueues the requests a delete maps to.
	Delete(ctx context.Context, e DeleteEvent[T], q Queue)
}

// Watch wires informer to c: after Start registers it, each event that
// passes every predicate goes to handler, which enqueues Requests. Events
// of the initial list reach the queue at workqueue.PriorityLow unless
// Options.PrioritizeLiveEvents is false. Start waits for informer to sync
// (the caller starts the informer).
//
// Watch may be called before Start (the usual case) or after it; a watch
// added after Start is registered at once and not waited for.
func Watch[T cache.Object](c *Controller, informer cache.SharedIndexInformer[T], handler EventHandler[T], predicates ...Predicate[T]) error {
	if informer == nil || handler == nil {
		return fmt.Errorf("controller %q: Watch needs an informer and a handler", c.name)
	}
	w := watch{start: func(ctx context.Context) (cache.Syncer, func(), error) {
		a := &adapter[T]{ctx: ctx, c: c, handler: handler, predicates: predicates}
		reg, err := informer.AddEventHandler(a)
		if err != nil {
			return nil, nil, fmt.Errorf("registering a handler on informer %s: %w", informer.Name(), err)
		}
		s := &informerSyncer{reg: reg, informer: informer}
		stop := func() { _ = informer.RemoveEventHandler(reg) }
		return s, stop, nil
	}}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.started {
		c.watches = append(c.watches, w)
		return nil
	}
	if c.running == nil || c.running.Err() != nil {
		return fmt.Errorf("controller %q: Watch after the controller stopped", c.name)
	}
	_, stop, err := w.start(c.running)
	if err != nil {
		return fmt.Errorf("controller %q: %w", c.name, err)
	}
	go func() {
		<-c.running.Done()
		stop()
	}()
	return nil
}

// informerSyncer is what Start waits for: the registration has been handed
// every initial object. It names the informer and its last error for
// cache.WaitForSync's error.
type informerSyncer struct {
	reg      cache.ResourceEventHandlerRegistration
	informer cache.AnyInformer
}

func (s *informerSyncer) HasSynced() bool  { return s.reg.HasSynced() }
func (s *informerSyncer) Name() string     { return s.informer.Name() }
func (s *informerSyncer) LastError() error { return s.informer.LastError() }

// adapter is the cache.ResourceEventHandler a Watch registers.
type adapter[T cache.Object] struct {
	ctx        context.Context
	c          *Controller
	handler    EventHandler[T]
	predicates []Predicate[T]
}

func (a *adapter[T]) OnAdd(obj T, isInInitialList bool) {
	e := CreateEvent[T]{Object: obj, IsInInitialList: isInInitialList}
	for _, p := range a.predicates {
		if !p.Create(e) {
			return
		}
	}
	q := a.c.queue
	if isInInitialList && a.c.lowInitial {
		q = lowPriorityQueue{q}
	}
	a.handler.Create(a.ctx, e, q)
}

func (a *adapter[T]) OnUpdate(oldObj, newObj T) {
	e := UpdateEvent[T]{ObjectOld: oldObj, ObjectNew: newObj}
	for _, p := range a.predicates {
		if !p.Update(e) {
			return
		}
	}
	a.handler.Update(a.ctx, e, a.c.queue)
}

func (a *adapter[T]) OnDelete(obj T, finalStateUnknown bool) {
	e := DeleteEvent[T]{Object: obj, DeleteStateUnknown: finalStateUnknown}
	for _, p := range a.predicates {
		if !p.Delete(e) {
			return
		}
	}
	a.handler.Delete(a.ctx, e, a.c.queue)
}

// OnScopeExit is told of an object that left a sharded informer's scope
// (it moved to another replica, it was not deleted): no event reaches the
// handler, and the sharded mode forgets the key's uid.
func (a *adapter[T]) OnScopeExit(obj T) {
	if a.c.shard != nil {
		a.c.shard.forget(RequestFor(obj))
	}
}

// lowPriorityQueue is the queue handlers see for initial-list events: plain
// adds become adds at workqueue.PriorityLow.
type lowPriorityQueue struct {
	Queue
}

func (q lowPriorityQueue) Add(r Request) {
	q.Queue.AddWithOpts(workqueue.AddOpts{Priority: workqueue.PriorityLow}, r)
}

func (q lowPriorityQueue) AddWithOpts(o workqueue.AddOpts, items ...Request) {
	o.Priority = min(o.Priority, workqueue.PriorityLow)
	q.Queue.AddWithOpts(o, items...)
}
