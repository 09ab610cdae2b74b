// Package cache is the typed informer runtime: a thread-safe typed store with
// indexes, a reflector that lists and watches an API server, and a shared
// index informer that fans events out to typed handlers.
//
// The data flow mirrors client-go's tools/cache, but every stage holds and
// passes objects of the informer's type T rather than interface{}:
//
//	ListerWatcher → reflector → DeltaFIFO → store + indexes → processor → listener per handler
//
// This package is the public face of that flow: the interfaces, handler
// types, options, errors and constructors, one concept per file
// (shared_informer.go: the informer interfaces and their constructors;
// handlers.go, typed_handlers.go; options.go; store.go: Store, Indexer and
// their constructors; keys.go; listwatch.go; sync.go; errors.go; metrics.go;
// shard.go). informer.go and informer_metrics.go wire one informer out of
// the stages, which live in internal packages users never see:
// internal/reflector (list and watch), internal/deltafifo (the queue
// between reflector and store), internal/store (the typed store and its
// indexes) and internal/processor (the listeners); docs/architecture.md
// walks through them.
//
// # Names
//
// Where client-go (k8s.io/client-go/tools/cache, v0.37) names a concept, this
// package uses its name, so that a port is an import swap. client-go has two
// handler and informer APIs, and so does this package:
//
//   - client-go's untyped API, made generic: ResourceEventHandler[T],
//     ResourceEventHandlerFuncs[T], ResourceEventHandlerDetailedFuncs[T],
//     FilteringResourceEventHandler[T], SharedInformer[T],
//     SharedIndexInformer[T], Store[T], Indexer[T], Indexers[T],
//     IndexFunc[T]. A port from client-go's untyped API adds type arguments
//     and deletes casts; OnDelete gets the typed object and whether its final
//     state is unknown, instead of a DeletedFinalStateUnknown to unwrap.
//   - client-go v0.37's typed API, with its exact method sets:
//     TypedResourceEventHandler[T] (OnDelete(DeletedObject[T])),
//     TypedResourceEventHandlerFuncs[T],
//     TypedResourceEventHandlerDetailedFuncs[T],
//     TypedFilteringResourceEventHandler[T], DeletedObject[T],
//     DeletedFinalStateUnknown, TypedSharedIndexInformer[T]
//     (AddTypedEventHandler, AddTypedIndexers, GetTypedIndexer),
//     NewTypedSharedIndexInformer, TypedIndexer[T], TypedIndexers[T],
//     TypedIndexFunc[T], TypedIndexersToIndexers. Code written against it
//     compiles unchanged. Here they are names over the same typed informer,
//     not a cast layer.
//   - client-go's helpers: ObjectName, MetaNamespaceKeyFunc,
//     SplitMetaNamespaceKey, DeletionHandling*, MetaNamespaceIndexFunc,
//     NamespaceIndex, InformerSynced, WaitForCacheSync and its named
//     variants, v0.37's sync waits without polling (DoneChecker, IsDone,
//     WaitFor, and HasSyncedChecker on informers and registrations), ListWatch, HandlerOptions, InformerName,
//     InformerNameAndResource and InformerMetricsProvider (with GaugeMetric
//     and HistogramMetric; there is no process-wide
//     SetInformerMetricsProvider).
//
// What this package adds has names of its own: errors that say why an
// informer is not synced (WaitForSync, Syncer, NotSyncedError,
// SyncedWithErrorsError, AnyInformer.LastError and SyncError), scope exits
// (ScopeExitHandler), sharded scopes (SharedIndexInformerOptions.ShardScope,
// ShardStatus), detailed metrics (DetailedInformerMetricsProvider,
// InformerMetrics, HandlerMetrics) and
// AppendByIndex. Lean transforms live in runtime/lean.
package cache
