package cache

import (
	"context"
	"errors"
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
// One tracker serves every client and informer of a program; it holds no
// goroutine. Writes are matched to informers by group and resource
// (Wrote's resource and the informers' SharedIndexInformerOptions.Resource),
// so the version a client writes through does not matter. A tracker relies
// on resourceVersions being decimal integers, as kube-apiserver's are; a
// write whose resourceVersion is not one is not waited for.
type WriteTracker struct {
	timeout time.Duration
	waited  HistogramMetric

	// mu guards gates; it is a leaf, released before a write is handed to
	// the gates.
	mu    sync.Mutex
	gates map[schema.GroupResource][]writeObserver
}

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
}

// NewWriteTracker returns a tracker without informers.
func NewWriteTracker(opts WriteTrackerOptions) *WriteTracker {
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultWriteWaitTimeout
	}
	return &WriteTracker{timeout: opts.Timeout, waited: opts.WaitDuration, gates: map[schema.GroupResource][]writeObserver{}}
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
// object it selects is.
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
	for _, g := range t.observers(resource) {
		g.wrote(k, rv, obj.GetUID(), obj.GetLabels())
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
	for _, g := range t.observers(resource) {
		g.deleted(k, uid)
	}
}

// observers returns the gates of resource's informers.
func (t *WriteTracker) observers(resource schema.GroupResource) []writeObserver {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.gates[resource]
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
