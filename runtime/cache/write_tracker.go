package cache

import (
	"container/list"
	"context"
	"errors"
	"maps"
	"strconv"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/typedinformer/typedinformer/runtime/internal/keys"
)

// DefaultWriteWaitTimeout bounds a read's wait for the program's own writes
// when WriteTrackerOptions.Timeout is zero.
const DefaultWriteWaitTimeout = 10 * time.Second

// ErrWriteNotObserved is wrapped by the error a read returns when the
// informer's store did not reach the program's own write of the object read
// in time.
var ErrWriteNotObserved = errors.New("the informer has not yet observed this program's write")

// WriteTracker gives a program read-your-own-writes reads from its
// informers: after a write of an object through a client has returned and
// been recorded (Wrote, Deleted, or by a transport from WrapTransport), a
// read of that object through the lister of an informer the tracker is
// attached to (SetWriteTracker, or the informer factory's WithWriteTracker)
// returns that write or a newer version, and an object deleted by the
// program (by UID) is not returned again. The read waits until the
// informer's store has applied the write; reads of other objects, and reads
// while nothing written is pending, do not wait.
//
// Get through a lister waits for writes of the object it reads; List and
// index reads wait for every pending write the informer's selection may
// hold. A wait ends with an error wrapping ErrWriteNotObserved, naming the
// object and the resourceVersions, after WriteTrackerOptions.Timeout or when
// the caller's context ends (WriteWaiter).
//
// After an informer's selection changes, its reads also wait for the
// program's earlier writes of objects the new selection takes in, made
// while they were outside it, until its relist holds them (see
// WriteTrackerOptions.RecentWrites).
//
// One tracker serves every client and informer of a program; it holds no
// goroutine. Writes are matched to informers by group and resource
// (Wrote's resource and the informers' SharedIndexInformerOptions.Resource),
// so the version a client writes through does not matter. A tracker relies
// on resourceVersions being decimal integers, as kube-apiserver's are; a
// write whose resourceVersion is not one is not waited for.
type WriteTracker struct {
	timeout time.Duration
	waited  HistogramMetric

	// mu guards gates and recent; it is a leaf, released before a write
	// is handed to the gates.
	mu     sync.Mutex
	gates  map[schema.GroupResource][]writeObserver
	recent map[schema.GroupResource]*recentWrites
	keep   int // RecentWrites, defaulted
}

// DefaultRecentWrites is how many written objects of each resource a
// WriteTracker remembers for selection changes when
// WriteTrackerOptions.RecentWrites is zero.
const DefaultRecentWrites = 4096

// WriteTrackerOptions configures a WriteTracker.
type WriteTrackerOptions struct {
	// Timeout bounds how long a read without a deadline of its own (a
	// lister's Get or List) waits for a write; 0 means
	// DefaultWriteWaitTimeout.
	Timeout time.Duration
	// WaitDuration, when set, observes the seconds each read that had to
	// wait for a write spent waiting (timeouts included). Reads that did
	// not wait are not observed.
	WaitDuration HistogramMetric
	// RecentWrites is how many written objects of each resource (the
	// latest write of each, most recently written first) the tracker
	// remembers for informers whose selection changes: after a change
	// brings an object the program wrote into an informer's selection, a
	// read of it waits until the informer's relist holds that write,
	// although the write was made while the object was outside the
	// selection. Once a resource has had more written objects than this,
	// a selection change of its informers makes reads of objects their
	// store does not hold, and List and index reads, wait for the relist
	// instead. 0 means DefaultRecentWrites; a negative value remembers
	// none.
	RecentWrites int
}

// NewWriteTracker returns a tracker without informers.
func NewWriteTracker(opts WriteTrackerOptions) *WriteTracker {
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultWriteWaitTimeout
	}
	keep := opts.RecentWrites
	switch {
	case keep == 0:
		keep = DefaultRecentWrites
	case keep < 0:
		keep = 0
	}
	return &WriteTracker{
		timeout: opts.Timeout, waited: opts.WaitDuration, keep: keep,
		gates: map[schema.GroupResource][]writeObserver{}, recent: map[schema.GroupResource]*recentWrites{},
	}
}

// WriteWaiter is implemented by the Store and Indexer of an informer, and
// by runtime/informers' multi-namespace indexers. Listers call it before
// they read; code reading a store directly may too. Without a WriteTracker,
// or while no write is pending, both methods return at once.
type WriteWaiter interface {
	// WaitForWritesTo waits until the store holds the program's pending
	// writes of the object with store key key.
	WaitForWritesTo(ctx context.Context, key string) error
	// WaitForWrites waits until the store holds every pending write in the
	// informer's selection.
	WaitForWrites(ctx context.Context) error
}

// WriteScope is the part of an informer's selection its ListerWatcher
// applies by itself, fixed for the informer's life:
// a write of an object outside it (which the informer will never see) is
// not waited for, unless the store holds the object (the write may have
// moved it out, which the informer sees as a deletion). The informer's
// shard scope (SharedIndexInformerOptions.ShardScope) and its changeable
// selection (its own selectors and the Selections it follows, see
// SelectableInformer) are taken into account beside it, each with its
// value at the time of the write: after a selection change, a write of an
// object the new value does not select is not waited for, and one of an
// object it selects is, as are the program's writes made before the
// change of objects the new value selects (see
// WriteTrackerOptions.RecentWrites).
type WriteScope struct {
	// Namespace is the informer's namespace ("" for all).
	Namespace string
	// LabelSelector and FieldSelector are the informer's list options'.
	// Field selectors other than on metadata.name and metadata.namespace
	// cannot be decided on a written object: such writes are waited for.
	LabelSelector, FieldSelector string
}

// WriteTrackerSetter is implemented by this package's informers: it attaches
// a WriteTracker (see SharedIndexInformer's SetWriteTracker).
type WriteTrackerSetter interface {
	// SetWriteTracker attaches t (nil detaches) for an informer selecting
	// scope; it fails when the informer has no Resource to match writes
	// by, or when scope's selectors do not parse.
	SetWriteTracker(t *WriteTracker, scope WriteScope) error
}

// writeObserver is an informer's side of the tracker (a writeGate).
type writeObserver interface {
	wrote(k keys.Key, rv int64, uid types.UID, labels map[string]string)
	deleted(k keys.Key, uid types.UID)
}

// Wrote records a write of obj (the object a create, update, patch or apply
// through a client returned, or a delete that left the object in place
// with a deletionTimestamp) of the group and resource resource. Call it
// after the write returned and before the next read.
func (t *WriteTracker) Wrote(resource schema.GroupResource, obj metav1.Object) {
	if t == nil || obj == nil {
		return
	}
	rv, err := strconv.ParseInt(obj.GetResourceVersion(), 10, 64)
	if err != nil || rv <= 0 {
		return
	}
	k := keys.Key{Namespace: obj.GetNamespace(), Name: obj.GetName()}
	w := recentWrite{k: k, rv: rv, uid: obj.GetUID(), labels: maps.Clone(obj.GetLabels())}
	for _, g := range t.remember(resource, w) {
		g.wrote(k, rv, w.uid, w.labels)
	}
}

// Deleted records that the object namespace/name of resource was deleted
// (and is gone; see Wrote for a delete that left it in place). uid is the
// deleted object's UID; "" means the object the informer holds under that
// name now.
func (t *WriteTracker) Deleted(resource schema.GroupResource, namespace, name string, uid types.UID) {
	if t == nil {
		return
	}
	k := keys.Key{Namespace: namespace, Name: name}
	for _, g := range t.forget(resource, k, uid) {
		g.deleted(k, uid)
	}
}

// remember records w among resource's recent writes and returns the gates
// of resource's informers.
func (t *WriteTracker) remember(resource schema.GroupResource, w recentWrite) []writeObserver {
	t.mu.Lock()
	defer t.mu.Unlock()
	r := t.recent[resource]
	if r == nil {
		r = &recentWrites{byKey: map[keys.Key]*list.Element{}}
		t.recent[resource] = r
	}
	r.add(w, t.keep)
	return t.gates[resource]
}

// forget drops the recent write of k (when of UID uid, or any UID when
// uid is "": the object is gone, no relist will return it) and returns
// the gates of resource's informers.
func (t *WriteTracker) forget(resource schema.GroupResource, k keys.Key, uid types.UID) []writeObserver {
	t.mu.Lock()
	defer t.mu.Unlock()
	if r := t.recent[resource]; r != nil {
		r.remove(k, uid)
	}
	return t.gates[resource]
}

// recentWritesOf returns resource's recent writes, oldest first, and
// whether writes were forgotten for want of room.
func (t *WriteTracker) recentWritesOf(resource schema.GroupResource) ([]recentWrite, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	r := t.recent[resource]
	if r == nil {
		return nil, false
	}
	ws := make([]recentWrite, 0, r.order.Len())
	for e := r.order.Front(); e != nil; e = e.Next() {
		ws = append(ws, e.Value.(recentWrite))
	}
	return ws, r.lossy
}

// recentWrites is the latest write of each of a resource's most recently
// written objects.
type recentWrites struct {
	byKey map[keys.Key]*list.Element // of recentWrite, in order
	order list.List                  // oldest first
	// lossy: a write was dropped for want of room.
	lossy bool
}

// recentWrite is one write as Wrote recorded it.
type recentWrite struct {
	k      keys.Key
	rv     int64
	uid    types.UID
	labels map[string]string
}

// add records w, dropping the oldest entries beyond keep.
func (r *recentWrites) add(w recentWrite, keep int) {
	if e, ok := r.byKey[w.k]; ok {
		if prev := e.Value.(recentWrite); prev.rv > w.rv && prev.uid == w.uid {
			w.rv = prev.rv // an older write's result recorded late
		}
		e.Value = w
		r.order.MoveToBack(e)
	} else {
		r.byKey[w.k] = r.order.PushBack(w)
	}
	for r.order.Len() > keep {
		e := r.order.Front()
		delete(r.byKey, e.Value.(recentWrite).k)
		r.order.Remove(e)
		r.lossy = true
	}
}

// remove drops k's write when it is of uid ("": any).
func (r *recentWrites) remove(k keys.Key, uid types.UID) {
	e, ok := r.byKey[k]
	if !ok || (uid != "" && e.Value.(recentWrite).uid != uid) {
		return
	}
	delete(r.byKey, k)
	r.order.Remove(e)
}

// attach adds g for resource; detach removes it.
func (t *WriteTracker) attach(resource schema.GroupResource, g writeObserver) {
	t.mu.Lock()
	defer t.mu.Unlock()
	// A new slice: observers hands out the old one without the lock.
	gs := make([]writeObserver, 0, len(t.gates[resource])+1)
	t.gates[resource] = append(append(gs, t.gates[resource]...), g)
}

func (t *WriteTracker) detach(resource schema.GroupResource, g writeObserver) {
	t.mu.Lock()
	defer t.mu.Unlock()
	var gs []writeObserver
	for _, o := range t.gates[resource] {
		if o != g {
			gs = append(gs, o)
		}
	}
	if len(gs) == 0 {
		delete(t.gates, resource)
		return
	}
	t.gates[resource] = gs
}
