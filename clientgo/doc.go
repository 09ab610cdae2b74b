// Package clientgo serves client-go's informer interfaces from the
// typedinformer runtime, so that programs written for client-go's
// tools/cache run on it without regenerating or rewriting anything:
//
//   - controller-runtime: cache.Options{NewInformer: clientgo.NewSharedIndexInformer}
//     (or NewInformerFunc with the runtime's options, e.g. lean transforms);
//   - client-go's SharedInformerFactory: factory.InformerFor(obj, newFunc)
//     with a newFunc that returns NewSharedIndexInformer over the same
//     ListerWatcher client-go's constructor would use;
//   - any API that takes a toolscache.SharedIndexInformer.
//
// NewSharedIndexInformer returns a toolscache.SharedIndexInformer with
// client-go v0.37's whole method set and delivery contract (order across
// keys, isInInitialList, exactly-once delivery, resync, handler removal,
// DeletedFinalStateUnknown tombstones to untyped handlers), backed by a
// runtime/cache informer whose type parameter is the runtime's Object
// interface: one informer serves any typed object, *unstructured.Unstructured
// and *metav1.PartialObjectMetadata. Every object it receives is checked
// against the example object's Go type (and, for unstructured objects, its
// group, version and kind); objects of another type fail the list or are
// dropped from the watch, reported through the watch error handler, the log
// and LastError.
//
// What differs from client-go's informer is written on
// NewSharedIndexInformer and in docs/controller-runtime.md.
package clientgo
