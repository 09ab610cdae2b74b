package dynamicinformer

import (
	"context"
	"errors"
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/typedinformer/typedinformer/runtime/wire"
)

// Client lists and watches the objects of any resource as
// *unstructured.Unstructured; namespace "" means every namespace (and is
// what cluster-scoped resources use). Both calls must honour ctx. It is the
// shape of client-go's dynamic client (Resource(gvr).Namespace(ns).List and
// Watch), for fakes and adapters; a Client that also has WireSource's
// method is read straight from the wire instead.
type Client interface {
	// List returns the objects of gvr in namespace.
	List(ctx context.Context, gvr schema.GroupVersionResource, namespace string, opts metav1.ListOptions) (*unstructured.UnstructuredList, error)
	// Watch streams changes of gvr in namespace; event objects are
	// *unstructured.Unstructured (or *metav1.Status for errors).
	Watch(ctx context.Context, gvr schema.GroupVersionResource, namespace string, opts metav1.ListOptions) (watch.Interface, error)
}

// WireSource is a Client whose informers decode list and watch responses
// item by item into unstructured objects (runtime/wire's
// NewUnstructuredListWatch): no list object is built and each item's JSON
// becomes its map in one pass. An informer asks for its resource's
// ListWatch once, when it is built; an error then makes the informer fail
// to sync, naming the resource and the error.
type WireSource interface {
	Client
	// UnstructuredListWatch returns the ListWatch of gvr in namespace.
	UnstructuredListWatch(gvr schema.GroupVersionResource, namespace string) (*wire.UnstructuredListWatch, error)
}

// ClientFuncs is a Client made of two functions.
type ClientFuncs struct {
	// ListFunc implements Client.List.
	ListFunc func(ctx context.Context, gvr schema.GroupVersionResource, namespace string, opts metav1.ListOptions) (*unstructured.UnstructuredList, error)
	// WatchFunc implements Client.Watch.
	WatchFunc func(ctx context.Context, gvr schema.GroupVersionResource, namespace string, opts metav1.ListOptions) (watch.Interface, error)
}

var (
	errNoFunc    = errors.New("dynamicinformer.ClientFuncs: ListFunc or WatchFunc is nil")
	errNilClient = errors.New("dynamicinformer: nil Client")
)

// List calls ListFunc.
func (c ClientFuncs) List(ctx context.Context, gvr schema.GroupVersionResource, namespace string, opts metav1.ListOptions) (*unstructured.UnstructuredList, error) {
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

// FetchFunc returns the wire.Fetch that GETs gvr in namespace ("" for all
// namespaces or a cluster-scoped resource): a request to
// ResourcePath(gvr, namespace) with the ListOptions as its query, through
// whatever HTTP client, authentication and rate limiter the program uses.
type FetchFunc func(gvr schema.GroupVersionResource, namespace string) (wire.Fetch, error)

// WireClient is a WireSource over a FetchFunc: every list and watch is
// decoded by runtime/wire's unstructured decoder. Its List and Watch, for
// callers other than this package's informers, go through the same
// decoder.
type WireClient struct {
	fetchFor FetchFunc
	opts     wire.Options
}

var _ WireSource = (*WireClient)(nil)

// NewWireClient returns a WireClient whose requests fetchFor builds.
// opts.ContentType must be empty or wire.ContentTypeJSON (unstructured
// objects are read from JSON); opts.Resource is ignored, each ListWatch
// naming its own resource.
func NewWireClient(fetchFor FetchFunc, opts wire.Options) *WireClient {
	return &WireClient{fetchFor: fetchFor, opts: opts}
}

// UnstructuredListWatch returns the ListWatch of gvr in namespace. The
// kind it passes runtime/wire is only a label: the objects keep the
// apiVersion and kind the server writes.
func (c *WireClient) UnstructuredListWatch(gvr schema.GroupVersionResource, namespace string) (*wire.UnstructuredListWatch, error) {
	if c == nil || c.fetchFor == nil {
		return nil, fmt.Errorf("dynamicinformer: %s: the WireClient has no FetchFunc", resourceName(gvr))
	}
	if gvr.Version == "" || gvr.Resource == "" {
		return nil, fmt.Errorf("dynamicinformer: the group-version-resource %q has no version or no resource", gvr.String())
	}
	fetch, err := c.fetchFor(gvr, namespace)
	if err != nil {
		return nil, fmt.Errorf("dynamicinformer: fetching %s: %w", resourceName(gvr), err)
	}
	opts := c.opts
	opts.Resource = resourceName(gvr)
	return wire.NewUnstructuredListWatch(fetch, gvr.GroupVersion().WithKind(gvr.Resource), opts)
}

// List lists gvr in namespace as an UnstructuredList.
func (c *WireClient) List(ctx context.Context, gvr schema.GroupVersionResource, namespace string, opts metav1.ListOptions) (*unstructured.UnstructuredList, error) {
	lw, err := c.UnstructuredListWatch(gvr, namespace)
	if err != nil {
		return nil, err
	}
	out := &unstructured.UnstructuredList{Object: map[string]any{}}
	lm, err := lw.ListItems(ctx, opts, func(u *unstructured.Unstructured) error {
		out.Items = append(out.Items, *u)
		return nil
	})
	if err != nil {
		return nil, err
	}
	out.SetResourceVersion(lm.ResourceVersion)
	out.SetContinue(lm.Continue)
	out.SetRemainingItemCount(lm.RemainingItemCount)
	return out, nil
}

// Watch watches gvr in namespace.
func (c *WireClient) Watch(ctx context.Context, gvr schema.GroupVersionResource, namespace string, opts metav1.ListOptions) (watch.Interface, error) {
	lw, err := c.UnstructuredListWatch(gvr, namespace)
	if err != nil {
		return nil, err
	}
	return lw.Watch(ctx, opts)
}

// ResourcePath is the URL path of gvr's collection in namespace, as
// client-go's dynamic client builds it: /api/v1/[namespaces/NS/]pods for
// the core group, /apis/GROUP/VERSION/[namespaces/NS/]RESOURCE otherwise.
func ResourcePath(gvr schema.GroupVersionResource, namespace string) string {
	var b strings.Builder
	if gvr.Group == "" {
		b.WriteString("/api/")
	} else {
		b.WriteString("/apis/" + gvr.Group + "/")
	}
	b.WriteString(gvr.Version)
	if namespace != "" {
		b.WriteString("/namespaces/" + namespace)
	}
	b.WriteString("/" + gvr.Resource)
	return b.String()
}

// resourceName names gvr as the runtime names resources in errors:
// resource.version.group ("pods.v1" for the core group).
func resourceName(gvr schema.GroupVersionResource) string {
	return strings.TrimSuffix(gvr.Resource+"."+gvr.Version+"."+gvr.Group, ".")
}
