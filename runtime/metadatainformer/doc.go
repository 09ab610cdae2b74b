// Package metadatainformer builds typed informers and listers of
// *metav1.PartialObjectMetadata for any resource: only each object's type
// and object metadata are fetched, decoded and cached, which is all many
// controllers (garbage collectors, label or owner indexers, quota counters)
// read, at a fraction of the memory of full objects.
//
// The objects come through a Client: two methods that client-go's metadata
// client (k8s.io/client-go/metadata) provides through a three-line adapter,
// which keeps this module free of client-go:
//
//	type metadataClient struct{ c metadata.Interface }
//
//	func (m metadataClient) List(ctx context.Context, gvr schema.GroupVersionResource, ns string, o metav1.ListOptions) (*metav1.PartialObjectMetadataList, error) {
//		return m.c.Resource(gvr).Namespace(ns).List(ctx, o)
//	}
//	func (m metadataClient) Watch(ctx context.Context, gvr schema.GroupVersionResource, ns string, o metav1.ListOptions) (watch.Interface, error) {
//		return m.c.Resource(gvr).Namespace(ns).Watch(ctx, o)
//	}
//
// (or ClientFuncs with two closures). A Factory takes the options of
// runtime/informers (namespaces, tweak, resync, transform, lean), or copies
// them from a generated factory with NewFactoryFromBase(client,
// generated.Base()).
package metadatainformer
