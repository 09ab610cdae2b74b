package e2e

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/typedinformer/typedinformer/runtime/cache"
)

// eventKind is what a handler was told.
type eventKind string

const (
	added   eventKind = "add"
	updated eventKind = "update"
	deleted eventKind = "delete"
)

// event is one notification, reduced to what the tests check.
type event struct {
	kind eventKind
	rv   string
	// initial is OnAdd's isInInitialList; unknown is OnDelete's
	// finalStateUnknown.
	initial, unknown bool
}

func (e event) String() string {
	s := string(e.kind) + "@" + e.rv
	if e.initial {
		s += "(initial)"
	}
	if e.unknown {
		s += "(unknown)"
	}
	return s
}

// recorder is a ResourceEventHandler that keeps every notification per key
// and its own view of the objects built only from notifications. It flags
// notifications that contradict that view (an add for a key it holds, an
// update whose old object is not the one it holds, a delete of a key it
// does not hold).
type recorder[T cache.Object] struct {
	mu       sync.Mutex
	view     map[string]T
	history  map[string][]event
	problems []string
}

func newRecorder[T cache.Object]() *recorder[T] {
	return &recorder[T]{view: map[string]T{}, history: map[string][]event{}}
}

func key[T cache.Object](obj T) string { return cache.KeyFor(obj.GetNamespace(), obj.GetName()) }

// OnAdd implements cache.ResourceEventHandler.
func (r *recorder[T]) OnAdd(obj T, isInInitialList bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	k := key(obj)
	if old, ok := r.view[k]; ok {
		r.problems = append(r.problems, fmt.Sprintf("OnAdd(%s@%s) but the handler holds it at %s", k, obj.GetResourceVersion(), old.GetResourceVersion()))
	}
	r.view[k] = obj
	r.history[k] = append(r.history[k], event{kind: added, rv: obj.GetResourceVersion(), initial: isInInitialList})
}

// OnUpdate implements cache.ResourceEventHandler.
func (r *recorder[T]) OnUpdate(oldObj, newObj T) {
	r.mu.Lock()
	defer r.mu.Unlock()
	k := key(newObj)
	held, ok := r.view[k]
	switch {
	case !ok:
		r.problems = append(r.problems, fmt.Sprintf("OnUpdate(%s) but the handler does not hold it", k))
	case held.GetResourceVersion() != oldObj.GetResourceVersion():
		r.problems = append(r.problems, fmt.Sprintf("OnUpdate(%s): old object at %s, the handler holds %s", k, oldObj.GetResourceVersion(), held.GetResourceVersion()))
	}
	r.view[k] = newObj
	if oldObj.GetResourceVersion() == newObj.GetResourceVersion() {
		return // a resync or an unchanged object after a relist: no change
	}
	r.history[k] = append(r.history[k], event{kind: updated, rv: newObj.GetResourceVersion()})
}

// OnDelete implements cache.ResourceEventHandler.
func (r *recorder[T]) OnDelete(obj T, finalStateUnknown bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	k := key(obj)
	if _, ok := r.view[k]; !ok {
		r.problems = append(r.problems, fmt.Sprintf("OnDelete(%s) but the handler does not hold it", k))
	}
	delete(r.view, k)
	r.history[k] = append(r.history[k], event{kind: deleted, rv: obj.GetResourceVersion(), unknown: finalStateUnknown})
}

// check returns an error describing every contradiction seen so far.
func (r *recorder[T]) check() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.problems) == 0 {
		return nil
	}
	return fmt.Errorf("handler saw %d inconsistent notifications: %s", len(r.problems), strings.Join(r.problems, "; "))
}

// events returns the notifications of key.
func (r *recorder[T]) events(k string) []event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.history[k])
}

// keys returns every key the handler was told about.
func (r *recorder[T]) keys() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return sortedKeys(r.history)
}

// viewVersions returns key -> resourceVersion of the handler's view.
func (r *recorder[T]) viewVersions() map[string]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(map[string]string, len(r.view))
	for k, obj := range r.view {
		out[k] = obj.GetResourceVersion()
	}
	return out
}

// versions maps objects to key -> resourceVersion.
func versions[T cache.Object](objs []T) map[string]string {
	out := make(map[string]string, len(objs))
	for _, obj := range objs {
		out[key(obj)] = obj.GetResourceVersion()
	}
	return out
}

// diffVersions describes how got differs from want (key -> resourceVersion):
// missing, phantom and stale keys. It returns "" when they are equal.
func diffVersions(got, want map[string]string) string {
	var missing, phantom, stale []string
	for k, rv := range want {
		g, ok := got[k]
		switch {
		case !ok:
			missing = append(missing, k)
		case g != rv:
			stale = append(stale, fmt.Sprintf("%s at %s, want %s", k, g, rv))
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			phantom = append(phantom, k)
		}
	}
	if len(missing)+len(phantom)+len(stale) == 0 {
		return ""
	}
	slices.Sort(missing)
	slices.Sort(phantom)
	slices.Sort(stale)
	return fmt.Sprintf("%d objects, want %d: missing %s; phantom %s; stale %s",
		len(got), len(want), head(missing), head(phantom), head(stale))
}

func head(s []string) string {
	if len(s) > 8 {
		return fmt.Sprintf("%v... (%d)", s[:8], len(s))
	}
	return fmt.Sprint(s)
}

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}
