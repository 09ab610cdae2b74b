package metadatainformer

import (
	"context"
	"errors"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
)

// Client lists and watches the metadata of any resource; namespace "" means
// every namespace (and is what cluster-scoped resources use). Both calls
// must honour ctx. See the package documentation for the adapter over
// client-go's metadata.Interface.
type Client interface {
	// List returns the metadata of the objects of gvr in namespace.
	List(ctx context.Context, gvr schema.GroupVersionResource, namespace string, opts metav1.ListOptions) (*metav1.PartialObjectMetadataList, error)
	// Watch streams metadata changes of gvr in namespace; event objects
	// are *metav1.PartialObjectMetadata.
	Watch(ctx context.Context, gvr schema.GroupVersionResource, namespace string, opts metav1.ListOptions) (watch.Interface, error)
}

// ClientFuncs is a Client made of two functions.
type ClientFuncs struct {
	// ListFunc implements Client.List.
	ListFunc func(ctx context.Context, gvr schema.GroupVersionResource, namespace string, opts metav1.ListOptions) (*metav1.PartialObjectMetadataList, error)
	// WatchFunc implements Client.Watch.
	WatchFunc func(ctx context.Context, gvr schema.GroupVersionResource, namespace string, opts metav1.ListOptions) (watch.Interface, error)
}

var errNoFunc = errors.New("metadatainformer.ClientFuncs: ListFunc or WatchFunc is nil")

// List calls ListFunc.
func (c ClientFuncs) List(ctx context.Context, gvr schema.GroupVersionResource, namespace string, opts metav1.ListOptions) (*metav1.PartialObjectMetadataList, error) {
	if c.ListFunc == nil {
		return nil, errNoFunc
	}
	return c.ListFunc(ctx, gvr, namespace, opts)
}

// Watch calls WatchFunc.
func (c ClientFuncs) Watch(ctx context.Context, gvr schema.GroupVersionResource, namespace string, opts metav1.ListOptions) (watch.Interface, error) {
	if c.WatchFunc == nil {
		return nil, errNoFunc
	}
	return c.WatchFunc(ctx, gvr, namespace, opts)
}
