// Package informers is the base that generated SharedInformerFactories embed:
// one informer per Go type per factory, started together, waited on
// together, shut down together, with the options users know from client-go
// (namespace, tweak list options, custom resync, transform) and two that
// client-go lacks: a factory over several namespaces (WithNamespaces) and
// removing one informer from a running factory (RemoveInformer).
//
// Generated code calls InformerFor with a constructor for its type; users
// normally reach a Factory only through their generated factory.
package informers
