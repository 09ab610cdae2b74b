// Package deltafifo is the informer's queue between the reflector and the
// store: every change the reflector observes becomes one Delta, queued in
// arrival order and popped in batches by the informer, which applies them to
// its store and tells its handlers.
//
// It is machinery, not API: runtime/cache builds one Queue per informer and
// nothing outside the module can import it. Its contract (ordering, tombstones
// on relist, HasSynced, batches under the consumer's lock) is client-go's
// RealFIFO's, written down on Queue.
package deltafifo
