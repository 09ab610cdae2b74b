// Package reflector is the first stage of an informer: it lists and then
// watches an API server through a ListerWatcher and feeds what it observes,
// in the order the server sent it, to a Sink (the informer's DeltaFIFO).
// It owns the list/watch protocol: paginated lists whose items are copied
// out of the decoded list, watch-list streaming with its fallback, relist
// after 410 Gone, bookmarks, randomised watch timeouts, jittered capped
// backoff, client-side shard filtering, the per-informer sharing of equal
// managedFields documents and the coarse clock its metrics read.
//
// Locking and ownership: one goroutine, the one running Run, owns a
// Reflector and everything it holds (the managedFields table, the
// remembered list field, the shard cycle, the coarse clock, which Run
// starts and stops, waiting for its goroutine). Only the fields others
// read (LastSyncResourceVersion, LastError, ShardStatus) are guarded by
// the Reflector's mutex, which is never held while calling out to the
// Sink, the ListerWatcher, the hooks or the metrics.
//
// runtime/cache builds one Reflector per informer Run from its public
// ReflectorOptions; nothing outside the module can import this package.
package reflector
