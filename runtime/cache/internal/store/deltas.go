package store

import (
	"github.com/typedinformer/typedinformer/runtime/cache/internal/deltafifo"
	"github.com/typedinformer/typedinformer/runtime/cache/internal/processor"
	"github.com/typedinformer/typedinformer/runtime/internal/keys"
)

// maxIndexErrors bounds how many index-function errors ApplyDeltas returns
// for one batch; the rest stay reported by ObjectErrors.
const maxIndexErrors = 10

// ApplyDeltas applies a batch of popped deltas to the store in order, under
// one write lock, and appends to notes the handler notification each one
// produces, one per delta, in batch order.
// initial marks the first list's deltas: their adds carry isInInitialList.
// Objects an index function fails on are stored anyway (see putLocked); up
// to maxIndexErrors of those errors are returned.
//
// The last watch event of the batch (an Added, Updated or Deleted delta
// other than a relist's tombstone or a scope exit, both of which have
// FinalStateUnknown) sets the store's resourceVersion: the
// queue is in arrival order, so once it is applied the store holds every
// change up to it. A list's Replaced deltas do not (their objects'
// versions are in no order); the list's resourceVersion comes through
// Bookmark once all of them are applied.
//
// The informer calls it inside Processor.ApplyAndDistribute, so it runs
// with the processor's lock held: Processor.mu is taken before mu, never
// after it.
func (s *Indexer[T]) ApplyDeltas(batch []deltafifo.Delta[T], initial bool, notes []processor.Notification[T]) ([]processor.Notification[T], []error) {
	var indexErrs []error
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range batch {
		d := &batch[i]
		k := keys.Of(d.Object)
		if d.Type == deltafifo.Added || d.Type == deltafifo.Updated || d.Type == deltafifo.Deleted && !d.FinalStateUnknown {
			s.rv = d.Object.GetResourceVersion()
		}
		switch d.Type {
		case deltafifo.Added, deltafifo.Updated, deltafifo.Replaced, deltafifo.Sync:
			old, existed, err := s.upsertLocked(k, d.Object)
			if err != nil && len(indexErrs) < maxIndexErrors {
				indexErrs = append(indexErrs, err)
			}
			if existed {
				// Whatever the delta's type, an update that keeps the
				// resourceVersion is a resync notification (client-go
				// decides so in OnUpdate, on the objects alone).
				resync := old.GetResourceVersion() == d.Object.GetResourceVersion()
				notes = append(notes, processor.Notification[T]{Kind: processor.Update, Old: old, Obj: d.Object, Resync: resync})
			} else {
				notes = append(notes, processor.Notification[T]{Kind: processor.Add, Obj: d.Object, Initial: initial})
			}
		case deltafifo.Deleted:
			// A deletion of a key the store does not hold still reaches the
			// handlers (client-go's informers call OnDelete for every
			// watch deletion); the store stays as it is.
			if _, existed := s.getLocked(k); existed {
				s.deleteLocked(k)
			}
			notes = append(notes, processor.Notification[T]{Kind: processor.Delete, Obj: d.Object, FinalStateUnknown: d.FinalStateUnknown, LeftScope: d.LeftScope})
		}
	}
	return notes, indexErrs
}
