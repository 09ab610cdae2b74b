package informers

import (
	"fmt"
	"reflect"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/typedinformer/typedinformer/runtime/cache"
)

// NewInformerFunc builds an informer of T watching one namespace
// (metav1.NamespaceAll for every namespace, and for cluster-scoped types)
// whose handlers resync every resync. Generated code passes a closure over
// its clientset.
type NewInformerFunc[T cache.Object] func(namespace string, resync time.Duration) cache.SharedIndexInformer[T]

// InformerFor returns f's informer for T, creating it with newFunc on the
// first call. namespaced tells whether T is namespaced: a namespaced type in
// a factory over several namespaces gets one informer per namespace behind a
// single SharedIndexInformer with a merged cache. A factory-wide transform
// (WithTransform, then WithLean) is installed on the new informer. newFunc is called with
// f's lock held and must not call back into InformerFor. The informer runs
// once Start is called (again, if the factory is already running).
func InformerFor[T cache.Object](f *Factory, namespaced bool, newFunc NewInformerFunc[T]) cache.SharedIndexInformer[T] {
	typ := reflect.TypeFor[T]()
	f.mu.Lock()
	defer f.mu.Unlock()
	if e, ok := f.informers[typ]; ok {
		return e.informer.(cache.SharedIndexInformer[T])
	}
	resync := f.ResyncPeriodFor(typ)
	var inf cache.SharedIndexInformer[T]
	switch {
	case !namespaced:
		inf = newFunc(metav1.NamespaceAll, resync)
	case len(f.namespaces) == 1:
		inf = newFunc(f.namespaces[0], resync)
	default:
		children := make([]cache.SharedIndexInformer[T], len(f.namespaces))
		for i, ns := range f.namespaces {
			children[i] = newFunc(ns, resync)
		}
		inf = newMultiNamespaceInformer(f.namespaces, children)
	}
	if t := f.factoryTransform(); t != nil {
		// SetTransform fails only on an informer that already runs: newFunc
		// must return a fresh one, so this is a programming error.
		if err := inf.SetTransform(typedTransform[T](t)); err != nil {
			panic(fmt.Sprintf("informers: installing the factory transform on %v: %v", typ, err))
		}
	}
	f.informers[typ] = &entry{informer: inf}
	return inf
}
