package e2e

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/typedinformer/typedinformer/internal/testutil/informertest"
	"github.com/typedinformer/typedinformer/runtime/cache"
)

// TestInformersFollowTheServer creates, updates and deletes hundreds of
// Foos (examples/crd's CRD) and ConfigMaps across namespaces around the
// generated informers of a running factory: each cache must end equal to a
// fresh server list and every handler must have been told of every change,
// in order.
func TestInformersFollowTheServer(t *testing.T) {
	ensureExampleCRDs(t)
	c, namespaces := adminIn(t, 4)
	t.Run("Foos", func(t *testing.T) { followScenario(t, watchedFoos(t, c), namespaces, 60) })
	t.Run("ConfigMaps", func(t *testing.T) { followScenario(t, watchedConfigMaps(t, c), namespaces, 60) })
}

// history is what a handler should be told, per key; safe for concurrent
// writers.
type history struct {
	mu     sync.Mutex
	events map[string][]event
}

func (h *history) add(k string, e event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.events == nil {
		h.events = map[string][]event{}
	}
	h.events[k] = append(h.events[k], e)
}

// matches compares a recorder's history with h. Delete events are compared
// without their resourceVersion (the client's Delete does not return it);
// firstAddEitherWay accepts either isInInitialList for keys' first add
// (objects created before the informer started may miss a list served from
// a lagging watch cache and arrive through the watch).
func matches[T cache.Object](h *history, r *recorder[T], firstAddEitherWay map[string]bool) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, k := range sortedKeys(h.events) {
		want, got := h.events[k], r.events(k)
		if len(got) != len(want) {
			return fmt.Errorf("%s: handler was told %v, want %v", k, got, want)
		}
		for i := range want {
			g, w := got[i], want[i]
			if w.kind == deleted {
				g.rv = ""
			}
			if i == 0 && firstAddEitherWay[k] {
				g.initial = w.initial
			}
			if g != w {
				return fmt.Errorf("%s: handler was told %v, want %v", k, got, want)
			}
		}
	}
	return nil
}

// followScenario drives w's informer through creates, updates and deletes
// of perNamespace objects in each namespace.
func followScenario[T cache.Object](t *testing.T, w watched[T], namespaces []string, perNamespace int) {
	o, inf, start := w.o, w.inf, w.start
	ctx := context.Background()
	type ref struct {
		ns, name string
		i        int
	}
	var refs []ref
	for _, ns := range namespaces {
		for j := range perNamespace {
			refs = append(refs, ref{ns, fmt.Sprintf("obj-%03d", j), len(refs)})
		}
	}
	want := &history{}
	latest := make([]T, len(refs))
	preStart := map[string]bool{}

	// Half the objects exist before the informer starts: they come with
	// the initial list.
	half := len(refs) / 2
	for _, r := range refs[:half] {
		preStart[cache.NewObjectName(r.ns, r.name).String()] = true
	}
	create := func(from, to int, initial bool) {
		t.Helper()
		if err := parallel(to-from, func(n int) error {
			r := refs[from+n]
			obj, err := o.create(ctx, r.ns, r.name, r.i)
			if err != nil {
				return fmt.Errorf("creating %s %s/%s: %w", o.kind, r.ns, r.name, err)
			}
			latest[r.i] = obj
			want.add(key(obj), event{kind: added, rv: obj.GetResourceVersion(), initial: initial})
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	create(0, half, true)

	recs := []*recorder[T]{newRecorder[T](), newRecorder[T]()}
	var syncers []cache.Syncer
	syncers = append(syncers, inf)
	for _, r := range recs {
		reg := informertest.AddHandler(t, inf, r)
		syncers = append(syncers, reg)
	}
	start()
	waitSynced(t, syncers...)

	create(half, len(refs), false)
	began := time.Now()
	// Update every object, every third one twice, and delete every third.
	update := func(pick func(i int) bool, round int) {
		t.Helper()
		if err := parallel(len(refs), func(i int) error {
			if !pick(i) {
				return nil
			}
			obj, err := o.update(ctx, latest[i], 1000*round+i)
			if err != nil {
				return fmt.Errorf("updating %s %s: %w", o.kind, key(latest[i]), err)
			}
			latest[i] = obj
			want.add(key(obj), event{kind: updated, rv: obj.GetResourceVersion()})
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	update(func(int) bool { return true }, 1)
	update(func(i int) bool { return i%3 == 0 }, 2)
	if err := parallel(len(refs), func(i int) error {
		if i%3 != 1 {
			return nil
		}
		r := refs[i]
		if err := o.remove(ctx, r.ns, r.name); err != nil {
			return fmt.Errorf("deleting %s %s/%s: %w", o.kind, r.ns, r.name, err)
		}
		want.add(cache.NewObjectName(r.ns, r.name).String(), event{kind: deleted})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d %ss: %d creates, %d updates and %d deletes in %v", len(refs), o.kind,
		len(refs), len(refs)+(len(refs)+2)/3, (len(refs)+1)/3, time.Since(began).Round(time.Millisecond))

	eventually(t, time.Minute, "informer cache equals the server", func() error {
		return matchesServer(ctx, inf.GetStore(), o)
	})
	server, err := o.list(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range recs {
		eventually(t, time.Minute, fmt.Sprintf("handler %d was told every change", i), func() error {
			if err := r.check(); err != nil {
				return err
			}
			if d := diffVersions(r.viewVersions(), versions(server)); d != "" {
				return fmt.Errorf("handler's view: %s", d)
			}
			return matches(want, r, preStart)
		})
	}
	// Most pre-existing objects must have come with the initial list.
	initial := 0
	for k := range preStart {
		if ev := recs[0].events(k); len(ev) > 0 && ev[0].initial {
			initial++
		}
	}
	if initial == 0 {
		t.Errorf("none of the %d objects created before the informer started came with its initial list", len(preStart))
	}

	// A handler added to the running informer is first told of every
	// cached object.
	late, reg := recordOn(t, inf)
	waitSynced(t, reg)
	eventually(t, time.Minute, "late handler was told of every object", func() error {
		if err := late.check(); err != nil {
			return err
		}
		if d := diffVersions(late.viewVersions(), versions(server)); d != "" {
			return fmt.Errorf("late handler's view: %s", d)
		}
		return nil
	})
}
