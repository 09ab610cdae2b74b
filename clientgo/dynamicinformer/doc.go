// Package dynamicinformer is client-go's k8s.io/client-go/dynamic/dynamicinformer
// on the typedinformer runtime: the same constructors, taking client-go's
// dynamic.Interface, and a factory that satisfies client-go's
// DynamicSharedInformerFactory, whose informers are clientgo
// SharedIndexInformers (client-go v0.37's contract) and whose listers are
// client-go's dynamic listers. A program switches by its import path.
//
// With a *dynamic.DynamicClient, lists and watches go through the client's
// own REST client (its host, TLS, authentication, rate limiter and user
// agent) and their bodies are decoded by runtime/wire's unstructured
// decoder, each item's JSON straight into its map, with no list object in
// between; any other dynamic.Interface, such as client-go's fake, is
// listed and watched through its methods.
//
// Beyond client-go's factory: RemoveInformer stops and forgets one
// resource's informer, returning once its goroutines and watch have ended;
// WaitForCacheSyncWithContext names each resource that did not sync and
// why; Shutdown stops the informers instead of waiting for their stop
// channels; clientgo's options (lean mode, metrics) reach every informer.
// Programs that are not on client-go use runtime/dynamicinformer.
package dynamicinformer
