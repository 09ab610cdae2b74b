package testutil

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Object is what the recorder and the builders need of an object: its
// metadata (key and resourceVersion). Every Kubernetes object type satisfies
// it; it is apimachinery's, not a project interface of its own.
type Object = metav1.Object

// Key returns obj's store key, "namespace/name", or "name" for a
// cluster-scoped object: the same key the runtime's stores use.
func Key[T Object](obj T) string { return keyFor(obj.GetNamespace(), obj.GetName()) }

func keyFor(ns, name string) string {
	if ns == "" {
		return name
	}
	return ns + "/" + name
}

// The kinds of handler call a Call records.
const (
	Add    = "add"
	Update = "update"
	Delete = "delete"
)

// Call is one ResourceEventHandler call as a Recorder saw it.
type Call struct {
	// Kind is Add, Update or Delete.
	Kind string
	// Key is the object's store key.
	Key string
	// RV is the resourceVersion of the object handed over (the new one for
	// an update).
	RV string
	// OldRV is an update's old object's resourceVersion.
	OldRV string
	// Initial is OnAdd's isInInitialList.
	Initial bool
	// Unknown is OnDelete's finalStateUnknown.
	Unknown bool
}

// Resync reports whether c is an update that changes nothing: old and new
// have the same resourceVersion, as a resync or a relist of an unchanged
// object delivers.
func (c Call) Resync() bool { return c.Kind == Update && c.OldRV == c.RV }

// String renders c as "add key@rv initial=b", "update key@old->new" or
// "delete key@rv unknown=b".
func (c Call) String() string {
	switch c.Kind {
	case Add:
		return fmt.Sprintf("add %s@%s initial=%t", c.Key, c.RV, c.Initial)
	case Update:
		return fmt.Sprintf("update %s@%s->%s", c.Key, c.OldRV, c.RV)
	}
	return fmt.Sprintf("delete %s@%s unknown=%t", c.Key, c.RV, c.Unknown)
}

// maxViolations is how many contradictions a Recorder describes; it counts
// all of them.
const maxViolations = 20

// Recorder is a ResourceEventHandler[T] for tests. It logs every call, and
// mirrors the objects into its own view built only from the calls, as a
// user's handler would mirror the cache. It records as a violation every
// call that contradicts the stream seen so far:
//
//   - an add of a key the view holds;
//   - an update or a delete of a key the view does not hold;
//   - an update whose old object is not the last one delivered for its key;
//   - a tombstone (finalStateUnknown) that is not the last object delivered;
//   - a resourceVersion lower than one delivered before for the same key
//     (also across a delete; tombstones and non-numeric versions are not
//     compared);
//   - any call after Stop.
//
// A Recorder never fails a test by itself: tests check Violations or Err.
// All methods are safe for concurrent use; Before must be set before the
// recorder receives its first call.
type Recorder[T Object] struct {
	// Before, if set, runs at the start of every call with the call's kind
	// and object, outside the recorder's lock: a test can block or slow the
	// handler with it.
	Before func(kind string, obj T)

	mu         sync.Mutex
	view       map[string]T
	log        []string
	calls      []Call
	lastRV     map[string]uint64
	violations []string
	nViolated  int
	tombstones int
	stopped    bool
}

// NewRecorder returns an empty Recorder.
func NewRecorder[T Object]() *Recorder[T] {
	return &Recorder[T]{view: map[string]T{}, lastRV: map[string]uint64{}}
}

func (r *Recorder[T]) violate(format string, args ...any) {
	r.nViolated++
	if len(r.violations) < maxViolations {
		r.violations = append(r.violations, fmt.Sprintf(format, args...))
	}
}

// record logs c and checks what every call must satisfy; r.mu is held.
func (r *Recorder[T]) record(c Call) {
	r.calls = append(r.calls, c)
	r.log = append(r.log, c.String())
	if r.stopped {
		r.violate("%s after the handler was removed", c)
	}
	if c.Kind == Delete && c.Unknown {
		r.tombstones++
		return // a tombstone carries the last known state, checked by OnDelete
	}
	rv, err := strconv.ParseUint(c.RV, 10, 64)
	if err != nil {
		return
	}
	if last, ok := r.lastRV[c.Key]; ok && rv < last {
		r.violate("%s: resourceVersion went back from %d to %d", c.Key, last, rv)
	}
	r.lastRV[c.Key] = max(r.lastRV[c.Key], rv)
}

// OnAdd implements ResourceEventHandler.
func (r *Recorder[T]) OnAdd(obj T, isInInitialList bool) {
	if r.Before != nil {
		r.Before(Add, obj)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	k := Key(obj)
	if held, ok := r.view[k]; ok {
		r.violate("add %s@%s while %s is held", k, obj.GetResourceVersion(), held.GetResourceVersion())
	}
	r.record(Call{Kind: Add, Key: k, RV: obj.GetResourceVersion(), Initial: isInInitialList})
	r.view[k] = obj
}

// OnUpdate implements ResourceEventHandler.
func (r *Recorder[T]) OnUpdate(oldObj, newObj T) {
	if r.Before != nil {
		r.Before(Update, newObj)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	k := Key(newObj)
	held, ok := r.view[k]
	switch {
	case !ok:
		r.violate("update %s@%s of an absent key", k, newObj.GetResourceVersion())
	case held.GetResourceVersion() != oldObj.GetResourceVersion():
		r.violate("update %s: old@%s but last delivered @%s", k, oldObj.GetResourceVersion(), held.GetResourceVersion())
	}
	r.record(Call{Kind: Update, Key: k, RV: newObj.GetResourceVersion(), OldRV: oldObj.GetResourceVersion()})
	r.view[k] = newObj
}

// OnDelete implements ResourceEventHandler.
func (r *Recorder[T]) OnDelete(obj T, finalStateUnknown bool) {
	if r.Before != nil {
		r.Before(Delete, obj)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	k := Key(obj)
	held, ok := r.view[k]
	switch {
	case !ok:
		r.violate("delete %s@%s of an absent key", k, obj.GetResourceVersion())
	case finalStateUnknown && held.GetResourceVersion() != obj.GetResourceVersion():
		r.violate("tombstone %s@%s but last delivered @%s", k, obj.GetResourceVersion(), held.GetResourceVersion())
	}
	r.record(Call{Kind: Delete, Key: k, RV: obj.GetResourceVersion(), Unknown: finalStateUnknown})
	delete(r.view, k)
}

// Stop marks the handler as removed: every later call is a violation.
func (r *Recorder[T]) Stop() {
	r.mu.Lock()
	r.stopped = true
	r.mu.Unlock()
}

// Note appends a line that is not a handler call to the log Events returns
// (e.g. a scope exit a test handler also receives).
func (r *Recorder[T]) Note(format string, args ...any) {
	r.mu.Lock()
	r.log = append(r.log, fmt.Sprintf(format, args...))
	r.mu.Unlock()
}

// Events returns a copy of the log: every call rendered by Call.String and
// every Note, in order.
func (r *Recorder[T]) Events() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.log)
}

// Len returns the number of log lines so far.
func (r *Recorder[T]) Len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.log)
}

// Has reports whether some log line so far equals ev.
func (r *Recorder[T]) Has(ev string) bool {
	return slices.Contains(r.Events(), ev)
}

// WaitEvent waits with Eventually until the log holds ev.
func (r *Recorder[T]) WaitEvent(t testing.TB, ev string) {
	t.Helper()
	Eventually(t, fmt.Sprintf("handler event %q (have %q)", ev, r.Events()), func() bool { return r.Has(ev) })
}

// Calls returns a copy of the calls in order.
func (r *Recorder[T]) Calls() []Call {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.calls)
}

// CallsOf returns the calls for key k in order.
func (r *Recorder[T]) CallsOf(k string) []Call {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []Call
	for _, c := range r.calls {
		if c.Key == k {
			out = append(out, c)
		}
	}
	return out
}

// Keys returns, sorted, every key the handler was called for.
func (r *Recorder[T]) Keys() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	seen := map[string]bool{}
	for _, c := range r.calls {
		seen[c.Key] = true
	}
	return slices.Sorted(maps.Keys(seen))
}

// Tombstones returns how many deletes had finalStateUnknown set.
func (r *Recorder[T]) Tombstones() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.tombstones
}

// View returns a copy of the objects the calls imply, by key.
func (r *Recorder[T]) View() map[string]T {
	r.mu.Lock()
	defer r.mu.Unlock()
	return maps.Clone(r.view)
}

// Holds reports whether the view holds key k at resourceVersion rv.
func (r *Recorder[T]) Holds(k, rv string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	obj, ok := r.view[k]
	return ok && obj.GetResourceVersion() == rv
}

// Versions returns the view as key -> resourceVersion.
func (r *Recorder[T]) Versions() map[string]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(map[string]string, len(r.view))
	for k, obj := range r.view {
		out[k] = obj.GetResourceVersion()
	}
	return out
}

// String renders the view as sorted "key@rv" separated by spaces.
func (r *Recorder[T]) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	parts := make([]string, 0, len(r.view))
	for k, obj := range r.view {
		parts = append(parts, k+"@"+obj.GetResourceVersion())
	}
	slices.Sort(parts)
	return strings.Join(parts, " ")
}

// MaxRV returns the highest numeric resourceVersion delivered, 0 if none.
func (r *Recorder[T]) MaxRV() uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	var m uint64
	for _, rv := range r.lastRV {
		m = max(m, rv)
	}
	return m
}

// Violations returns the first contradictions seen so far (at most 20).
func (r *Recorder[T]) Violations() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.violations)
}

// Err returns nil if no call contradicted the stream, else an error that
// counts the contradictions and describes the first ones.
func (r *Recorder[T]) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.nViolated == 0 {
		return nil
	}
	return errors.New("handler saw " + strconv.Itoa(r.nViolated) + " inconsistent notifications: " + strings.Join(r.violations, "; "))
}
