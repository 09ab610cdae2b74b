package listers

import (
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/typedinformer/typedinformer/runtime/cache"
)

// GenericLister is the untyped view of a Lister, for callers that pick a
// resource at run time (a generated factory's ForResource). Returned objects
// belong to the cache: callers must not mutate them.
type GenericLister interface {
	// List returns every object whose labels match selector.
	List(selector labels.Selector) ([]runtime.Object, error)
	// Get returns the cluster-scoped object name, or NotFound.
	Get(name string) (runtime.Object, error)
	// ByNamespace restricts the lister to one namespace.
	ByNamespace(namespace string) GenericNamespaceLister
}

// GenericNamespaceLister is the untyped view of a NamespaceLister.
type GenericNamespaceLister interface {
	// List returns the namespace's objects whose labels match selector.
	List(selector labels.Selector) ([]runtime.Object, error)
	// Get returns the object name in the namespace, or NotFound.
	Get(name string) (runtime.Object, error)
}

// NewGeneric returns a GenericLister over indexer; resource names the
// objects in NotFound errors.
func NewGeneric[T cache.Object](indexer cache.Indexer[T], resource schema.GroupResource) GenericLister {
	return genericLister[T]{typed: New(indexer, resource)}
}

type genericLister[T cache.Object] struct{ typed *ResourceLister[T] }

func (g genericLister[T]) List(selector labels.Selector) ([]runtime.Object, error) {
	objs, err := g.typed.List(selector)
	return toObjects(objs), err
}

func (g genericLister[T]) Get(name string) (runtime.Object, error) {
	return toObject(g.typed.Get(name))
}

func (g genericLister[T]) ByNamespace(namespace string) GenericNamespaceLister {
	return genericNamespaceLister[T]{typed: g.typed.Namespace(namespace)}
}

type genericNamespaceLister[T cache.Object] struct{ typed NamespaceLister[T] }

func (g genericNamespaceLister[T]) List(selector labels.Selector) ([]runtime.Object, error) {
	objs, err := g.typed.List(selector)
	return toObjects(objs), err
}

func (g genericNamespaceLister[T]) Get(name string) (runtime.Object, error) {
	return toObject(g.typed.Get(name))
}

func toObjects[T cache.Object](objs []T) []runtime.Object {
	if objs == nil {
		return nil
	}
	out := make([]runtime.Object, len(objs))
	for i, o := range objs {
		out[i] = o
	}
	return out
}

// toObject keeps a failed Get from returning a non-nil interface that holds
// a nil pointer.
func toObject[T cache.Object](obj T, err error) (runtime.Object, error) {
	if err != nil {
		return nil, err
	}
	return obj, nil
}
