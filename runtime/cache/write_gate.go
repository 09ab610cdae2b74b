package cache

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"

	"github.com/typedinformer/typedinformer/runtime/internal/keys"
)

// writeGate is an informer's side of a WriteTracker: the program's writes
// its store has not applied yet, per key, and the waits of reads for them.
//
// Lock order: the gate's mu, then the store's (store.Indexer's mu); the
// tracker's mu is never held with it. The informer signals the gate (advance) after each
// applied batch and when the DeltaFIFO reports a list's or bookmark's
// resourceVersion, or a list's selection generation, reached, the latter
// two with the DeltaFIFO's mu held; the gate never takes the DeltaFIFO's
// mu. A Selection's mu is taken and released under the gate's to read
// its value.
type writeGate[T Object] struct {
	s *sharedIndexInformer[T]
	// n is len(pending), plus one while reads wait for a relist
	// (relistWait), read without mu: reads while nothing is pending take
	// no lock.
	n atomic.Int32
	// tracked: a tracker is attached. seenGen is the generation of the
	// informer's Selection the tracker's recent writes were last judged
	// by (see catchUp). Both are written under mu.
	tracked atomic.Bool
	seenGen atomic.Uint64

	mu       sync.Mutex
	tracker  *WriteTracker
	resource string // for errors: the informer's group and resource
	scope    gateScope
	pending  map[keys.Key]pendingWrite
	// appliedGen is the generation of the Selection whose list the store
	// has applied last (see informerSink.SelectionStored).
	appliedGen uint64
	// relistWait: reads of keys the store does not hold, and reads of
	// every key, wait until the store has applied the list of generation
	// relistGen (the tracker had forgotten writes when the selection
	// changed).
	relistWait bool
	relistGen  uint64
	// advanced is closed (and set to nil) when the store advances; nil
	// while nobody waits.
	advanced chan struct{}
}

// pendingWrite is what a read of one key waits for: the store at
// resourceVersion rv (0: none), and no object of UID uid ("": none).
// While the store has not applied the list of the Selection of
// generation gen, only the object itself can show rv reached: the store's
// resourceVersion is that of another selection.
type pendingWrite struct {
	rv  int64
	uid types.UID
	gen uint64
}

// gateScope decides whether a written object may be in the informer's
// selection (the informer's shard scope, if any, is checked beside it).
type gateScope struct {
	namespace string
	labels    labels.Selector // nil: every object
	fields    fields.Selector // nil: every object
	// fieldsDecidable is false when the field selector names a field other
	// than metadata.name or metadata.namespace.
	fieldsDecidable bool
}

func newGateScope(ws WriteScope) (gateScope, error) {
	sc := gateScope{namespace: ws.Namespace, fieldsDecidable: true}
	if ws.LabelSelector != "" {
		sel, err := labels.Parse(ws.LabelSelector)
		if err != nil {
			return sc, fmt.Errorf("label selector %q: %w", ws.LabelSelector, err)
		}
		sc.labels = sel
	}
	if ws.FieldSelector != "" {
		sel, err := fields.ParseSelector(ws.FieldSelector)
		if err != nil {
			return sc, fmt.Errorf("field selector %q: %w", ws.FieldSelector, err)
		}
		sc.fields = sel
		for _, r := range sel.Requirements() {
			if r.Field != "metadata.name" && r.Field != "metadata.namespace" {
				sc.fieldsDecidable = false
			}
		}
	}
	return sc, nil
}

// selects reports whether an object k with labels lbls may be in the
// selection.
func (sc gateScope) selects(k keys.Key, lbls map[string]string) bool {
	if sc.namespace != "" && k.Namespace != sc.namespace {
		return false
	}
	if sc.labels != nil && !sc.labels.Matches(labels.Set(lbls)) {
		return false
	}
	if sc.fields != nil && sc.fieldsDecidable {
		return sc.fields.Matches(fields.Set{"metadata.name": k.Name, "metadata.namespace": k.Namespace})
	}
	return true
}

// SetWriteTracker attaches t to the informer (replacing a tracker attached
// before; nil detaches): the informer's Store and Indexer then implement
// WriteWaiter's waits, and listers built over them wait for the program's
// writes recorded in t. scope is the informer's selection. The informer
// must have SharedIndexInformerOptions.Resource set: writes are matched by
// it.
func (s *sharedIndexInformer[T]) SetWriteTracker(t *WriteTracker, scope WriteScope) error {
	gr := s.opts.Resource.GroupResource()
	if t != nil && gr.Resource == "" {
		return fmt.Errorf("informer %s: SetWriteTracker: the informer has no Resource (SharedIndexInformerOptions.Resource) to match writes by", s.name)
	}
	sc, err := newGateScope(scope)
	if err != nil {
		return fmt.Errorf("informer %s: SetWriteTracker: %w", s.name, err)
	}
	g := s.gate
	g.mu.Lock()
	old := g.tracker
	g.mu.Unlock()
	if old != nil {
		old.detach(gr, g)
	}
	g.mu.Lock()
	g.tracker, g.scope, g.resource = t, sc, gr.String()
	clear(g.pending)
	g.relistWait = false
	g.n.Store(0)
	g.seenGen.Store(s.sel.generation())
	g.tracked.Store(t != nil)
	g.mu.Unlock()
	if t != nil {
		t.attach(gr, g)
	}
	return nil
}

// detachWriteTracker removes the gate from its tracker when the informer
// stops: a stopped informer's store no longer advances.
func (s *sharedIndexInformer[T]) detachWriteTracker() {
	g := s.gate
	g.mu.Lock()
	t := g.tracker
	g.tracker = nil
	g.tracked.Store(false)
	clear(g.pending)
	g.relistWait = false
	g.n.Store(0)
	if g.advanced != nil {
		close(g.advanced)
		g.advanced = nil
	}
	g.mu.Unlock()
	if t != nil {
		t.detach(s.opts.Resource.GroupResource(), g)
	}
}

// wrote implements writeObserver.
func (g *writeGate[T]) wrote(k keys.Key, rv int64, uid types.UID, lbls map[string]string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	// The informer's Selection (its own selectors and those it follows) is
	// read at each write: after a change, a write is judged by the new
	// value.
	selected, gen := g.selectsLocked(k, uid, lbls)
	if !selected && !g.s.indexer.HasKey(k) {
		return
	}
	p := g.pending[k]
	// A write after a delete of the key (a re-create) supersedes it.
	p.rv, p.uid, p.gen = max(p.rv, rv), "", max(p.gen, gen)
	g.putLocked(k, p)
}

// selectsLocked reports whether the informer's selection may hold an
// object k of UID uid with labels lbls, and the Selection's generation
// the answer holds for. The caller holds g.mu.
func (g *writeGate[T]) selectsLocked(k keys.Key, uid types.UID, lbls map[string]string) (bool, uint64) {
	ok, gen := g.s.sel.mayHold(k, lbls)
	return ok && g.scope.selects(k, lbls) && (g.s.scope == nil || g.s.scope.Owns(k.Namespace, string(uid))), gen
}

// putLocked records p for k unless the store holds it already. The caller
// holds g.mu.
func (g *writeGate[T]) putLocked(k keys.Key, p pendingWrite) {
	if g.satisfiedLocked(k, p) {
		if _, ok := g.pending[k]; ok {
			delete(g.pending, k)
			g.countLocked()
		}
		return
	}
	if g.pending == nil {
		g.pending = map[keys.Key]pendingWrite{}
	}
	g.pending[k] = p
	g.countLocked()
}

// countLocked updates n. The caller holds g.mu.
func (g *writeGate[T]) countLocked() {
	n := len(g.pending)
	if g.relistWait {
		n++
	}
	g.n.Store(int32(n))
}

// catchUp judges the tracker's recent writes by the informer's Selection
// once after each change of it, before a read: a write the program made
// while its object was outside the old value, of an object the new value
// selects, is waited for until the store has applied the new value's list
// (or the object at that write). When the tracker has forgotten writes of
// the resource, reads wait for that list instead (relistWait).
func (g *writeGate[T]) catchUp() {
	if !g.tracked.Load() || g.s.sel.generation() == g.seenGen.Load() {
		return
	}
	g.mu.Lock()
	t, resource := g.tracker, g.s.opts.Resource.GroupResource()
	g.mu.Unlock()
	if t == nil {
		return
	}
	// Read after the generation moved: a write recorded with the old
	// value's judgement is in the tracker's list by now.
	recent, lossy := t.recentWritesOf(resource)
	g.mu.Lock()
	defer g.mu.Unlock()
	gen := g.s.sel.generation()
	if g.tracker != t || gen == g.seenGen.Load() {
		return
	}
	for _, w := range recent {
		selected, at := g.selectsLocked(w.k, w.uid, w.labels)
		if !selected {
			continue
		}
		p := g.pending[w.k]
		p.rv, p.gen = max(p.rv, w.rv), max(p.gen, at)
		g.putLocked(w.k, p)
	}
	if lossy && gen > g.appliedGen {
		g.relistWait, g.relistGen = true, gen
	}
	g.seenGen.Store(gen)
	g.countLocked()
}

// selectionApplied records that the store applied the list of the
// informer's Selection of generation gen; see storeObserver.
func (g *writeGate[T]) selectionApplied(gen uint64) {
	g.mu.Lock()
	g.appliedGen = max(g.appliedGen, gen)
	if g.relistWait && g.appliedGen >= g.relistGen {
		g.relistWait = false
		g.countLocked()
	}
	// Waiting reads re-check now: advance wakes them only while something
	// is pending, and ending relistWait may have left nothing.
	if g.advanced != nil {
		close(g.advanced)
		g.advanced = nil
	}
	g.mu.Unlock()
	g.advance()
}

// deleted implements writeObserver.
func (g *writeGate[T]) deleted(k keys.Key, uid types.UID) {
	obj, ok := g.s.indexer.GetKey(k)
	if !ok {
		return // the store does not hold it: nothing to wait for
	}
	if uid == "" {
		uid = obj.GetUID()
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	p := g.pending[k]
	p.uid = uid
	g.putLocked(k, p)
}

// satisfiedLocked reports whether the store holds what p waits for: no
// object of UID p.uid under k, and, for p.rv, k's object at p.rv or later
// or, once the store has applied the list of the Selection of generation
// p.gen, the whole store at p.rv or later (the object may be gone since).
// The caller holds g.mu.
func (g *writeGate[T]) satisfiedLocked(k keys.Key, p pendingWrite) bool {
	obj, ok := g.s.indexer.GetKey(k)
	if p.uid != "" && ok && obj.GetUID() == p.uid {
		return false
	}
	if p.rv == 0 {
		return true
	}
	if ok {
		if rv, err := strconv.ParseInt(obj.GetResourceVersion(), 10, 64); err == nil && rv >= p.rv {
			return true
		}
	}
	if p.gen > g.appliedGen {
		return false
	}
	rv, err := strconv.ParseInt(g.s.indexer.LastStoreSyncResourceVersion(), 10, 64)
	return err == nil && rv >= p.rv
}

// advance is called when the store advanced: pending writes it now holds
// are dropped and waiting reads re-check.
func (g *writeGate[T]) advance() {
	if g.n.Load() == 0 {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	for k, p := range g.pending {
		if g.satisfiedLocked(k, p) {
			delete(g.pending, k)
		}
	}
	g.countLocked()
	if g.advanced != nil {
		close(g.advanced)
		g.advanced = nil
	}
}

// waitKey waits for the pending writes of the object with store key key.
func (g *writeGate[T]) waitKey(ctx context.Context, key string) error {
	if g == nil {
		return nil
	}
	g.catchUp()
	if g.n.Load() == 0 {
		return nil
	}
	k, err := keys.Parse(key)
	if err != nil {
		return nil // the read itself reports the malformed key
	}
	return g.wait(ctx, &k)
}

// waitAll waits for every pending write.
func (g *writeGate[T]) waitAll(ctx context.Context) error {
	if g == nil {
		return nil
	}
	g.catchUp()
	if g.n.Load() == 0 {
		return nil
	}
	return g.wait(ctx, nil)
}

// wait waits until the store holds the pending write of *only (of every
// key when only is nil), until ctx ends, or until the tracker's timeout.
func (g *writeGate[T]) wait(ctx context.Context, only *keys.Key) error {
	start := time.Now()
	var timer *time.Timer
	var timeout <-chan time.Time
	var tracker *WriteTracker
	defer func() {
		if timer != nil {
			timer.Stop()
			if tracker != nil && tracker.waited != nil {
				tracker.waited.Observe(time.Since(start).Seconds())
			}
		}
	}()
	for {
		g.mu.Lock()
		tracker = g.tracker
		k, p, blocked := g.blockingLocked(only)
		if !blocked {
			g.mu.Unlock()
			return nil
		}
		if g.advanced == nil {
			g.advanced = make(chan struct{})
		}
		ch := g.advanced
		g.mu.Unlock()
		if timer == nil {
			d := DefaultWriteWaitTimeout
			if tracker != nil {
				d = tracker.timeout
			}
			timer = time.NewTimer(d)
			timeout = timer.C
		}
		select {
		case <-ch:
		case <-timeout:
			return g.notObserved(k, p, fmt.Sprintf("after %v", time.Since(start).Round(time.Millisecond)))
		case <-ctx.Done():
			return g.notObserved(k, p, context.Cause(ctx).Error())
		}
	}
}

// blockingLocked returns a pending write the store does not hold yet (of
// only, when set), dropping those it holds. The caller holds g.mu.
func (g *writeGate[T]) blockingLocked(only *keys.Key) (keys.Key, pendingWrite, bool) {
	relist := pendingWrite{gen: g.relistGen}
	if only != nil {
		p, ok := g.pending[*only]
		if ok && g.satisfiedLocked(*only, p) {
			delete(g.pending, *only)
			g.countLocked()
			ok = false
		}
		if ok {
			return *only, p, true
		}
		if g.relistWait && !g.s.indexer.HasKey(*only) {
			return *only, relist, true
		}
		return keys.Key{}, p, false
	}
	if g.relistWait {
		return keys.Key{}, relist, true
	}
	// In key order, so that a timeout names the same object each time.
	ks := make([]keys.Key, 0, len(g.pending))
	for k := range g.pending {
		ks = append(ks, k)
	}
	slices.SortFunc(ks, func(a, b keys.Key) int {
		return strings.Compare(a.Namespace+"/"+a.Name, b.Namespace+"/"+b.Name)
	})
	for _, k := range ks {
		p := g.pending[k]
		if !g.satisfiedLocked(k, p) {
			return k, p, true
		}
		delete(g.pending, k)
	}
	g.countLocked()
	return keys.Key{}, pendingWrite{}, false
}

// notObserved is the error of a wait that ended (why) before the store
// held the write p of k.
func (g *writeGate[T]) notObserved(k keys.Key, p pendingWrite, why string) error {
	g.mu.Lock()
	resource, applied := g.resource, g.appliedGen
	g.mu.Unlock()
	at := g.s.indexer.LastStoreSyncResourceVersion()
	var what string
	switch {
	case p.uid != "":
		what = fmt.Sprintf("delete of uid %s", p.uid)
		if p.rv != 0 {
			what += fmt.Sprintf(" and write at resourceVersion %d", p.rv)
		}
	case p.rv != 0:
		what = fmt.Sprintf("write at resourceVersion %d", p.rv)
	default:
		what = "writes of this resource made before its selection changed"
	}
	if p.gen > applied {
		what += " (the list of its changed selection is not applied yet)"
	}
	if k == (keys.Key{}) {
		return fmt.Errorf("informer %s: listing %s: the store, at resourceVersion %q, does not hold this program's %s (%s): %w",
			g.s.name, resource, at, what, why, ErrWriteNotObserved)
	}
	return fmt.Errorf("informer %s: reading %s %s: the store, at resourceVersion %q, does not hold this program's %s (%s): %w",
		g.s.name, resource, k, at, what, why, ErrWriteNotObserved)
}
