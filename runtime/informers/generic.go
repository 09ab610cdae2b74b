package informers

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/typedinformer/typedinformer/runtime/cache"
	"github.com/typedinformer/typedinformer/runtime/listers"
)

// GenericInformer is an informer and lister whose Go type is chosen at run
// time, as returned by a generated factory's ForResource.
type GenericInformer interface {
	// Informer returns the underlying informer, type-erased.
	Informer() cache.AnyInformer
	// Lister returns an untyped lister over the informer's cache.
	Lister() listers.GenericLister
}

// NewGenericInformer wraps a typed informer; resource names the objects in
// the lister's NotFound errors. A nil informer is replaced by one that never
// syncs and reports the mistake, instead of a panic on first use.
func NewGenericInformer[T cache.Object](informer cache.SharedIndexInformer[T], resource schema.GroupResource) GenericInformer {
	if informer == nil {
		informer = newFailedInformer[T](nil, fmt.Errorf("informers: NewGenericInformer(%s): nil informer", resource))
	}
	return genericInformer[T]{informer: informer, resource: resource}
}

type genericInformer[T cache.Object] struct {
	informer cache.SharedIndexInformer[T]
	resource schema.GroupResource
}

func (g genericInformer[T]) Informer() cache.AnyInformer { return g.informer }

func (g genericInformer[T]) Lister() listers.GenericLister {
	return listers.NewGeneric(g.informer.GetIndexer(), g.resource)
}
