// Package processor is the informer's fan-out: a Processor hands each
// batch of notifications the store produced to every registered Listener,
// and each Listener delivers them, in order, to one handler from a
// goroutine of its own, so that a slow handler holds back neither the store
// nor the other handlers. It owns the listeners' queues (chunked, reused),
// the per-handler resync flags, late joiners' replay of the cache, panic
// recovery and the backlog warning and handler metrics.
//
// Locking and ownership: Processor.mu guards the listener list and every
// listener's resync bookkeeping; ApplyAndDistribute holds it while the
// store applies a batch and while the batch is queued to every listener,
// so a listener added concurrently sees each change exactly once. A
// Listener's mu guards its queue only and is taken after Processor.mu,
// never before; the handler runs with no lock held. The Processor owns its
// listeners' goroutines: Start starts them, Wait returns once all ended.
// The informer's lock order is startMu → Processor.mu → Listener.mu →
// DeltaFIFO mu → store mu.
package processor
