// Package deltafifo is the informer's queue between the reflector and the
// store: every change the reflector observes becomes one Delta, queued in
// arrival order and popped in batches by the informer, which applies them to
// its store and tells its handlers.
//
// It is machinery, not API: runtime/cache builds one Queue per informer and
// nothing outside the module can import it. Its contract (ordering, a
// relist's tombstones before its list and popped with it as one batch,
// deletions queued whether or not their key is known, HasSynced, batches
// under the consumer's lock) is client-go's RealFIFO's with AtomicFIFO,
// written down on Queue.
//
// Locking and ownership: one mutex per Queue guards the queued deltas and
// the sync state; the reflector's goroutine adds, the informer's one
// consumer goroutine pops. Replace and Resync consult the known
// objects (the informer's store) under that mutex, so the store's lock
// comes after it, never before. PopBatch releases the mutex before it runs
// the consumer's function, and the deltas of a batch belong to the
// consumer until it returns.
package deltafifo
