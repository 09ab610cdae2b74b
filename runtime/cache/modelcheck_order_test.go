package cache_test

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/typedinformer/typedinformer/runtime/cache"
	"github.com/typedinformer/typedinformer/runtime/fake"
)

// The order check. A recordingLW sits between the fake server and the
// informer and writes down, in the order the reflector consumed them, the
// server changes the informer was handed: each complete list (or watch-list
// initial state) as one snapshot, and each watch event. Every handler's
// calls must then be explainable, one after the other, by that sequence read
// forwards: a handler may skip changes (an unchanged object), but never
// receives one change after a later one, and a list's tombstones come before
// its listed objects. That is "per-handler order = server order" across
// keys.

// segment is one thing the reflector consumed: a list snapshot or a watch
// event.
type segment struct {
	list  bool
	items map[string]uint64 // list: key -> resourceVersion
	rv    uint64            // list: the list's resourceVersion; event: the object's
	typ   watch.EventType   // event
	key   string            // event
}

func (s segment) String() string {
	if s.list {
		return fmt.Sprintf("list@%d(%d items)", s.rv, len(s.items))
	}
	return fmt.Sprintf("%s %s@%d", s.typ, s.key, s.rv)
}

// recordingLW wraps a ListerWatcher, recording segments. It can also hold a
// list back after the server served it (gateNextList), so that the test can
// write while the informer still waits for a list that no longer matches
// the server: a slow list.
type recordingLW struct {
	inner cache.ListerWatcher

	mu      sync.Mutex
	segs    []*segment
	pending map[string]uint64 // pages of the list being fetched

	gate    bool
	listed  chan struct{}
	release chan struct{}
}

func newRecordingLW(inner cache.ListerWatcher) *recordingLW { return &recordingLW{inner: inner} }

// gateNextList makes the next successful list (its first page) wait, after
// the server served it, until the returned release is called; listed is
// closed when that list was served.
func (r *recordingLW) gateNextList() (listed <-chan struct{}, release func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.gate, r.listed, r.release = true, make(chan struct{}), make(chan struct{})
	rel := r.release
	var once sync.Once
	return r.listed, func() { once.Do(func() { close(rel) }) }
}

func (r *recordingLW) segments() []*segment {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*segment(nil), r.segs...)
}

func (r *recordingLW) List(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	obj, err := r.inner.List(ctx, opts)
	if err != nil {
		return obj, err
	}
	l := obj.(*fake.List[*corev1.Pod])
	r.mu.Lock()
	if opts.Continue == "" {
		r.pending = map[string]uint64{}
	}
	for _, p := range l.Items {
		r.pending[key(p)] = rvOf(p)
	}
	var wait chan struct{}
	if opts.Continue == "" && r.gate {
		r.gate = false
		close(r.listed)
		wait = r.release
	}
	r.mu.Unlock()
	if wait != nil {
		select {
		case <-wait:
		case <-ctx.Done():
		}
	}
	if l.Continue == "" {
		rv, _ := strconv.ParseUint(l.ResourceVersion, 10, 64)
		r.mu.Lock()
		r.segs = append(r.segs, &segment{list: true, items: r.pending, rv: rv})
		r.pending = nil
		r.mu.Unlock()
	}
	return obj, nil
}

func (r *recordingLW) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	w, err := r.inner.Watch(ctx, opts)
	if err != nil {
		return w, err
	}
	rw := &recordingWatch{r: r, inner: w, out: make(chan watch.Event), stop: make(chan struct{})}
	if opts.SendInitialEvents != nil && *opts.SendInitialEvents {
		rw.initial = map[string]uint64{}
	}
	go rw.forward()
	return rw, nil
}

// recordingWatch forwards a watch's events one by one through an unbuffered
// channel, recording each before the reflector can act on it (and taking the
// record back if the reflector stopped instead of receiving it).
type recordingWatch struct {
	r        *recordingLW
	inner    watch.Interface
	out      chan watch.Event
	stop     chan struct{}
	stopOnce sync.Once
	// initial accumulates a watch-list's initial state until its end
	// bookmark; nil once streaming (or for a plain watch).
	initial map[string]uint64
}

func (w *recordingWatch) ResultChan() <-chan watch.Event { return w.out }

func (w *recordingWatch) Stop() {
	w.stopOnce.Do(func() {
		close(w.stop)
		w.inner.Stop()
	})
}

func (w *recordingWatch) forward() {
	defer close(w.out)
	for {
		var ev watch.Event
		var ok bool
		select {
		case ev, ok = <-w.inner.ResultChan():
			if !ok {
				return
			}
		case <-w.stop:
			return
		}
		seg := w.segmentFor(ev)
		if seg != nil {
			w.r.mu.Lock()
			w.r.segs = append(w.r.segs, seg)
			w.r.mu.Unlock()
		}
		select {
		case w.out <- ev:
		case <-w.stop:
			if seg != nil {
				w.r.mu.Lock()
				for i := len(w.r.segs) - 1; i >= 0; i-- {
					if w.r.segs[i] == seg {
						w.r.segs = append(w.r.segs[:i], w.r.segs[i+1:]...)
						break
					}
				}
				w.r.mu.Unlock()
			}
			return
		}
	}
}

// segmentFor returns the segment ev makes once the reflector receives it, or
// nil (wrong type, errors, bookmarks, a watch-list's initial events).
func (w *recordingWatch) segmentFor(ev watch.Event) *segment {
	p, ok := ev.Object.(*corev1.Pod)
	if !ok {
		return nil
	}
	if w.initial != nil {
		switch ev.Type {
		case watch.Added, watch.Modified:
			w.initial[key(p)] = rvOf(p)
		case watch.Deleted:
			delete(w.initial, key(p))
		case watch.Bookmark:
			if p.Annotations["k8s.io/initial-events-end"] == "true" {
				seg := &segment{list: true, items: w.initial, rv: rvOf(p)}
				w.initial = nil
				return seg
			}
		}
		return nil
	}
	switch ev.Type {
	case watch.Added, watch.Modified, watch.Deleted:
		return &segment{typ: ev.Type, key: key(p), rv: rvOf(p)}
	}
	return nil
}

// hcall is one handler call as the order check sees it.
type hcall struct {
	kind    string // add, update, delete
	key     string
	rv, old uint64 // old: update's old object
	initial bool   // add's isInInitialList
	unknown bool   // delete's finalStateUnknown
}

func (c hcall) String() string {
	switch c.kind {
	case "add":
		return fmt.Sprintf("add %s@%d initial=%t", c.key, c.rv, c.initial)
	case "update":
		return fmt.Sprintf("update %s@%d->%d", c.key, c.old, c.rv)
	}
	return fmt.Sprintf("delete %s@%d unknown=%t", c.key, c.rv, c.unknown)
}

// explains reports whether segment s can have produced call c.
func (s *segment) explains(c hcall) bool {
	if s.list {
		if c.kind == "delete" {
			_, listed := s.items[c.key]
			return c.unknown && !listed
		}
		rv, listed := s.items[c.key]
		return listed && rv == c.rv
	}
	if s.key != c.key || s.rv != c.rv {
		return false
	}
	if s.typ == watch.Deleted {
		return c.kind == "delete" && !c.unknown
	}
	return c.kind == "add" || c.kind == "update"
}

// checkOrder verifies one handler's calls against the recorded segments:
//
//   - resyncs (updates with equal resourceVersions) are not checked;
//   - an add with isInInitialList=true comes before the handler's first
//     other call; for a handler present from the start it is an item of the
//     first list (a late handler's are replays of the cache);
//   - every other call is explained by a segment after the first list, at
//     or after the one that explained the previous call (a watch event
//     explains one call, a list several): the handler never receives a
//     change after a later one, nor a list's tombstone after one of its
//     listed objects;
//   - consequently the resourceVersions handed to it, counting a list's
//     items at the list's resourceVersion, never decrease, and strictly
//     increase from one watch event to the next.
func checkOrder(segs []*segment, calls []hcall, late bool) error {
	firstList := -1
	for i, s := range segs {
		if s.list {
			firstList = i
			break
		}
	}
	pos := firstList + 1 // where non-initial calls are looked for
	var lastRV uint64
	lastWasEvent := false
	seenLive := false
	listedSeen := false // a listed object of segs[pos], a list, was delivered
	for i, c := range calls {
		if c.kind == "update" && c.old == c.rv {
			continue // resync
		}
		if c.kind == "add" && c.initial {
			if seenLive {
				return fmt.Errorf("call %d %s: isInInitialList=true after the handler's first live notification", i, c)
			}
			if late {
				continue
			}
			if firstList < 0 || !segs[firstList].explains(c) {
				return fmt.Errorf("call %d %s: flagged initial but not an item of the first list", i, c)
			}
			continue
		}
		seenLive = true
		j := pos
		for ; j < len(segs) && (!segs[j].explains(c) || (j == pos && listedSeen && c.kind == "delete")); j++ {
		}
		if j == len(segs) {
			if firstList >= 0 && c.kind == "add" && segs[firstList].explains(c) {
				return fmt.Errorf("call %d %s: an item of the first list delivered without isInInitialList", i, c)
			}
			return fmt.Errorf("call %d %s: no server change at or after %s explains it: delivered out of server order", i, c, describe(segs, pos))
		}
		s := segs[j]
		switch {
		case s.list && s.rv < lastRV:
			return fmt.Errorf("call %d %s: from list@%d after resourceVersion %d", i, c, s.rv, lastRV)
		case !s.list && (s.rv < lastRV || (s.rv == lastRV && lastWasEvent)):
			return fmt.Errorf("call %d %s: resourceVersion %d after %d", i, c, s.rv, lastRV)
		}
		lastRV, lastWasEvent = s.rv, !s.list
		if s.list {
			listedSeen = (j == pos && listedSeen) || c.kind != "delete"
			pos = j
		} else {
			listedSeen = false
			pos = j + 1
		}
	}
	return nil
}

func describe(segs []*segment, pos int) string {
	if pos >= len(segs) {
		return "the end of the recorded changes"
	}
	return fmt.Sprintf("change #%d (%s)", pos, segs[pos])
}

// checkOrder itself: a relist's tombstone after one of its listed objects
// is out of order; before them, or after a later list's, it is not.
func TestCheckOrderTombstonesBeforeListed(t *testing.T) {
	first := &segment{list: true, rv: 10, items: map[string]uint64{"a/x": 1, "a/y": 2}}
	relist := &segment{list: true, rv: 20, items: map[string]uint64{"a/x": 1, "a/z": 15}}
	initial := []hcall{{kind: "add", key: "a/x", rv: 1, initial: true}, {kind: "add", key: "a/y", rv: 2, initial: true}}
	tomb := hcall{kind: "delete", key: "a/y", rv: 2, unknown: true}
	addZ := hcall{kind: "add", key: "a/z", rv: 15}
	for _, tc := range []struct {
		name  string
		calls []hcall
		ok    bool
	}{
		{"tombstone first", []hcall{tomb, addZ}, true},
		{"tombstone after a listed object", []hcall{addZ, tomb}, false},
	} {
		err := checkOrder([]*segment{first, relist}, append(slices.Clone(initial), tc.calls...), false)
		if (err == nil) != tc.ok {
			t.Errorf("%s: checkOrder = %v, want ok=%t", tc.name, err, tc.ok)
		}
	}
}
