package deltafifo

import (
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/typedinformer/typedinformer/runtime/internal/keys"
)

// KnownObjects is what a Queue asks about the objects already applied
// downstream (the informer's store): it needs their keys for Replace and
// Resync and their last state for tombstones. The Queue calls it with its own
// lock held, so its methods must not call back into the Queue.
type KnownObjects[T keys.Object] interface {
	// ListKeys returns the keys of every applied object.
	ListKeys() []string
	// GetByKey returns the applied state of key, if any.
	GetByKey(key string) (T, bool, error)
}

// ErrClosed is returned by Pop and PopBatch once the queue has been closed.
var ErrClosed = errors.New("DeltaFIFO: queue closed")

// Queue is the DeltaFIFO, a queue of deltas in arrival order: every Add,
// Update and Delete queues one delta, and a later delta of one key never
// overtakes an earlier delta of another (client-go's RealFIFO contract, the
// only one its informers have since v1.33). All methods are safe for concurrent use; a
// single consumer is expected to call Pop or PopBatch.
//
// Semantics:
//   - Delete queues a Deleted delta whether or not the key is queued or
//     known: the consumer tells its handlers of every watch deletion, as
//     client-go does.
//   - Replace(list) queues a tombstone (Deleted with FinalStateUnknown,
//     carrying the last state queued or known) for every queued or known
//     key the list lacks, unless that key's last queued delta is already a
//     Deleted, then Replaced for every listed object in list order: the
//     deletions come before the listed objects, as with client-go's
//     AtomicFIFO. The tombstones of queued keys come first, in the order of
//     each key's first queued delta, then those of known keys in sorted key
//     order (client-go's order among them is its store's map order).
//   - The deltas of a Replace that queued a tombstone are popped as one
//     batch, whatever maxBatch is, so that the consumer applies the whole
//     list before its handlers hear of any of them (client-go replaces its
//     store before it calls the handlers).
//   - Resync queues Sync only for known keys with nothing queued.
//   - The deltas a PopBatch is processing count as queued until its process
//     function returns: the store may not reflect them yet, so Replace
//     and Resync do not trust it for those keys.
//   - HasSynced turns true once every delta queued by the first Replace has
//     been popped and its process function has returned (or once an Add,
//     Update or Delete came before any Replace). Those deltas, and only
//     those, are popped with isInInitialList set; a batch never mixes them
//     with later deltas.
//   - Close wakes the consumer; Pop then returns ErrClosed and queued
//     deltas are dropped.
type Queue[T keys.Object] struct {
	mu   sync.Mutex
	cond sync.Cond

	// items[head:] are the queued deltas, oldest first.
	items []Delta[T]
	head  int

	known KnownObjects[T]

	// inflight is the batch PopBatch handed to its process function, until
	// it returns. It aliases items' backing array (see PopBatch).
	inflight []Delta[T]

	populated        bool
	initialRemaining int
	closed           bool

	// synced (made by the first Synced call) is closed in the critical
	// section that makes HasSynced true (syncedClosed), so a receive from
	// it succeeds exactly when HasSynced is true; onSynced (SetOnSynced) is
	// then called once, after mu is released.
	synced       chan struct{}
	syncedClosed bool
	onSynced     func()

	// atomic are the [start, end) spans, counted in deltas ever queued
	// (see popped), of Replaces whose deltas PopBatch hands over as one
	// batch, oldest first.
	atomic []span

	// obs, when set (SetObserver), is told the queue's depth and the
	// resourceVersions the consumer's store reaches. popped counts the
	// deltas ever taken by PopBatch; marks are the resourceVersions of
	// Replace and Bookmark calls waiting for the deltas queued before them
	// to be processed, oldest first (only kept while obs is set).
	obs    Observer
	popped uint64
	marks  []rvMark
}

// Observer watches a Queue for metrics. The Queue calls it with its lock
// held, so its methods must be cheap and must not call back into the Queue.
type Observer interface {
	// Queued is the number of queued deltas (not counting a batch being
	// processed), after every change: each queued delta, the end of a
	// Replace, each batch taken by PopBatch.
	Queued(n int)
	// Reached is a Replace's or Bookmark's resourceVersion, once every
	// delta queued before that call has been processed and no delta
	// queued after it was processed in the same batch (then the consumer's
	// store is past it). On an idle queue it is called at once.
	Reached(resourceVersion string)
}

// GenerationObserver is an Observer that also wants MarkGeneration's
// marks.
type GenerationObserver interface {
	Observer
	// GenerationReached is the highest generation marked by
	// MarkGeneration among the marks whose preceding deltas have all been
	// processed (deltas queued after a mark may have been processed in the
	// same batch). On an idle queue it is called at once.
	GenerationReached(gen uint64)
}

// span is a range of deltas counted from the first ever queued.
type span struct{ start, end uint64 }

// rvMark is a resourceVersion (or, when isGen, a generation) that the
// store reaches once the first at deltas ever queued have been processed.
type rvMark struct {
	at    uint64
	rv    string
	gen   uint64
	isGen bool
}

// SetObserver sets (nil: removes) the queue's observer.
func (f *Queue[T]) SetObserver(o Observer) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.obs = o
	f.marks = nil
}

// Bookmark tells the observer, if any, that the store reaches
// resourceVersion once the deltas queued so far are processed. Without an
// observer it does nothing.
func (f *Queue[T]) Bookmark(resourceVersion string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.obs != nil {
		f.markLocked(rvMark{rv: resourceVersion})
	}
}

// MarkGeneration tells a GenerationObserver, if one is set, gen once the
// deltas queued so far are processed. A caller marks, after a Replace,
// which version of its own state (a selection) that list stored.
func (f *Queue[T]) MarkGeneration(gen uint64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.obs.(GenerationObserver); ok {
		f.markLocked(rvMark{gen: gen, isGen: true})
	}
}

// markLocked reports m to the observer at once when nothing is queued or
// being processed, and otherwise remembers it for PopBatch. The caller
// holds mu and has checked that obs is set.
func (f *Queue[T]) markLocked(m rvMark) {
	queued := len(f.items) - f.head
	if queued == 0 && f.inflight == nil {
		f.reportLocked(m)
		return
	}
	m.at = f.popped + uint64(queued)
	f.marks = append(f.marks, m)
}

// reportLocked tells the observer of one reached mark.
func (f *Queue[T]) reportLocked(m rvMark) {
	if m.isGen {
		f.obs.(GenerationObserver).GenerationReached(m.gen)
		return
	}
	f.obs.Reached(m.rv)
}

// reachedLocked reports the newest resourceVersion mark that the batch
// just processed completed, when that batch ends exactly at it (a mark
// inside the batch was passed by the deltas after it), and the highest
// generation mark it completed, and drops every completed mark. The
// caller holds mu and has checked that obs is set.
func (f *Queue[T]) reachedLocked() {
	i := 0
	for i < len(f.marks) && f.marks[i].at <= f.popped {
		i++
	}
	if i == 0 {
		return
	}
	var last, gen *rvMark
	for j := range f.marks[:i] {
		m := &f.marks[j]
		switch {
		case !m.isGen:
			last = m
		case gen == nil || m.gen > gen.gen:
			gen = m
		}
	}
	if last != nil && last.at == f.popped {
		f.reportLocked(*last)
	}
	if gen != nil {
		f.reportLocked(*gen)
	}
	f.marks = append(f.marks[:0], f.marks[i:]...)
}

// New returns an empty queue. known may be nil: then Replace only
// tombstones queued keys and Resync does nothing.
func New[T keys.Object](known KnownObjects[T]) *Queue[T] {
	f := &Queue[T]{known: known}
	f.cond.L = &f.mu
	return f
}

// SetOnSynced sets a function called once, when HasSynced turns true, from
// the goroutine that made it so and with no lock of the queue held. It must
// be set before the queue is used.
func (f *Queue[T]) SetOnSynced(fn func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.onSynced = fn
}

// Synced returns a channel that is closed when HasSynced turns true: a
// receive from it succeeds exactly when HasSynced reports true.
func (f *Queue[T]) Synced() <-chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.synced == nil {
		f.synced = make(chan struct{})
		if f.syncedClosed {
			close(f.synced)
		}
	}
	return f.synced
}

// markSyncedLocked closes synced if the queue has just synced and reports
// whether it did; the caller then calls notifySynced after releasing mu.
func (f *Queue[T]) markSyncedLocked() bool {
	if f.syncedClosed || !f.populated || f.initialRemaining != 0 {
		return false
	}
	f.syncedClosed = true
	if f.synced != nil {
		close(f.synced)
	}
	return f.onSynced != nil
}

// notifySynced calls onSynced; the caller does not hold mu and got true
// from markSyncedLocked.
func (f *Queue[T]) notifySynced() {
	f.mu.Lock()
	fn := f.onSynced
	f.mu.Unlock()
	if fn != nil {
		fn()
	}
}

// queueOne queues d, marking the queue populated (an Add, Update or
// Delete before any Replace makes it synced).
func (f *Queue[T]) queueOne(d Delta[T]) {
	f.mu.Lock()
	f.populated = true
	f.queueLocked(d)
	fire := f.markSyncedLocked()
	f.mu.Unlock()
	if fire {
		f.notifySynced()
	}
}

// Add queues an Added delta for obj.
func (f *Queue[T]) Add(obj T) error {
	f.queueOne(Delta[T]{Type: Added, Object: obj})
	return nil
}

// Update queues an Updated delta for obj.
func (f *Queue[T]) Update(obj T) error {
	f.queueOne(Delta[T]{Type: Updated, Object: obj})
	return nil
}

// Delete queues a Deleted delta for obj, whether or not its key is queued
// or known.
func (f *Queue[T]) Delete(obj T) error {
	f.queueOne(Delta[T]{Type: Deleted, Object: obj})
	return nil
}

// queuedKeysLocked returns the keys with a delta queued or being processed.
func (f *Queue[T]) queuedKeysLocked() map[keys.Key]struct{} {
	out := make(map[keys.Key]struct{}, len(f.items)-f.head+len(f.inflight))
	for _, ds := range [][]Delta[T]{f.inflight, f.items[f.head:]} {
		for _, d := range ds {
			out[keys.Of(d.Object)] = struct{}{}
		}
	}
	return out
}

// queueLocked appends d and wakes the consumer. The caller holds mu.
func (f *Queue[T]) queueLocked(d Delta[T]) {
	f.items = append(f.items, d)
	f.cond.Signal()
	if f.obs != nil {
		f.obs.Queued(len(f.items) - f.head)
	}
}

// reserveLocked makes room for n more deltas in one allocation, so that
// queueing a large list neither regrows the array step by step (each step
// garbage) nor over-allocates up to the next doubling. A new array starts
// at the oldest queued delta: the popped prefix is not copied (a batch
// being processed keeps the old array it aliases). The caller holds mu.
func (f *Queue[T]) reserveLocked(n int) {
	if cap(f.items)-len(f.items) >= n {
		return
	}
	queued := len(f.items) - f.head
	fresh := make([]Delta[T], queued, queued+n)
	copy(fresh, f.items[f.head:])
	f.items, f.head = fresh, 0
}

// shrinkAbove is the number of queued deltas above which a drained queue
// drops its backing array: large enough that a steady event stream does not
// regrow it again and again, small enough that the burst of an initial list
// (even of a few thousand objects: 1<<16 kept about 26 bytes per object of
// a 10k list) does not stay allocated.
const shrinkAbove = 1 << 10

// Replace queues a tombstone for every queued or known key missing from
// list, then Replaced for every object in list, in list order (see Queue for
// the tombstones' order and batching). The first Replace defines the initial
// population that HasSynced waits for.
func (f *Queue[T]) Replace(list []T, rv string) error {
	return f.ReplaceInScope(list, rv, nil)
}

// ReplaceInScope is Replace for an informer whose scope (the part of the
// resource it caches, e.g. its shard ranges) may have changed since the
// last list: each tombstone of a key missing from list whose last known
// object inScope rejects is marked LeftScope (the object moved out of the
// scope rather than being deleted). A nil inScope accepts every object,
// which makes it Replace. list must hold only objects inScope accepts.
func (f *Queue[T]) ReplaceInScope(list []T, rv string, inScope func(obj T) bool) error {
	synced, err := f.replaceInScope(list, rv, inScope)
	if synced {
		f.notifySynced()
	}
	return err
}

// replaceInScope is ReplaceInScope under mu; it reports whether the queue
// synced with it (a first Replace of nothing).
func (f *Queue[T]) replaceInScope(list []T, rv string, inScope func(obj T) bool) (synced bool, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()

	// The last delta of every queued (or in-flight) key, in order of first
	// appearance, before the list's own deltas are queued.
	var pendingKeys []keys.Key
	var last map[keys.Key]Delta[T]
	if pending := len(f.inflight) + len(f.items) - f.head; pending > 0 {
		last = make(map[keys.Key]Delta[T], min(pending, 1024))
		note := func(ds []Delta[T]) {
			for _, d := range ds {
				k := keys.Of(d.Object)
				if _, seen := last[k]; !seen {
					pendingKeys = append(pendingKeys, k)
				}
				last[k] = d
			}
		}
		note(f.inflight)
		note(f.items[f.head:])
	}

	var knownKeys []string
	if f.known != nil {
		knownKeys = f.known.ListKeys()
	}
	// The set of listed keys is needed only to find what the list lacks;
	// a list replacing nothing (the first one, usually) needs no set.
	var listed map[keys.Key]struct{}
	if len(knownKeys) > 0 || len(pendingKeys) > 0 {
		listed = make(map[keys.Key]struct{}, len(list))
		for _, obj := range list {
			listed[keys.Of(obj)] = struct{}{}
		}
	}
	var knownMissing []string
	for _, key := range knownKeys {
		k, err := keys.Parse(key)
		if err != nil {
			return false, fmt.Errorf("DeltaFIFO replace: %w", err)
		}
		if _, ok := listed[k]; ok {
			continue
		}
		if _, ok := last[k]; ok {
			continue // handled with the queued keys
		}
		knownMissing = append(knownMissing, key)
	}
	slices.Sort(knownMissing) // deterministic tombstone order
	// Read the known objects before queueing anything, so that a failing
	// store leaves the queue as it was.
	knownObjs := make([]T, 0, len(knownMissing))
	for _, key := range knownMissing {
		obj, exists, err := f.known.GetByKey(key)
		if err != nil {
			return false, fmt.Errorf("DeltaFIFO replace: reading %s: %w", key, err)
		}
		if exists {
			knownObjs = append(knownObjs, obj)
		}
	}

	before := len(f.items) - f.head
	f.reserveLocked(len(list) + len(pendingKeys) + len(knownObjs))
	for _, k := range pendingKeys {
		if _, ok := listed[k]; ok {
			continue
		}
		d := last[k]
		if d.Type == Deleted {
			continue // already going away
		}
		f.items = append(f.items, Delta[T]{Type: Deleted, Object: d.Object, FinalStateUnknown: true, LeftScope: inScope != nil && !inScope(d.Object)})
	}
	for _, obj := range knownObjs {
		f.items = append(f.items, Delta[T]{Type: Deleted, Object: obj, FinalStateUnknown: true, LeftScope: inScope != nil && !inScope(obj)})
	}
	tombstones := len(f.items) - f.head - before
	for _, obj := range list {
		f.items = append(f.items, Delta[T]{Type: Replaced, Object: obj})
	}
	queued := len(f.items) - f.head
	if queued > before {
		f.cond.Signal()
	}
	if tombstones > 0 {
		start := f.popped + uint64(before)
		f.atomic = append(f.atomic, span{start: start, end: start + uint64(queued-before)})
	}
	if !f.populated {
		f.populated = true
		f.initialRemaining = len(f.items) - f.head - before
		synced = f.markSyncedLocked()
	}
	if f.obs != nil {
		f.obs.Queued(len(f.items) - f.head)
		f.markLocked(rvMark{rv: rv})
	}
	return synced, nil
}

// Resync queues a Sync delta for every known key that has nothing queued and
// is not being processed.
func (f *Queue[T]) Resync() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.known == nil {
		return nil
	}
	queued := f.queuedKeysLocked()
	for _, key := range f.known.ListKeys() {
		k, err := keys.Parse(key)
		if err != nil {
			return fmt.Errorf("DeltaFIFO resync: %w", err)
		}
		if _, ok := queued[k]; ok {
			continue // the store is about to change
		}
		obj, exists, err := f.known.GetByKey(key)
		if err != nil {
			return fmt.Errorf("DeltaFIFO resync: reading %s: %w", key, err)
		}
		if !exists {
			continue
		}
		f.queueLocked(Delta[T]{Type: Sync, Object: obj})
	}
	return nil
}

// HasSynced reports whether the first Replace's deltas have all been popped
// and processed, or an Add, Update or Delete came before the first Replace.
func (f *Queue[T]) HasSynced() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.populated && f.initialRemaining == 0
}

// Len returns the number of queued deltas (not counting a batch being
// processed).
func (f *Queue[T]) Len() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.items) - f.head
}

// Queued returns a copy of the queued deltas, oldest first.
func (f *Queue[T]) Queued() []Delta[T] {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.items[f.head:])
}

// Close wakes every blocked Pop, which then returns ErrClosed; queued
// deltas are dropped.
func (f *Queue[T]) Close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closed = true
	f.cond.Broadcast()
}

// IsClosed reports whether Close was called.
func (f *Queue[T]) IsClosed() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.closed
}

// Pop waits for a delta and hands it to process, outside the queue's lock.
// The deltas of a Replace that PopBatch pops as one batch are all handed
// over, one call each, before Pop returns their errors joined. See
// PopBatch.
func (f *Queue[T]) Pop(process func(d Delta[T], isInInitialList bool) error) error {
	return f.PopBatch(1, func(batch []Delta[T], initial bool) error {
		var errs []error
		for _, d := range batch {
			if err := process(d, initial); err != nil {
				errs = append(errs, err)
			}
		}
		return errors.Join(errs...)
	})
}

// PopBatch waits until at least one delta is queued, takes up to maxBatch of them
// in queue order (all the deltas of a Replace that queued a tombstone, however
// many, and never part of them), and hands them to process outside the queue's lock, so that
// the caller can apply them to its store under one lock, in order.
// isInInitialList is true when the batch belongs to the first Replace; a
// batch never mixes such deltas with later ones. process must not keep batch
// after it returns: its memory is reused. process's error is returned; the
// deltas count as processed either way. PopBatch returns ErrClosed once
// the queue is closed.
func (f *Queue[T]) PopBatch(maxBatch int, process func(batch []Delta[T], isInInitialList bool) error) error {
	if maxBatch < 1 {
		maxBatch = 1
	}
	f.mu.Lock()
	for len(f.items)-f.head == 0 && !f.closed {
		f.cond.Wait()
	}
	if f.closed {
		f.mu.Unlock()
		return ErrClosed
	}
	n := min(len(f.items)-f.head, maxBatch)
	initial := f.initialRemaining > 0
	if initial {
		n = min(n, f.initialRemaining)
	}
	if len(f.atomic) > 0 {
		// A Replace with tombstones is one batch; a batch before it stops
		// where it starts.
		if sp := f.atomic[0]; sp.start == f.popped {
			n = int(sp.end - sp.start)
			f.atomic = f.atomic[1:]
		} else {
			n = min(n, int(sp.start-f.popped))
		}
	}
	// The batch aliases the queue's array: producers only append past it,
	// and compaction happens only here, after processing.
	batch := f.items[f.head : f.head+n : f.head+n]
	f.head += n
	f.popped += uint64(n)
	f.inflight = batch
	if f.obs != nil {
		f.obs.Queued(len(f.items) - f.head)
	}
	f.mu.Unlock()

	err := process(batch, initial)

	if f.processedLocked(batch, initial, n) {
		f.notifySynced()
	}
	return err
}

// processedLocked finishes a PopBatch whose process function returned,
// taking and releasing mu, and reports whether the queue synced with it.
func (f *Queue[T]) processedLocked(batch []Delta[T], initial bool, n int) (synced bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.inflight = nil
	clear(batch) // drop the object references for the collector
	if len(f.marks) > 0 {
		f.reachedLocked()
	}
	if initial {
		f.initialRemaining -= n
		synced = f.markSyncedLocked()
	}
	switch {
	case f.head == len(f.items):
		// Drained. After a large burst (an initial list of 100k objects)
		// do not keep its array: a fresh queue costs little.
		f.items, f.head = f.items[:0], 0
		if cap(f.items) > shrinkAbove {
			f.items = nil
		}
	case f.head > 1024 && f.head*2 > len(f.items):
		rest := copy(f.items, f.items[f.head:])
		clear(f.items[rest:])
		f.items, f.head = f.items[:rest], 0
	}
	return synced
}
