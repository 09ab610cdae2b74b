// Package dynamicinformer is client-go's dynamicinformer on the runtime:
// a factory of informers and listers of *unstructured.Unstructured for any
// resource, chosen at run time by its group, version and resource
// (NewDynamicSharedInformerFactory, NewFilteredDynamicSharedInformerFactory,
// ForResource), for programs that discover what to watch while they run.
//
// Beyond client-go's: resources are removed from a running factory with
// RemoveInformer, which returns once the informer's goroutines have ended
// and its watch is closed; WaitForCacheSync says why an informer did not
// sync (a resource the server does not serve names it); the lister is typed
// (dynamiclister's List, Get and Namespace, no casts); and the factory takes
// runtime/informers' options (several namespaces, lean mode, transforms).
//
// The objects come through a Client. A WireSource, such as the WireClient
// NewWireClient builds over a FetchFunc (an HTTP GET of ResourcePath(gvr,
// ns) with the list options as its query), is read straight from the wire:
// runtime/wire's unstructured decoder turns each item's JSON into its map
// as it is read, with no list object in between, which is where client-go's
// dynamic informer spends most of its time and memory. Any other Client
// (two methods, or ClientFuncs with two closures) is listed and watched
// through them, which suits fakes; an adapter over client-go's dynamic
// client is three lines:
//
//	type dynamicClient struct{ c dynamic.Interface }
//
//	func (d dynamicClient) List(ctx context.Context, gvr schema.GroupVersionResource, ns string, o metav1.ListOptions) (*unstructured.UnstructuredList, error) {
//		return d.c.Resource(gvr).Namespace(ns).List(ctx, o)
//	}
//	func (d dynamicClient) Watch(ctx context.Context, gvr schema.GroupVersionResource, ns string, o metav1.ListOptions) (watch.Interface, error) {
//		return d.c.Resource(gvr).Namespace(ns).Watch(ctx, o)
//	}
//
// Programs on client-go get all of this, with client-go's interfaces and
// reading through the dynamic client's REST client, from the clientgo
// module's dynamicinformer package.
package dynamicinformer
