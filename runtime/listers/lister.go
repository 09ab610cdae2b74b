package listers

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/typedinformer/typedinformer/runtime/cache"
)

// Lister lists and gets objects of one resource across all namespaces.
// Returned objects belong to the cache: callers must not mutate them.
type Lister[T cache.Object] interface {
	// List returns every object whose labels match selector, in no
	// particular order. A nil selector matches everything.
	List(selector labels.Selector) ([]T, error)
	// Get returns the cluster-scoped object with the given name, or an
	// apimachinery NotFound error naming the resource for any name not in
	// the cache (including "" and names with a "/").
	Get(name string) (T, error)
	// Namespace returns a lister restricted to one namespace;
	// metav1.NamespaceAll ("") means every namespace.
	Namespace(namespace string) NamespaceLister[T]
}

// NamespaceLister lists and gets objects of one resource in one namespace.
// Returned objects belong to the cache: callers must not mutate them.
type NamespaceLister[T cache.Object] interface {
	// List returns the namespace's objects whose labels match selector.
	// A nil selector matches everything.
	List(selector labels.Selector) ([]T, error)
	// Get returns the object with the given name in the namespace, or an
	// apimachinery NotFound error naming the resource for any name not in
	// the cache (including "" and names with a "/").
	Get(name string) (T, error)
}

// ResourceLister is the Lister over an informer's Indexer. Generated listers
// embed it. It is safe for concurrent use; it holds no state of its own
// beyond the indexer and the resource it names in errors.
//
// When the indexer is an informer's with a cache.WriteTracker attached, the
// lister reads the program's own writes: Get waits until the store holds
// the program's pending writes of the object read, List until it holds
// every pending write in the informer's selection (see cache.WriteTracker).
// A read that waited too long returns an error wrapping
// cache.ErrWriteNotObserved. While no write is pending, reads do not wait.
type ResourceLister[T cache.Object] struct {
	indexer  cache.Indexer[T]
	waiter   cache.WriteWaiter // nil: the indexer never waits
	resource schema.GroupResource
}

var _ Lister[*metav1.PartialObjectMetadata] = (*ResourceLister[*metav1.PartialObjectMetadata])(nil)

// New returns a lister over indexer. resource names the objects in NotFound
// errors, e.g. {Group: "example.com", Resource: "foos"}. A nil indexer is
// not a panic: every call of the lister returns an error saying so.
func New[T cache.Object](indexer cache.Indexer[T], resource schema.GroupResource) *ResourceLister[T] {
	w, _ := indexer.(cache.WriteWaiter)
	return &ResourceLister[T]{indexer: indexer, waiter: w, resource: resource}
}

// errNoIndexer is returned by listers built over a nil indexer.
var errNoIndexer = errors.New("listers: lister built over a nil indexer")

func noIndexer(resource schema.GroupResource) error {
	return fmt.Errorf("%s: %w", resource, errNoIndexer)
}

// List returns every cached object whose labels match selector.
func (l *ResourceLister[T]) List(selector labels.Selector) ([]T, error) {
	if l.indexer == nil {
		return nil, noIndexer(l.resource)
	}
	if err := waitAll(l.waiter); err != nil {
		return nil, err
	}
	return filter(l.indexer.List(), selector), nil
}

// Get returns the cluster-scoped object name.
func (l *ResourceLister[T]) Get(name string) (T, error) {
	return get(l.indexer, l.waiter, l.resource, name, name)
}

// Namespace returns a NamespaceLister for namespace.
func (l *ResourceLister[T]) Namespace(namespace string) NamespaceLister[T] {
	return namespaceLister[T]{indexer: l.indexer, waiter: l.waiter, resource: l.resource, namespace: namespace}
}

// Resource is the group/resource the lister names in errors.
func (l *ResourceLister[T]) Resource() schema.GroupResource { return l.resource }

type namespaceLister[T cache.Object] struct {
	indexer   cache.Indexer[T]
	waiter    cache.WriteWaiter
	resource  schema.GroupResource
	namespace string
}

func (l namespaceLister[T]) List(selector labels.Selector) ([]T, error) {
	if l.indexer == nil {
		return nil, noIndexer(l.resource)
	}
	if err := waitAll(l.waiter); err != nil {
		return nil, err
	}
	if l.namespace == metav1.NamespaceAll {
		return filter(l.indexer.List(), selector), nil
	}
	objs, err := l.indexer.ByIndex(cache.NamespaceIndex, l.namespace)
	if err != nil {
		return nil, err
	}
	return filter(objs, selector), nil
}

func (l namespaceLister[T]) Get(name string) (T, error) {
	return get(l.indexer, l.waiter, l.resource, cache.NewObjectName(l.namespace, name).String(), name)
}

// waitAll waits for the program's pending writes before a List (see
// ResourceLister).
func waitAll(w cache.WriteWaiter) error {
	if w == nil {
		return nil
	}
	return w.WaitForWrites(context.Background())
}

// get looks name up under key. Any name the cache does not hold is
// NotFound, also one that makes no valid key ("" in a namespace, or a name
// with a "/"), as with client-go's listers; only a nil indexer is another
// error.
func get[T cache.Object](indexer cache.Indexer[T], w cache.WriteWaiter, resource schema.GroupResource, key, name string) (T, error) {
	var zero T
	if indexer == nil {
		return zero, noIndexer(resource)
	}
	if w != nil {
		if err := w.WaitForWritesTo(context.Background(), key); err != nil {
			return zero, err
		}
	}
	obj, ok, err := indexer.GetByKey(key)
	if err != nil || !ok {
		return zero, apierrors.NewNotFound(resource, name)
	}
	return obj, nil
}

// filter keeps the objects matching selector, reusing objs' backing array
// (the indexer hands out a fresh slice on every call).
func filter[T cache.Object](objs []T, selector labels.Selector) []T {
	if selector == nil || selector.Empty() {
		return objs
	}
	out := objs[:0]
	for _, o := range objs {
		if selector.Matches(labels.Set(o.GetLabels())) {
			out = append(out, o)
		}
	}
	clear(objs[len(out):])
	return out
}
