// Package crcache is a controller-runtime cache (cache.NewCacheFunc) whose
// informers are the typedinformer runtime's, listing and watching through
// runtime/wire: each item of a list or watch response is decoded straight
// into the cached Go type, protobuf for built-in types and JSON for custom
// resources, and no list object is built.
//
//	mgr, err := ctrl.NewManager(cfg, ctrl.Options{NewCache: crcache.New})
//
// New takes controller-runtime's cache.Options and keeps its semantics:
// typed objects of the scheme, *metav1.PartialObjectMetadata (metadata-only
// informers: the server is asked for PartialObjectMetadata lists and
// events), *unstructured.Unstructured (decoded as client-go's dynamic client
// decodes, by wire.NewUnstructuredListWatch), namespaces (DefaultNamespaces and per-object Namespaces, each
// with its own selectors, transform and deep-copy setting), label and field
// selectors of the informers, transforms, watch error handlers, sync
// periods, ByObject, ReaderFailOnMissingInformer, and the same errors as
// controller-runtime's cache for the same bad input. Reads (Get, List) come
// from the runtime's typed store with one deep copy of what is returned,
// none with UnsafeDisableDeepCopy: Get copies straight into its object,
// List into the elements of an Items slice made once at its final length
// (controller-runtime's reader copies each object twice: DeepCopyObject,
// then an assignment into out or Items). Field selectors are exact matches on
// indexes added with IndexField, as controller-runtime's cache serves them.
//
// Informers are clientgo.NewSharedIndexInformer (client-go's
// SharedIndexInformer over the runtime, which implements controller-runtime's
// cache.Informer). cache.Options.NewInformer still applies: it is given the
// same runtime/wire ListerWatcher (a client-go ListerWatcher whose List
// returns the decoded items) and may return any client-go
// SharedIndexInformer; clientgo's informers list it item by item.
//
// What differs from controller-runtime's cache is in docs/controller-runtime.md.
package crcache
