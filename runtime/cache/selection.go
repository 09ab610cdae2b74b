package cache

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/typedinformer/typedinformer/runtime/internal/keys"
)

// ErrNotRunning is wrapped by the error of a selector change on an informer
// that has not started yet or has stopped: set the first selection with
// SharedIndexInformerOptions.LabelSelector and FieldSelector (or
// SelectableInformer.SetInitialSelectors) before Run instead.
var ErrNotRunning = errors.New("the informer is not running")

// TweakListOptionsFunc edits the ListOptions of every list and watch call,
// e.g. to set a label or field selector. It must only narrow what is
// listed and be safe to call concurrently. A Selection calls its tweak
// under its lock: the tweak must not call that Selection.
type TweakListOptionsFunc func(*metav1.ListOptions)

// Selection is a changeable part of the ListOptions of an informer's lists
// and watches: a TweakListOptionsFunc, then a LabelSelector and a
// FieldSelector ANDed with whatever the options hold by then. Changing it
// makes the informers that use it relist with the new value (see
// SelectableInformer). The zero value is not usable; use NewSelection. All
// methods are safe for concurrent use.
//
// An informer may also follow another Selection without applying it, when
// its ListerWatcher applies that one (the factory's, through the
// TweakListOptionsFunc generated informers call): a change of either makes
// it relist.
type Selection struct {
	// mu guards the value and the followers; a Selection's mu is taken
	// before its followers' (SetSelectors and SetTweakListOptions close
	// their change channels), never after.
	mu    sync.Mutex
	label string
	field string
	tweak TweakListOptionsFunc
	match matcher
	// gen counts changes; written under mu, read without it too.
	gen     atomic.Uint64
	changed chan struct{}
	// parents are the Selections this one follows, set before use (an
	// informer's FollowSelection, before Run); followers are the
	// Selections subscribed to this one's changes: one per running
	// informer that follows it (subscribe and unsubscribe).
	parents   []*Selection
	followers map[*Selection]struct{}
}

// NewSelection returns a Selection with the given tweak (may be nil) and
// selectors ("" selects everything). It fails, naming the selector, when
// one does not parse.
func NewSelection(tweak TweakListOptionsFunc, labelSelector, fieldSelector string) (*Selection, error) {
	m, err := newMatcher(tweak, labelSelector, fieldSelector)
	if err != nil {
		return nil, err
	}
	return &Selection{label: labelSelector, field: fieldSelector, tweak: tweak, match: m, changed: make(chan struct{})}, nil
}

// Selectors returns the label and field selectors set with NewSelection or
// SetSelectors (not including what the tweak sets).
func (s *Selection) Selectors() (labelSelector, fieldSelector string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.label, s.field
}

// SetSelectors replaces the label and field selectors. A selector that
// does not parse is an error naming it, and changes nothing.
func (s *Selection) SetSelectors(labelSelector, fieldSelector string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, err := newMatcher(s.tweak, labelSelector, fieldSelector)
	if err != nil {
		return err
	}
	s.label, s.field, s.match = labelSelector, fieldSelector, m
	s.changedLocked()
	return nil
}

// SetTweakListOptions replaces the tweak (nil: none). A tweak that sets a
// selector that does not parse is an error naming it, and changes nothing.
func (s *Selection) SetTweakListOptions(tweak TweakListOptionsFunc) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, err := newMatcher(tweak, s.label, s.field)
	if err != nil {
		return err
	}
	s.tweak, s.match = tweak, m
	s.changedLocked()
	return nil
}

// changedLocked ends the current value: a new generation, and the change
// channel of this Selection and of every follower closed and renewed.
func (s *Selection) changedLocked() {
	s.gen.Add(1)
	close(s.changed)
	s.changed = make(chan struct{})
	for f := range s.followers {
		f.mu.Lock()
		f.changedLocked()
		f.mu.Unlock()
	}
}

// ApplyTo edits opts with the current value: the tweak, then the selectors
// ANDed with opts' own. It is a TweakListOptionsFunc.
func (s *Selection) ApplyTo(opts *metav1.ListOptions) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tweak != nil {
		s.tweak(opts)
	}
	opts.LabelSelector = and(opts.LabelSelector, s.label)
	opts.FieldSelector = and(opts.FieldSelector, s.field)
}

// Apply is ApplyTo (the reflector's Selection).
func (s *Selection) Apply(opts *metav1.ListOptions) { s.ApplyTo(opts) }

// Begin returns the reflector's snapshot of the value (see
// reflector.Selection): the change channel is read before the values, so
// that a change after the read closes it. The value is this Selection's
// and every followed one's.
func (s *Selection) Begin() (<-chan struct{}, uint64, func(metav1.Object) bool) {
	s.mu.Lock()
	changed, gen, m, parents := s.changed, s.gen.Load(), s.match, s.parents
	s.mu.Unlock()
	if len(parents) == 0 {
		return changed, gen, m.matches
	}
	ms := append(make([]matcher, 0, len(parents)+1), m)
	for _, p := range parents {
		p.mu.Lock()
		ms = append(ms, p.match)
		p.mu.Unlock()
	}
	return changed, gen, func(obj metav1.Object) bool {
		for _, m := range ms {
			if !m.matches(obj) {
				return false
			}
		}
		return true
	}
}

// mayHold reports whether an object written with key k and labels lbls
// may lie in the current value of s and of every Selection it follows: a
// requirement on a field other than metadata.name and metadata.namespace
// cannot be decided here and counts as met (the opposite of Begin's
// matcher, which decides whether an object has left). gen is the
// generation read after the values: the answer holds for it or an earlier
// one.
func (s *Selection) mayHold(k keys.Key, lbls map[string]string) (ok bool, gen uint64) {
	s.mu.Lock()
	m, parents := s.match, s.parents
	s.mu.Unlock()
	ok = m.mayMatch(k, lbls)
	for _, p := range parents {
		if !ok {
			break
		}
		p.mu.Lock()
		pm := p.match
		p.mu.Unlock()
		ok = pm.mayMatch(k, lbls)
	}
	return ok, s.gen.Load()
}

// generation returns the number of changes so far (of s, and of the
// Selections it follows while subscribed).
func (s *Selection) generation() uint64 { return s.gen.Load() }

// follow records parent as followed by s: a change of parent is a change
// of s once s subscribes. The caller calls it before subscribe.
func (s *Selection) follow(parent *Selection) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.parents = append(s.parents, parent)
}

// subscribe makes s a follower of each Selection it follows, so that their
// changes are changes of s. An informer subscribes its Selection when it
// starts running and unsubscribes it when it stops: a followed Selection
// (a factory's) references only the Selections of running informers.
func (s *Selection) subscribe() {
	s.mu.Lock()
	parents := s.parents
	s.mu.Unlock()
	for _, p := range parents {
		p.mu.Lock()
		if p.followers == nil {
			p.followers = map[*Selection]struct{}{}
		}
		p.followers[s] = struct{}{}
		p.mu.Unlock()
	}
}

// unsubscribe undoes subscribe.
func (s *Selection) unsubscribe() {
	s.mu.Lock()
	parents := s.parents
	s.mu.Unlock()
	for _, p := range parents {
		p.mu.Lock()
		delete(p.followers, s)
		p.mu.Unlock()
	}
}

// Followers returns how many Selections are subscribed to this one's
// changes: one per running informer that follows it (FollowSelection).
// An informer that was never run, or that stopped, is not counted.
func (s *Selection) Followers() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.followers)
}

func and(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "," + b
}

// matcher decides on the client whether an object's last known state lies
// in a selection, to tell objects that left it from deleted ones. Labels
// are matched fully; fields only metadata.name and metadata.namespace: an
// object under a requirement on another field counts as outside.
type matcher struct {
	label labels.Selector
	field fields.Selector
	// fieldsKnown: every field requirement is on a metadata field.
	fieldsKnown bool
}

func newMatcher(tweak TweakListOptionsFunc, labelSelector, fieldSelector string) (matcher, error) {
	var opts metav1.ListOptions
	if tweak != nil {
		tweak(&opts)
	}
	ls, err := labels.Parse(labelSelector)
	if err != nil {
		return matcher{}, fmt.Errorf("label selector %q: %w", labelSelector, err)
	}
	fs, err := fields.ParseSelector(fieldSelector)
	if err != nil {
		return matcher{}, fmt.Errorf("field selector %q: %w", fieldSelector, err)
	}
	tl, err := labels.Parse(opts.LabelSelector)
	if err != nil {
		return matcher{}, fmt.Errorf("label selector %q set by the TweakListOptionsFunc: %w", opts.LabelSelector, err)
	}
	tf, err := fields.ParseSelector(opts.FieldSelector)
	if err != nil {
		return matcher{}, fmt.Errorf("field selector %q set by the TweakListOptionsFunc: %w", opts.FieldSelector, err)
	}
	if reqs, ok := tl.Requirements(); ok {
		ls = ls.Add(reqs...)
	}
	field := fields.AndSelectors(fs, tf)
	known := true
	for _, r := range field.Requirements() {
		if r.Field != "metadata.name" && r.Field != "metadata.namespace" {
			known = false
		}
	}
	return matcher{label: ls, field: field, fieldsKnown: known}, nil
}

// mayMatch is matches for a written object known by key and labels, with
// an undecidable field requirement counting as met.
func (m matcher) mayMatch(k keys.Key, lbls map[string]string) bool {
	if m.label != nil && !m.label.Matches(labels.Set(lbls)) {
		return false
	}
	if m.field == nil || m.field.Empty() || !m.fieldsKnown {
		return true
	}
	return m.field.Matches(fields.Set{"metadata.name": k.Name, "metadata.namespace": k.Namespace})
}

func (m matcher) matches(obj metav1.Object) bool {
	if m.label != nil && !m.label.Matches(labels.Set(obj.GetLabels())) {
		return false
	}
	if m.field == nil || m.field.Empty() {
		return true
	}
	if !m.fieldsKnown {
		return false
	}
	return m.field.Matches(fields.Set{"metadata.name": obj.GetName(), "metadata.namespace": obj.GetNamespace()})
}

// SelectableInformer is implemented by informers whose selection can
// change while they run: this package's informers. (A factory's
// multi-namespace informer is changed through its factory, see
// informers.Factory.Selection.)
//
// A change makes the informer end its watch and list again with the new
// value, without restarting and without backing off. The relist is applied
// to the store as one step, so a reader of the store sees the old
// selection's objects (kept up to date by the old watch) until the new
// list replaces them: never an empty store, never both selections mixed.
// Nothing listed or watched with the new value reaches the store before
// that list. Handlers are told in order (see SharedIndexInformer): first
// the objects that left the selection (removed from the store, told as
// described on ScopeExitHandler, by default OnDelete(obj, true)), then
// OnAdd(obj, false) for objects that entered it and OnUpdate for those in
// both (reaching only syncing handlers when the resourceVersion is
// unchanged). An object missing from the new list whose last known state
// the new value still selects was deleted meanwhile and is told as a
// relist's deletion, OnDelete(obj, true). Whether an object left is
// decided on the client from its labels and, for field selectors, its
// metadata.name and metadata.namespace; under a requirement on any other
// field a missing object counts as having left. Changes in quick
// succession may be folded into one relist, with the latest value.
type SelectableInformer interface {
	// SetSelectors replaces the informer's own label and field selectors
	// while it runs. It returns once the change is recorded, before the
	// relist. A selector that does not parse, or an informer that has
	// not started or has stopped (ErrNotRunning), is an error naming the
	// informer and the selector; the informer then keeps its selection
	// and its cache.
	SetSelectors(labelSelector, fieldSelector string) error
	// SetInitialSelectors sets the selectors the informer starts with; it
	// fails once the informer runs, or when a selector does not parse.
	SetInitialSelectors(labelSelector, fieldSelector string) error
	// Selectors returns the informer's own selectors.
	Selectors() (labelSelector, fieldSelector string)
	// FollowSelection makes a change of sel (which the informer's
	// ListerWatcher applies itself, e.g. through a factory's
	// TweakListOptionsFunc) relist the informer as its own change does.
	// It must be called before Run, and may be called for several
	// Selections. The informer subscribes to sel's changes only while it
	// runs (see Selection.Followers): one that never runs, or that has
	// stopped, is not referenced by sel.
	FollowSelection(sel *Selection) error
	// ListedSelection reports whether a list of the informer's current
	// selection (its own and the followed one's) has been queued for its
	// store: the store holds that selection as soon as the informer has
	// applied what was queued before it, and handlers are told in order
	// after the notifications already queued.
	ListedSelection() bool
}

func (s *sharedIndexInformer[T]) SetSelectors(labelSelector, fieldSelector string) error {
	s.startMu.Lock()
	running := s.started && !s.stopping && !s.stopped && s.initErr == nil
	s.startMu.Unlock()
	if !running {
		return fmt.Errorf("informer %s: SetSelectors(%q, %q): %w", s.name, labelSelector, fieldSelector, ErrNotRunning)
	}
	if err := s.sel.SetSelectors(labelSelector, fieldSelector); err != nil {
		return fmt.Errorf("informer %s: SetSelectors: %w", s.name, err)
	}
	return nil
}

func (s *sharedIndexInformer[T]) SetInitialSelectors(labelSelector, fieldSelector string) error {
	var err error
	if e := s.beforeRun("SetInitialSelectors", func() { err = s.sel.SetSelectors(labelSelector, fieldSelector) }); e != nil {
		return e
	}
	if err != nil {
		return fmt.Errorf("informer %s: SetInitialSelectors: %w", s.name, err)
	}
	return nil
}

func (s *sharedIndexInformer[T]) Selectors() (labelSelector, fieldSelector string) {
	return s.sel.Selectors()
}

func (s *sharedIndexInformer[T]) FollowSelection(sel *Selection) error {
	if sel == nil {
		return fmt.Errorf("informer %s: FollowSelection: nil Selection", s.name)
	}
	return s.beforeRun("FollowSelection", func() { s.sel.follow(sel) })
}

func (s *sharedIndexInformer[T]) ListedSelection() bool {
	s.startMu.Lock()
	r := s.refl
	s.startMu.Unlock()
	if r == nil {
		return false
	}
	_, gen, _ := s.sel.Begin()
	listed, ok := r.ListedSelection()
	return ok && listed == gen
}
