package reflector

import (
	"errors"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// errSelectionChanged ends a list/watch cycle whose selection changed: the
// reflector lists again at once with the new one, without backing off and
// without reporting an error.
var errSelectionChanged = errors.New("the selection changed; listing the new one")

// Selection is what a reflector lists and watches with beyond its own
// options: runtime/cache's Selection satisfies it. Both methods are safe for
// concurrent use.
type Selection interface {
	// Apply edits the options of one list or watch call: the selection's
	// value at the time of the call.
	Apply(opts *metav1.ListOptions)
	// Begin returns a channel closed by the next change of the value (or of
	// any selection the value depends on), the value's generation, and
	// whether an object, by its last known state, lies in the value. A
	// value read by Apply after Begin is the one Begin described as long as
	// the channel is open.
	Begin() (changed <-chan struct{}, gen uint64, inScope func(metav1.Object) bool)
}

// selCycle is the selection snapshot of one list/watch cycle. Only the
// reflector's goroutine uses it.
type selCycle struct {
	changed <-chan struct{}
	gen     uint64
	inScope func(metav1.Object) bool
}

// beginSelection takes the selection's snapshot for the next cycle.
func (r *Reflector[T]) beginSelection() {
	if r.selection == nil {
		return
	}
	changed, gen, inScope := r.selection.Begin()
	r.sel = &selCycle{changed: changed, gen: gen, inScope: inScope}
}

// selectionChanged reports whether the selection changed since the cycle
// began: what was listed or watched since may belong to the new value, and
// must not reach the store.
func (r *Reflector[T]) selectionChanged() bool {
	if r.sel == nil {
		return false
	}
	select {
	case <-r.sel.changed:
		return true
	default:
		return false
	}
}

// selChanged is the cycle's change channel; nil (never ready) without a
// selection.
func (r *Reflector[T]) selChanged() <-chan struct{} {
	if r.sel == nil {
		return nil
	}
	return r.sel.changed
}

// callOpts is opts as sent to the ListerWatcher: the shard selector of the
// cycle, then the selection's value.
func (r *Reflector[T]) callOpts(opts metav1.ListOptions) metav1.ListOptions {
	opts = r.withShard(opts)
	if r.selection != nil {
		r.selection.Apply(&opts)
	}
	return opts
}

// replaceScope is the inScope a list of this cycle is stored with: the
// shard's, and, for the first list since the selection changed, the
// selection's, so that objects the new value no longer selects leave the
// store as scope exits. Other relists treat missing objects as deleted.
func (r *Reflector[T]) replaceScope() func(T) bool {
	var shard func(T) bool
	if r.shard != nil {
		shard = r.inShard
	}
	if r.sel == nil || r.sel.gen == r.storedGen {
		return shard
	}
	sel := r.sel.inScope
	if shard == nil {
		return func(obj T) bool { return sel(obj) }
	}
	return func(obj T) bool { return shard(obj) && sel(obj) }
}

// SelectionSink is a Sink that wants to know which selection each list it
// was given holds.
type SelectionSink interface {
	// SelectionStored is called after each Replace (or ReplaceInScope) of
	// a list of the whole selection, with the generation Begin gave for
	// the value listed.
	SelectionStored(gen uint64)
}

// selectionStored records that a list of the cycle's selection reached
// the sink.
func (r *Reflector[T]) selectionStored() {
	if r.sel == nil {
		return
	}
	if s, ok := r.sink.(SelectionSink); ok {
		s.SelectionStored(r.sel.gen)
	}
	r.storedGen = r.sel.gen
	r.mu.Lock()
	r.listedGen, r.listedSel = r.sel.gen, true
	r.mu.Unlock()
}

// ListedSelection is the generation of the selection of the latest list
// stored; ok is false before any.
func (r *Reflector[T]) ListedSelection() (gen uint64, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.listedGen, r.listedSel
}
