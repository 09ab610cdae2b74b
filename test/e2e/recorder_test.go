package e2e

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/typedinformer/typedinformer/internal/testutil"
	"github.com/typedinformer/typedinformer/internal/testutil/informertest"
	"github.com/typedinformer/typedinformer/runtime/cache"
)

// eventKind is what a handler was told.
type eventKind string

const (
	added   eventKind = testutil.Add
	updated eventKind = testutil.Update
	deleted eventKind = testutil.Delete
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
// and its own view of the objects built only from notifications, and flags
// the notifications that contradict that view: testutil.Recorder, whose
// checks it reports through check.
type recorder[T cache.Object] struct{ *testutil.Recorder[T] }

func newRecorder[T cache.Object]() *recorder[T] { return &recorder[T]{testutil.NewRecorder[T]()} }

// recordOn registers a new recorder on inf, failing t if it cannot, and
// returns it with its registration (a Syncer for waitSynced).
func recordOn[T cache.Object](t testing.TB, inf cache.SharedIndexInformer[T]) (*recorder[T], cache.ResourceEventHandlerRegistration) {
	t.Helper()
	rec := newRecorder[T]()
	return rec, informertest.AddHandler(t, inf, rec)
}

func key[T cache.Object](obj T) string { return cache.NewObjectName(obj.GetNamespace(), obj.GetName()).String() }

// check returns an error describing every contradiction seen so far.
func (r *recorder[T]) check() error { return r.Err() }

// events returns the notifications of key that changed something: a resync
// or an unchanged object after a relist (an update to the same
// resourceVersion) is left out.
func (r *recorder[T]) events(k string) []event {
	var out []event
	for _, c := range r.CallsOf(k) {
		if c.Resync() {
			continue
		}
		out = append(out, event{kind: eventKind(c.Kind), rv: c.RV, initial: c.Initial, unknown: c.Unknown})
	}
	return out
}

// keys returns every key the handler was told about.
func (r *recorder[T]) keys() []string { return r.Keys() }

// viewVersions returns key -> resourceVersion of the handler's view.
func (r *recorder[T]) viewVersions() map[string]string { return r.Versions() }

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
