package controller

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/typedinformer/typedinformer/internal/testutil"
	"github.com/typedinformer/typedinformer/runtime/cache"
	"github.com/typedinformer/typedinformer/runtime/fake"
	"github.com/typedinformer/typedinformer/runtime/sharding"
)

// fakeRing is a ShardRing whose Held the test sets; like sharding.Ring it
// calls the drainers after Held shrank and returns when they did.
type fakeRing struct {
	held *sharding.Scope

	mu       sync.Mutex
	drainers []sharding.Drainer
}

func newFakeRing(t *testing.T, field sharding.Field, ranges ...sharding.Range) *fakeRing {
	s, err := sharding.NewScope(field, ranges)
	if err != nil {
		t.Fatal(err)
	}
	return &fakeRing{held: s}
}

func (f *fakeRing) Held() *sharding.Scope              { return f.held }
func (f *fakeRing) OwnsNow(namespace, uid string) bool { return f.held.Owns(namespace, uid) }
func (f *fakeRing) AddDrainer(d sharding.Drainer) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.drainers = append(f.drainers, d)
}

// set replaces Held and drains.
func (f *fakeRing) set(ranges ...sharding.Range) error {
	if err := f.held.Set(ranges); err != nil {
		return err
	}
	f.mu.Lock()
	ds := append([]sharding.Drainer(nil), f.drainers...)
	f.mu.Unlock()
	for _, d := range ds {
		if err := d.Drain(context.Background(), ranges, false); err != nil {
			return err
		}
	}
	return nil
}

var lowHalf = sharding.Range{First: 0, Last: math.MaxUint64 / 2}

// shardedFixture is a controller in sharded mode (uid field) over 40
// ConfigMaps of a fake server with uids uid-0..uid-39.
type shardedFixture struct {
	srv      *fake.Server[*corev1.ConfigMap]
	informer cache.SharedIndexInformer[*corev1.ConfigMap]
	ring     *fakeRing
	c        *Controller
	rec      *recorder
	reqs     []Request
	uids     map[Request]string
}

func newShardedFixture(t *testing.T, r func(*recorder) Reconciler, workers int, held ...sharding.Range) *shardedFixture {
	t.Helper()
	f := &shardedFixture{rec: newRecorder(), uids: map[Request]string{}}
	rng := rand.New(rand.NewPCG(22, 1))
	f.srv = fake.NewServer[*corev1.ConfigMap](fake.WithResource(schema.GroupResource{Resource: "configmaps"}))
	for i := range 40 {
		cm := configMap(fmt.Sprintf("ns-%d", i%4), fmt.Sprintf("cm-%d", i))
		// Random-looking uids: FNV-1a clusters strings that differ only
		// in their last byte, such as uid-1, uid-2.
		cm.UID = types.UID(fmt.Sprintf("%016x-%d", rng.Uint64(), i))
		if _, err := f.srv.Create(cm); err != nil {
			t.Fatal(err)
		}
		req := RequestFor(cm)
		f.reqs = append(f.reqs, req)
		f.uids[req] = string(cm.UID)
	}
	f.informer = cache.NewSharedIndexInformerWithOptions[*corev1.ConfigMap](f.srv.ListerWatcher(""), cache.SharedIndexInformerOptions[*corev1.ConfigMap]{Name: "configmaps"})
	f.ring = newFakeRing(t, sharding.FieldUID, held...)
	var rc Reconciler = f.rec
	if r != nil {
		rc = r(f.rec)
	}
	c, err := New("sharded", rc, Options{MaxConcurrentReconciles: workers, Sharding: ShardingFor[*corev1.ConfigMap](f.ring, f.informer)})
	if err != nil {
		t.Fatal(err)
	}
	f.c = c
	if err := Watch(c, f.informer, EnqueueRequestForObject[*corev1.ConfigMap]()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go f.informer.Run(ctx)
	startController(t, c)
	return f
}

// in reports whether req's uid hashes into ranges.
func (f *shardedFixture) in(req Request, ranges ...sharding.Range) bool {
	return sharding.Contains(ranges, sharding.Hash(f.uids[req]))
}

func TestShardedReconcilesOnlyHeldKeys(t *testing.T) {
	f := newShardedFixture(t, nil, 2, lowHalf)
	var owned, other []Request
	for _, req := range f.reqs {
		if f.in(req, lowHalf) {
			owned = append(owned, req)
		} else {
			other = append(other, req)
		}
	}
	if len(owned) == 0 || len(other) == 0 {
		t.Fatalf("fixture: %d owned, %d not: want both", len(owned), len(other))
	}
	testutil.Eventually(t, "every owned key reconciled", func() bool {
		for _, req := range owned {
			if f.rec.count(req) == 0 {
				return false
			}
		}
		return true
	})
	// Updates of every object, and direct adds (also of an unknown key),
	// reach the reconciler only for owned keys.
	for _, req := range f.reqs {
		cm, err := f.srv.Get(req.Namespace, req.Name)
		if err != nil {
			t.Fatal(err)
		}
		cm = cm.DeepCopy()
		cm.Data = map[string]string{"v": "2"}
		if _, err := f.srv.Update(cm); err != nil {
			t.Fatal(err)
		}
		f.c.Queue().Add(req)
	}
	f.c.Queue().Add(Request{Namespace: "ns-0", Name: "never-seen"})
	testutil.Eventually(t, "every owned key reconciled again", func() bool {
		for _, req := range owned {
			if f.rec.count(req) < 2 {
				return false
			}
		}
		return true
	})
	for _, req := range append(other, Request{Namespace: "ns-0", Name: "never-seen"}) {
		if n := f.rec.count(req); n != 0 {
			t.Errorf("%s is outside the held ranges but was reconciled %d times", req, n)
		}
	}
}

func TestShardedAcquiredRangeEnqueuesEveryCachedObject(t *testing.T) {
	f := newShardedFixture(t, nil, 2) // holds nothing
	testutil.Eventually(t, "cache synced", func() bool { return len(f.informer.GetIndexer().List()) == len(f.reqs) })
	if err := f.ring.set(lowHalf); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, "every key of the acquired half reconciled", func() bool {
		for _, req := range f.reqs {
			if f.in(req, lowHalf) && f.rec.count(req) == 0 {
				return false
			}
		}
		return true
	})
	if err := f.ring.set(sharding.Full()); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, "every key reconciled", func() bool {
		for _, req := range f.reqs {
			if f.rec.count(req) == 0 {
				return false
			}
		}
		return true
	})
	for _, req := range f.reqs {
		// The low half was acquired once, the high half once: no key of
		// the low half is swept again when the high half arrives.
		if n := f.rec.count(req); n != 1 {
			t.Errorf("%s reconciled %d times, want once", req, n)
		}
	}
}

// blocker holds the reconciles of chosen requests until they are
// released, and reports each one it holds on started.
type blocker struct {
	mu      sync.Mutex
	blocked map[Request]chan struct{}
	started chan Request
}

func newBlocker() *blocker {
	return &blocker{blocked: map[Request]chan struct{}{}, started: make(chan Request, 100)}
}

// block makes every later reconcile of req wait until the returned
// function is called (which the test's cleanup also does, once).
func (b *blocker) block(t *testing.T, req Request) (unblock func()) {
	ch := make(chan struct{})
	b.mu.Lock()
	b.blocked[req] = ch
	b.mu.Unlock()
	var once sync.Once
	unblock = func() { once.Do(func() { close(ch) }) }
	t.Cleanup(unblock)
	return unblock
}

// wrap returns a Reconciler that waits for blocked requests, then calls rec.
func (b *blocker) wrap(rec *recorder) Reconciler {
	return ReconcilerFunc(func(ctx context.Context, req Request) (Result, error) {
		b.mu.Lock()
		ch := b.blocked[req]
		b.mu.Unlock()
		if ch != nil {
			b.started <- req
			<-ch
		}
		return rec.Reconcile(ctx, req)
	})
}

func TestShardedReleaseWaitsForInFlightReconciles(t *testing.T) {
	b := newBlocker()
	// The key to release, blocked in its reconcile, and a key that stays.
	var lost, kept Request
	pre := newShardedFixture(t, nil, 1) // only to learn the uids
	for _, req := range pre.reqs {
		if pre.in(req, lowHalf) {
			kept = req
		} else {
			lost = req
		}
	}
	unblock := b.block(t, lost)
	f := newShardedFixture(t, b.wrap, 2, sharding.Full())
	if got := <-b.started; got != lost {
		t.Fatalf("blocked reconcile of %s, want %s", got, lost)
	}
	waiting := make(chan struct{})
	var waitOnce sync.Once
	f.c.shard.mu.Lock()
	f.c.shard.onWait = func() { waitOnce.Do(func() { close(waiting) }) }
	f.c.shard.mu.Unlock()
	released := make(chan error, 1)
	go func() { released <- f.ring.set(lowHalf) }()
	select {
	case err := <-released:
		t.Fatalf("release returned (%v) while a reconcile of a released key was in flight", err)
	case <-waiting:
	}
	// Meanwhile the kept half keeps being reconciled.
	before := f.rec.count(kept)
	f.c.Queue().Add(kept)
	testutil.Eventually(t, "a kept key reconciled during the release", func() bool { return f.rec.count(kept) > before })
	unblock()
	if err := <-released; err != nil {
		t.Fatal(err)
	}
	if n := f.rec.count(lost); n != 1 {
		t.Fatalf("the released key was reconciled %d times, want the one in flight", n)
	}
}

func TestShardedAbandonCancelsInFlightReconciles(t *testing.T) {
	started := make(chan struct{}, 100)
	wrap := func(rec *recorder) Reconciler {
		return ReconcilerFunc(func(ctx context.Context, req Request) (Result, error) {
			started <- struct{}{}
			<-ctx.Done()
			return rec.Reconcile(ctx, req)
		})
	}
	f := newShardedFixture(t, wrap, 1, sharding.Full())
	<-started
	if err := f.ring.held.Set(nil); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := f.c.shard.Drain(ctx, nil, true); err != nil {
		t.Fatalf("abandoning did not end the in-flight reconcile: %v", err)
	}
}

func TestShardedDropsQueuedKeysOfALostRangeAtDequeue(t *testing.T) {
	b := newBlocker()
	f := newShardedFixture(t, b.wrap, 1, sharding.Full())
	testutil.Eventually(t, "every key reconciled once", func() bool {
		for _, req := range f.reqs {
			if f.rec.count(req) == 0 {
				return false
			}
		}
		return true
	})
	var kept, other, lost Request
	for _, req := range f.reqs {
		switch {
		case !f.in(req, lowHalf):
			lost = req
		case kept == Request{}:
			kept = req
		default:
			other = req
		}
	}
	unblock := b.block(t, kept)
	f.c.Queue().Add(kept)
	<-b.started
	f.c.Queue().Add(lost) // queued behind the only worker
	if err := f.ring.set(lowHalf); err != nil {
		t.Fatal(err)
	}
	unblock()
	f.c.Queue().Add(other) // queued after lost: once it ran, lost was dequeued
	testutil.Eventually(t, "a kept key queued after the lost one reconciled", func() bool { return f.rec.count(other) == 2 })
	if n := f.rec.count(lost); n != 1 {
		t.Fatalf("a key queued before its range was lost was reconciled %d times after the initial one", n-1)
	}
}

// TestShardedDeleteReachesTheOwner checks that the delete of an owned
// object is reconciled although the object, and so its uid, left the
// cache before the Request was enqueued; a deleted object of another
// replica is not.
func TestShardedDeleteReachesTheOwner(t *testing.T) {
	f := newShardedFixture(t, nil, 1, lowHalf)
	var owned, other Request
	for _, req := range f.reqs {
		if f.in(req, lowHalf) {
			owned = req
		} else {
			other = req
		}
	}
	testutil.Eventually(t, "the owned key reconciled", func() bool { return f.rec.count(owned) == 1 })
	for _, req := range []Request{other, owned} {
		if err := f.srv.Delete(req.Namespace, req.Name); err != nil {
			t.Fatal(err)
		}
	}
	testutil.Eventually(t, "the owned key's delete reconciled", func() bool { return f.rec.count(owned) == 2 })
	if n := f.rec.count(other); n != 0 {
		t.Fatalf("another replica's deleted object was reconciled %d times", n)
	}
	// The recorder counts inside Reconcile; the uid is forgotten when the
	// reconcile has returned, a moment later.
	testutil.Eventually(t, "the uid of the deleted, reconciled key forgotten", func() bool {
		f.c.shard.mu.Lock()
		defer f.c.shard.mu.Unlock()
		_, remembered := f.c.shard.uids[owned]
		return !remembered
	})
}

// TestShardedSweepFindsARangeLostAndRegainedBetweenSweeps checks that a
// range Held loses and gets back before the sweeper looks (a fence and a
// renewal in quick succession) is swept again: adds of its keys were
// dropped while it was gone, so every cached object in it is enqueued.
func TestShardedSweepFindsARangeLostAndRegainedBetweenSweeps(t *testing.T) {
	srv := fake.NewServer[*corev1.ConfigMap](fake.WithResource(schema.GroupResource{Resource: "configmaps"}))
	for i := range 10 {
		cm := configMap("ns", fmt.Sprintf("cm-%d", i))
		cm.UID = types.UID(fmt.Sprintf("uid-%d", i))
		if _, err := srv.Create(cm); err != nil {
			t.Fatal(err)
		}
	}
	informer := cache.NewSharedIndexInformerWithOptions[*corev1.ConfigMap](srv.ListerWatcher(""), cache.SharedIndexInformerOptions[*corev1.ConfigMap]{Name: "configmaps"})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go informer.Run(ctx)
	testutil.Eventually(t, "cache synced", func() bool { return len(informer.GetIndexer().List()) == 10 })
	ring := newFakeRing(t, sharding.FieldUID, sharding.Full())
	c, err := New("sweep", newRecorder(), Options{Sharding: ShardingFor[*corev1.ConfigMap](ring, informer)})
	if err != nil {
		t.Fatal(err)
	}
	defer c.queue.ShutDown()
	// The sweeper's view: Held as of before the fence. It does not run
	// between the two changes below.
	c.shard.snapshotHeld()
	for _, held := range [][]sharding.Range{nil, {sharding.Full()}} {
		if err := ring.held.Set(held); err != nil {
			t.Fatal(err)
		}
	}
	c.shard.sweepOnce()
	if n := c.queue.Len(); n != 10 {
		t.Fatalf("the sweep enqueued %d objects of the regained range, want all 10", n)
	}
}
