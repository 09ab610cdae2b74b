package cache

import (
	"errors"
	"fmt"
	"sync"
)

// DeltaType says what happened to an object.
type DeltaType uint8

const (
	// Added: a watch reported a new object.
	Added DeltaType = iota + 1
	// Updated: a watch reported a change.
	Updated
	// Deleted: the object is gone. With FinalStateUnknown set, the delete
	// was inferred from a relist and Object is the last state known.
	Deleted
	// Replaced: the object was part of a (re)list.
	Replaced
	// Sync: a periodic resync re-delivers an unchanged object.
	Sync
)

// String returns the delta type's name.
func (t DeltaType) String() string {
	switch t {
	case Added:
		return "Added"
	case Updated:
		return "Updated"
	case Deleted:
		return "Deleted"
	case Replaced:
		return "Replaced"
	case Sync:
		return "Sync"
	}
	return fmt.Sprintf("DeltaType(%d)", uint8(t))
}

// Delta is one change to one object.
type Delta[T Object] struct {
	Type   DeltaType
	Object T
	// FinalStateUnknown marks a Deleted delta inferred from a relist: the
	// delete itself was missed and Object is the last known state.
	FinalStateUnknown bool
}

// Deltas is the ordered list of changes queued for one key, oldest first.
type Deltas[T Object] []Delta[T]

// Newest returns the most recent delta, or false when d is empty.
func (d Deltas[T]) Newest() (Delta[T], bool) {
	if len(d) == 0 {
		return Delta[T]{}, false
	}
	return d[len(d)-1], true
}

// KnownObjects is what a DeltaFIFO asks about the objects already applied
// downstream (the informer's store): it needs their keys for Replace and
// Resync and their last state for tombstones.
type KnownObjects[T Object] interface {
	// ListKeys returns the keys of every applied object.
	ListKeys() []string
	// GetByKey returns the applied state of key, if any.
	GetByKey(key string) (T, bool, error)
}

// ErrFIFOClosed is returned by Pop once the queue has been closed.
var ErrFIFOClosed = errors.New("DeltaFIFO: queue closed")

// ErrRequeue, returned (or wrapped) by a process function, puts the key's
// deltas back at the front of that key's queue and the key at the end of the
// queue.
var ErrRequeue = errors.New("requeue")

// PoppedDeltas is one key's deltas handed to a batch process function.
type PoppedDeltas[T Object] struct {
	key    objKey
	Deltas Deltas[T]
	// IsInInitialList is true when the key was popped before the queue
	// had synced (it belongs to the first Replace).
	IsInInitialList bool
}

// Key returns the store key the deltas belong to.
func (p PoppedDeltas[T]) Key() string { return p.key.String() }

// DeltaFIFO is a queue of keys, each with the ordered deltas that happened
// to its object since it was last popped. A key is in the queue at most once;
// deltas for a queued key are appended to it. All methods are safe for
// concurrent use; a single consumer is expected to call Pop or PopBatch.
//
// Semantics:
//   - Two consecutive Deleted deltas collapse to one, keeping the one that is
//     not a tombstone.
//   - Delete of a key that is neither queued nor known is ignored.
//   - Replace(list) queues Replaced for every listed object, then a tombstone
//     for every known or queued key the list lacks.
//   - Resync queues Sync only for known keys with no queued deltas.
//   - A key whose deltas a PopBatch is processing counts as queued, with
//     those deltas, until its process function returns: the store may not
//     reflect them yet, so Delete, Replace and Resync do not trust it for
//     that key.
//   - HasSynced turns true once every key of the first Replace has been
//     popped and its process function has returned (or once anything was
//     queued before the first Replace).
type DeltaFIFO[T Object] struct {
	mu   sync.Mutex
	cond sync.Cond

	items map[objKey]Deltas[T]
	queue []objKey
	head  int

	known KnownObjects[T]

	// inflight holds the deltas of the keys PopBatch handed to its process
	// function, until it returns. Those keys count as queued: the store
	// may not reflect their deltas yet, so Delete, Replace and Resync must
	// look at these deltas rather than at the store.
	inflight map[objKey]Deltas[T]

	populated        bool
	initialRemaining int
	closed           bool

	// free holds emptied Deltas backing arrays for reuse.
	free []Deltas[T]
	// batch is PopBatch's reused result slice (single consumer).
	batch []PoppedDeltas[T]
}

// NewDeltaFIFO returns an empty queue. known may be nil (then Replace only
// tombstones queued keys and Resync does nothing).
func NewDeltaFIFO[T Object](known KnownObjects[T]) *DeltaFIFO[T] {
	f := &DeltaFIFO[T]{items: map[objKey]Deltas[T]{}, inflight: map[objKey]Deltas[T]{}, known: known}
	f.cond.L = &f.mu
	return f
}

// Add queues an Added delta for obj.
func (f *DeltaFIFO[T]) Add(obj T) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.populated = true
	f.queueLocked(keyOfObj(obj), Delta[T]{Type: Added, Object: obj})
	return nil
}

// Update queues an Updated delta for obj.
func (f *DeltaFIFO[T]) Update(obj T) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.populated = true
	f.queueLocked(keyOfObj(obj), Delta[T]{Type: Updated, Object: obj})
	return nil
}

// Delete queues a Deleted delta for obj, unless its key is neither queued
// (nor being processed) nor known.
func (f *DeltaFIFO[T]) Delete(obj T) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.populated = true
	k := keyOfObj(obj)
	_, queued := f.items[k]
	_, busy := f.inflight[k]
	if !queued && !busy {
		if f.known == nil {
			return nil
		}
		_, exists, err := f.known.GetByKey(k.String())
		if err != nil {
			return fmt.Errorf("DeltaFIFO delete %s: %w", k, err)
		}
		if !exists {
			return nil
		}
	}
	f.queueLocked(k, Delta[T]{Type: Deleted, Object: obj})
	return nil
}

// queueLocked appends d to k's deltas, collapsing consecutive deletes, and
// queues k if it was not queued. The caller holds mu.
func (f *DeltaFIFO[T]) queueLocked(k objKey, d Delta[T]) {
	ds, queued := f.items[k]
	if !queued {
		if n := len(f.free); n > 0 {
			ds = f.free[n-1][:0]
			f.free[n-1] = nil
			f.free = f.free[:n-1]
		}
	}
	ds = append(ds, d)
	if n := len(ds); n >= 2 && ds[n-1].Type == Deleted && ds[n-2].Type == Deleted {
		// Keep the older delta when the newer one is a tombstone: the
		// older carries the real final state.
		if !ds[n-1].FinalStateUnknown {
			ds[n-2] = ds[n-1]
		}
		ds[n-1] = Delta[T]{}
		ds = ds[:n-1]
	}
	f.items[k] = ds
	if !queued {
		f.queue = append(f.queue, k)
		f.cond.Signal()
	}
}

// newestLocked returns the newest delta of k that the store may not reflect
// yet: the last queued one, else the last one being processed. The caller
// holds mu.
func (f *DeltaFIFO[T]) newestLocked(k objKey) (Delta[T], bool) {
	if ds, queued := f.items[k]; queued {
		if d, ok := ds.Newest(); ok {
			return d, true
		}
	}
	return f.inflight[k].Newest()
}

// Replace queues Replaced for every object in list and a tombstone for every
// known or queued key missing from it. The first Replace defines the initial
// population that HasSynced waits for.
func (f *DeltaFIFO[T]) Replace(list []T, _ string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	listed := make(map[objKey]struct{}, len(list))
	for _, obj := range list {
		k := keyOfObj(obj)
		listed[k] = struct{}{}
		f.queueLocked(k, Delta[T]{Type: Replaced, Object: obj})
	}
	tombstones := 0
	// Queued or in-flight keys that are not known downstream and not
	// listed.
	pending := make([]objKey, 0, len(f.items)+len(f.inflight))
	for k := range f.items {
		pending = append(pending, k)
	}
	for k := range f.inflight {
		if _, queued := f.items[k]; !queued {
			pending = append(pending, k)
		}
	}
	for _, k := range pending {
		if _, ok := listed[k]; ok {
			continue
		}
		if f.known != nil {
			if _, exists, _ := f.known.GetByKey(k.String()); exists {
				continue // handled below with the known keys
			}
		}
		last, ok := f.newestLocked(k)
		if !ok || (last.Type == Deleted) {
			continue // already going away
		}
		f.queueLocked(k, Delta[T]{Type: Deleted, Object: last.Object, FinalStateUnknown: true})
		tombstones++
	}
	if f.known != nil {
		for _, key := range f.known.ListKeys() {
			k, err := parseKey(key)
			if err != nil {
				return fmt.Errorf("DeltaFIFO replace: %w", err)
			}
			if _, ok := listed[k]; ok {
				continue
			}
			var lastKnown T
			found := false
			if last, ok := f.newestLocked(k); ok {
				if last.Type == Deleted {
					continue
				}
				lastKnown, found = last.Object, true
			}
			if !found {
				obj, exists, err := f.known.GetByKey(key)
				if err != nil {
					return fmt.Errorf("DeltaFIFO replace: reading %s: %w", key, err)
				}
				if !exists {
					continue
				}
				lastKnown = obj
			}
			f.queueLocked(k, Delta[T]{Type: Deleted, Object: lastKnown, FinalStateUnknown: true})
			tombstones++
		}
	}
	if !f.populated {
		f.populated = true
		f.initialRemaining = len(listed) + tombstones
	}
	return nil
}

// Resync queues a Sync delta for every known key that has nothing queued and
// is not being processed.
func (f *DeltaFIFO[T]) Resync() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.known == nil {
		return nil
	}
	for _, key := range f.known.ListKeys() {
		k, err := parseKey(key)
		if err != nil {
			return fmt.Errorf("DeltaFIFO resync: %w", err)
		}
		if _, queued := f.items[k]; queued {
			continue
		}
		if _, busy := f.inflight[k]; busy {
			continue // being applied: the store is about to change
		}
		obj, exists, err := f.known.GetByKey(key)
		if err != nil {
			return fmt.Errorf("DeltaFIFO resync: reading %s: %w", key, err)
		}
		if !exists {
			continue
		}
		f.queueLocked(k, Delta[T]{Type: Sync, Object: obj})
	}
	return nil
}

// HasSynced reports whether the first Replace's keys have all been popped
// and processed, or anything was queued before the first Replace.
func (f *DeltaFIFO[T]) HasSynced() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.populated && f.initialRemaining == 0
}

// Len returns the number of queued keys.
func (f *DeltaFIFO[T]) Len() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.queue) - f.head
}

// Get returns the deltas queued for key (a copy).
func (f *DeltaFIFO[T]) Get(key string) (Deltas[T], bool) {
	k, err := parseKey(key)
	if err != nil {
		return nil, false
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	ds, ok := f.items[k]
	if !ok {
		return nil, false
	}
	return append(Deltas[T](nil), ds...), true
}

// ListKeys returns the queued keys in queue order.
func (f *DeltaFIFO[T]) ListKeys() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]string, 0, len(f.queue)-f.head)
	for _, k := range f.queue[f.head:] {
		out = append(out, k.String())
	}
	return out
}

// Close wakes every blocked Pop, which then returns ErrFIFOClosed; queued
// deltas are dropped.
func (f *DeltaFIFO[T]) Close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closed = true
	f.cond.Broadcast()
}

// IsClosed reports whether Close was called.
func (f *DeltaFIFO[T]) IsClosed() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.closed
}

// Pop waits for a key and hands its deltas to process, outside the queue's
// lock. See PopBatch.
func (f *DeltaFIFO[T]) Pop(process func(key string, deltas Deltas[T], isInInitialList bool) error) error {
	return f.PopBatch(1, func(batch []PoppedDeltas[T]) error {
		return process(batch[0].Key(), batch[0].Deltas, batch[0].IsInInitialList)
	})
}

// PopBatch waits until at least one key is queued, takes up to max keys in
// queue order, and hands them to process outside the queue's lock, so that
// the caller can apply them to its store under one lock. Deltas queued for a
// taken key while process runs are queued anew. process must not keep batch
// or its Deltas after it returns: their memory is reused.
//
// If process returns an error wrapping ErrRequeue, every key of the batch
// goes back to the queue with its deltas ahead of any newer ones; other
// errors are returned. The initial population counts down only for keys
// whose processing finished. PopBatch returns ErrFIFOClosed once the queue is
// closed.
func (f *DeltaFIFO[T]) PopBatch(max int, process func(batch []PoppedDeltas[T]) error) error {
	if max < 1 {
		max = 1
	}
	f.mu.Lock()
	for len(f.queue)-f.head == 0 && !f.closed {
		f.cond.Wait()
	}
	if f.closed {
		f.mu.Unlock()
		return ErrFIFOClosed
	}
	n := min(len(f.queue)-f.head, max)
	batch := f.batch[:0]
	initial := 0
	for i := 0; i < n; i++ {
		k := f.queue[f.head]
		f.queue[f.head] = objKey{}
		f.head++
		ds := f.items[k]
		delete(f.items, k)
		isInitial := f.initialRemaining-initial > 0
		if isInitial {
			initial++
		}
		batch = append(batch, PoppedDeltas[T]{key: k, Deltas: ds, IsInInitialList: isInitial})
		f.inflight[k] = ds
	}
	if f.head == len(f.queue) {
		f.queue, f.head = f.queue[:0], 0
	} else if f.head > 1024 && f.head*2 > len(f.queue) {
		f.queue = append(f.queue[:0], f.queue[f.head:]...)
		f.head = 0
	}
	f.mu.Unlock()

	err := process(batch)

	f.mu.Lock()
	defer f.mu.Unlock()
	clear(f.inflight)
	if err != nil && errors.Is(err, ErrRequeue) {
		for i := range batch {
			f.requeueLocked(batch[i].key, batch[i].Deltas)
		}
		f.releaseBatchLocked(batch)
		return nil
	}
	f.initialRemaining -= initial
	if f.initialRemaining < 0 {
		f.initialRemaining = 0
	}
	for i := range batch {
		ds := batch[i].Deltas
		if cap(ds) <= 8 && len(f.free) < 1024 {
			clear(ds)
			f.free = append(f.free, ds[:0])
		}
	}
	f.releaseBatchLocked(batch)
	return err
}

// releaseBatchLocked clears the batch slice for reuse by the next PopBatch.
func (f *DeltaFIFO[T]) releaseBatchLocked(batch []PoppedDeltas[T]) {
	clear(batch)
	f.batch = batch[:0]
}

// requeueLocked puts popped deltas back in front of any newer ones.
func (f *DeltaFIFO[T]) requeueLocked(k objKey, ds Deltas[T]) {
	if f.closed {
		return
	}
	newer, queued := f.items[k]
	merged := append(append(Deltas[T](nil), ds...), newer...)
	f.items[k] = merged
	if !queued {
		f.queue = append(f.queue, k)
		f.cond.Signal()
	}
}
