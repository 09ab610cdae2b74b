// Package store is the informer's cache: a thread-safe store of typed
// objects keyed by namespace and name, with the NamespaceIndex built in
// (an object's namespace bucket is its posting) and named custom indexes.
// It owns the object layout (per-namespace buckets with an open-addressing
// name table each, postings per index value), index-function errors (the
// object is stored, left out of that index, and the error remembered until
// it is fixed or deleted), size hints for a first list, and the
// application of a batch of deltas that yields the handlers' notifications.
//
// Locking: one RWMutex per Indexer guards everything; readers take it for
// reading, and index functions run under it for writing. It is the
// innermost lock of an informer: ApplyDeltas runs inside the processor's
// lock (Processor.ApplyAndDistribute) and calls nothing that takes another
// lock. Objects handed in are owned by the store from then on and never
// mutated; callers must not mutate what they read.
//
// runtime/cache's NewIndexer, NewStore and informers hand it out behind
// the public Indexer interface; nothing outside the module can import it.
package store
