package informers

import (
	"fmt"
	"reflect"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"

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
//
// Misuse is reported, never a panic: a nil factory or newFunc, a newFunc
// that returns nil or an informer that already runs, or a call after
// Shutdown return an informer that never syncs and whose LastError,
// SyncError and AddEventHandler name the problem (errors.Is ErrShutdown
// after Shutdown); the factory's WaitForCacheSync fails with it at once.
//
// On a view (ForSelection), it returns the view's informer of T: one per
// view, held, started, waited for and stopped by the factory the view was
// taken of, applying that factory's selection and the view's.
func InformerFor[T cache.Object](f *Factory, namespaced bool, newFunc NewInformerFunc[T]) cache.SharedIndexInformer[T] {
	typ := reflect.TypeFor[T]()
	if f == nil {
		return newFailedInformer[T](nil, fmt.Errorf("informers: InformerFor[%v] on a nil Factory", typ))
	}
	if f.viewErr != nil {
		return newFailedInformer[T](nil, fmt.Errorf("informers: InformerFor[%v]: %w", typ, f.viewErr))
	}
	r := f.holder()
	r.mu.Lock()
	defer r.mu.Unlock()
	k := entryKey{typ: typ, sel: f.sel}
	e, ok := r.informers[k]
	if r.shuttingDown || f.closed {
		var inner cache.SharedIndexInformer[T]
		if ok {
			inner, _ = e.informer.(cache.SharedIndexInformer[T])
		}
		return newFailedInformer(inner, fmt.Errorf("informers: InformerFor[%v]: %w", typ, ErrShutdown))
	}
	if ok {
		return e.informer.(cache.SharedIndexInformer[T])
	}
	inf, err := newInformer(f, typ, namespaced, newFunc)
	if err != nil {
		klog.Background().Error(err, "InformerFor failed; the informer returned reports it")
		inf = newFailedInformer[T](nil, err)
	}
	r.nextSeq++
	r.informers[k] = &entry{informer: inf, seq: r.nextSeq}
	return inf
}

// newInformer builds and configures f's informer of type typ. The caller
// holds the mu of f's holder.
func newInformer[T cache.Object](f *Factory, typ reflect.Type, namespaced bool, newFunc NewInformerFunc[T]) (cache.SharedIndexInformer[T], error) {
	if newFunc == nil {
		return nil, fmt.Errorf("informers: InformerFor[%v]: nil NewInformerFunc", typ)
	}
	resync := f.ResyncPeriodFor(typ)
	// sole: ns's informer is the only one of typ (no multi-namespace
	// informer around it, and not a view's), so it may take the factory's
	// identity.
	r := f.holder()
	call := func(ns string, sole bool) (cache.SharedIndexInformer[T], error) {
		inf := newFunc(ns, resync)
		if inf == nil {
			return nil, fmt.Errorf("informers: InformerFor[%v]: the NewInformerFunc returned nil for namespace %q", typ, ns)
		}
		if err := f.installMetrics(typ, ns, inf, sole); err != nil {
			return nil, err
		}
		if err := f.installShardScope(typ, ns, inf); err != nil {
			return nil, err
		}
		if err := f.installSelection(typ, ns, inf); err != nil {
			return nil, err
		}
		if err := f.installWriteTracker(typ, ns, inf); err != nil {
			return nil, err
		}
		return inf, nil
	}
	var inf cache.SharedIndexInformer[T]
	switch {
	case !namespaced:
		i, err := call(metav1.NamespaceAll, f.root == nil)
		if err != nil {
			return nil, err
		}
		inf = i
	case len(r.namespaces) == 1 && !f.namespaceSet:
		i, err := call(r.namespaces[0], f.root == nil)
		if err != nil {
			return nil, err
		}
		inf = i
	default:
		children := make([]cache.SharedIndexInformer[T], len(r.namespaces))
		for i, ns := range r.namespaces {
			c, err := call(ns, false)
			if err != nil {
				return nil, err
			}
			children[i] = c
		}
		multi := newMultiNamespaceInformer(r.namespaces, children)
		multi.newChild = func(ns string) (cache.SharedIndexInformer[T], error) {
			r.mu.Lock()
			defer r.mu.Unlock()
			return call(ns, false)
		}
		inf = multi
	}
	if t := f.factoryTransform(); t != nil {
		// SetTransform fails only on an informer that already runs.
		if err := inf.SetTransform(typedTransform[T](t)); err != nil {
			return nil, fmt.Errorf("informers: installing the factory transform on %v (the NewInformerFunc must return a fresh informer): %w", typ, err)
		}
	}
	return inf, nil
}
