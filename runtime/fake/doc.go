// Package fake is an in-memory API server for one resource, typed over the
// informer's object type, that serves a cache.ListerWatcher with the
// resourceVersion semantics of a real kube-apiserver: a global, increasing
// resourceVersion; lists at "" (consistent), "0" (any) or an exact version;
// Limit/Continue pagination whose tokens expire on compaction; watches that
// replay history after a resourceVersion and fail with 410 Expired once that
// history is compacted; bookmarks; watch-list streaming (sendInitialEvents);
// and fault injection (failed lists and watches, slow lists, dropped and
// expired watches, wrong-typed events).
//
// Tests drive a Server directly (Create, Update, Delete, the fault methods)
// while an informer consumes Server.ListerWatcher. Every method of Server is
// safe for concurrent use.
package fake
