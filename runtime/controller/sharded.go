package controller

import (
	"context"
	"sync"
	"time"

	"github.com/typedinformer/typedinformer/runtime/cache"
	"github.com/typedinformer/typedinformer/runtime/sharding"
	"github.com/typedinformer/typedinformer/runtime/workqueue"
)

// ShardRing is what a controller's sharded mode needs from a ring of
// replicas; *sharding.Ring implements it.
type ShardRing interface {
	// Held is the set of ranges the replica holds; the controller enqueues
	// every cached object of a range when it is added.
	Held() *sharding.Scope
	// OwnsNow reports whether work on the object with this namespace and
	// uid may start now.
	OwnsNow(namespace, uid string) bool
	// AddDrainer registers the controller, which is told when Held shrinks
	// and returns once its reconciles of keys outside Held have finished.
	AddDrainer(d sharding.Drainer)
}

// ShardKey is a cached object as the sharded mode sees it: its Request and
// its uid.
type ShardKey struct {
	// Request names the object.
	Request Request
	// UID is the object's metadata.uid.
	UID string
}

// Sharding turns on a controller's sharded mode (Options.Sharding): the
// controller reconciles only the keys of the ranges Ring holds. Build it
// with ShardingFor.
//
// Contract: a Request is enqueued only if the ring owns it at that moment,
// and dropped at dequeue if the ring no longer owns it; when Held gains a
// range, every cached object in it (from List) is enqueued; when Held
// shrinks, the ring's release waits until the reconciles of keys outside
// the new Held have returned (the ring cancels their context when it lost
// its Lease, or when they are still running a Lease duration after the
// release began). Request carries no uid, so with sharding.FieldUID the
// controller asks UID at enqueue time and remembers the answer until a
// reconcile of the key finds the object gone from the cache: a Request
// whose uid was never known (an object deleted before this replica saw it)
// is dropped.
type Sharding struct {
	// Ring decides ownership. Required.
	Ring ShardRing
	// UID returns the uid of the cached object req names, false if the
	// cache does not hold it. Required for sharding.FieldUID.
	UID func(req Request) (string, bool)
	// List returns every cached object. Required.
	List func() []ShardKey
}

// ShardingFor returns the sharded mode of a controller whose Requests name
// objects of informer (its primary type): uids and the sweep of acquired
// ranges come from informer's cache.
func ShardingFor[T cache.Object](ring ShardRing, informer cache.SharedIndexInformer[T]) *Sharding {
	return &Sharding{
		Ring: ring,
		UID: func(req Request) (string, bool) {
			obj, ok, err := informer.GetIndexer().GetByKey(req.String())
			if err != nil || !ok {
				return "", false
			}
			return string(obj.GetUID()), true
		},
		List: func() []ShardKey {
			objs := informer.GetIndexer().List()
			out := make([]ShardKey, 0, len(objs))
			for _, o := range objs {
				out = append(out, ShardKey{Request: RequestFor(o), UID: string(o.GetUID())})
			}
			return out
		},
	}
}

// sharded is the state of a controller's sharded mode.
type sharded struct {
	c     *Controller
	cfg   Sharding
	field sharding.Field

	mu sync.Mutex
	// uids remembers the uid of keys seen in the cache (FieldUID only).
	uids     map[Request]string
	inflight map[Request]inflight
	// finished is closed and replaced whenever a reconcile ends.
	finished chan struct{}
	// gen is the generation of Held the sweeper last acted on.
	gen uint64
	// onWait, if set, is called each time Drain blocks (tests).
	onWait func()
}

type inflight struct {
	hash   uint64
	cancel context.CancelFunc
}

func newSharded(c *Controller, cfg *Sharding) *sharded {
	return &sharded{
		c: c, cfg: *cfg, field: cfg.Ring.Held().Field(),
		uids:     map[Request]string{},
		inflight: map[Request]inflight{},
		finished: make(chan struct{}),
	}
}

// uidOf returns the uid of req's object, from the cache or from memory.
func (s *sharded) uidOf(req Request) (string, bool) {
	if s.field != sharding.FieldUID {
		return "", true
	}
	if uid, ok := s.cfg.UID(req); ok {
		s.mu.Lock()
		s.uids[req] = uid
		s.mu.Unlock()
		return uid, true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	uid, ok := s.uids[req]
	return uid, ok
}

// owns reports whether req may be queued or started now.
func (s *sharded) owns(req Request) (uint64, bool) {
	uid, ok := s.uidOf(req)
	if !ok {
		return 0, false
	}
	return sharding.Hash(s.field.Value(req.Namespace, uid)), s.cfg.Ring.OwnsNow(req.Namespace, uid)
}

// begin is called by a worker before reconciling req. Checking ownership
// and recording the reconcile under one lock means a Drain that starts
// after Held shrank sees every reconcile that passed the check.
func (s *sharded) begin(ctx context.Context, req Request) (context.Context, bool) {
	uid, known := s.uidOf(req)
	s.mu.Lock()
	defer s.mu.Unlock()
	if !known || !s.cfg.Ring.OwnsNow(req.Namespace, uid) {
		return nil, false
	}
	ctx, cancel := context.WithCancel(ctx)
	s.inflight[req] = inflight{hash: sharding.Hash(s.field.Value(req.Namespace, uid)), cancel: cancel}
	return ctx, true
}

// end is called when the reconcile of req returned.
func (s *sharded) end(req Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f, ok := s.inflight[req]; ok {
		f.cancel()
		delete(s.inflight, req)
	}
	if s.field == sharding.FieldUID {
		if _, cached := s.cfg.UID(req); !cached {
			delete(s.uids, req) // the object is gone: forget its uid
		}
	}
	close(s.finished)
	s.finished = make(chan struct{})
}

// forget drops the remembered uid of req, whose object left the cache
// without being deleted.
func (s *sharded) forget(req Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, running := s.inflight[req]; !running {
		delete(s.uids, req)
	}
}

// Drain implements sharding.Drainer: it returns once no reconcile of a key
// outside held is running, cancelling them first when abandon is set.
func (s *sharded) Drain(ctx context.Context, held []sharding.Range, abandon bool) error {
	for {
		s.mu.Lock()
		busy := 0
		for _, f := range s.inflight {
			if !sharding.Contains(held, f.hash) {
				busy++
				if abandon {
					f.cancel()
				}
			}
		}
		wait := s.finished
		s.mu.Unlock()
		if busy == 0 {
			return nil
		}
		s.c.logger.V(2).Info("Waiting for reconciles of released ranges", "count", busy)
		if s.onWait != nil {
			s.onWait()
		}
		select {
		case <-wait:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// snapshotHeld records Held before any handler is registered, so that the
// sweeper enqueues the cached objects of every range gained afterwards.
func (s *sharded) snapshotHeld() {
	_, s.gen, _ = s.cfg.Ring.Held().Snapshot()
}

// sweepOnce enqueues the cached objects of the ranges Held gained since the
// last sweep (or since snapshotHeld) and returns the channel that is closed
// at Held's next change. A range lost and regained between two sweeps (a
// fence and a renewal) counts as gained: events of its keys were dropped
// while it was gone. Start runs the first sweep before any worker, so
// that a key both a late handler event and the sweep enqueue is still
// queued the second time and de-duplicated, not reconciled twice.
func (s *sharded) sweepOnce() <-chan struct{} {
	_, gained, gen, changed := s.cfg.Ring.Held().SnapshotSince(s.gen)
	if gen != s.gen {
		if len(gained) > 0 {
			n := 0
			for _, k := range s.cfg.List() {
				if sharding.Contains(gained, sharding.Hash(s.field.Value(k.Request.Namespace, k.UID))) {
					s.c.queue.AddWithOpts(workqueue.AddOpts{Priority: workqueue.PriorityLow}, k.Request)
					n++
				}
			}
			s.c.logger.V(2).Info("Acquired ranges; enqueued their cached objects", "space", sharding.SpaceOf(gained), "objects", n)
		}
		s.gen = gen
	}
	return changed
}

// sweep runs sweepOnce at every change of Held, starting with changed (what
// the first sweepOnce returned), until ctx ends.
func (s *sharded) sweep(ctx context.Context, changed <-chan struct{}) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-changed:
		}
		changed = s.sweepOnce()
	}
}

// shardQueue is the controller's queue in sharded mode: adds of Requests
// the ring does not own are dropped.
type shardQueue struct {
	Queue
	s *sharded
}

func (q shardQueue) keep(items []Request) []Request {
	var out []Request
	for _, r := range items {
		if _, ok := q.s.owns(r); ok {
			out = append(out, r)
		}
	}
	return out
}

func (q shardQueue) Add(r Request) {
	if _, ok := q.s.owns(r); ok {
		q.Queue.Add(r)
	}
}

func (q shardQueue) AddAfter(r Request, d time.Duration) {
	if _, ok := q.s.owns(r); ok {
		q.Queue.AddAfter(r, d)
	}
}

func (q shardQueue) AddRateLimited(r Request) {
	if _, ok := q.s.owns(r); ok {
		q.Queue.AddRateLimited(r)
	}
}

func (q shardQueue) AddWithOpts(o workqueue.AddOpts, items ...Request) {
	if kept := q.keep(items); len(kept) > 0 {
		q.Queue.AddWithOpts(o, kept...)
	}
}
