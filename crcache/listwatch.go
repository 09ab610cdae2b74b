package crcache

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"

	"github.com/typedinformer/typedinformer/runtime/cache"
	"github.com/typedinformer/typedinformer/runtime/wire"
)

// Accept headers of metadata-only lists and watches, as client-go's
// metadata client asks for them (JSON: the server sends only metadata).
const (
	acceptMetadataList  = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json"
	acceptMetadataWatch = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json"
)

// restClientFor is a REST client of gv over httpClient with cfg's
// authentication, rate limiter and content type (a content type the user
// set is kept; unset, runtime/wire asks for protobuf where the type has it).
func restClientFor(cfg *rest.Config, httpClient *http.Client, scheme *runtime.Scheme, gv schema.GroupVersion) (*rest.RESTClient, error) {
	c := rest.CopyConfig(cfg)
	gvc := gv
	c.GroupVersion = &gvc
	c.APIPath = "/apis"
	if gv.Group == "" {
		c.APIPath = "/api"
	}
	c.NegotiatedSerializer = serializer.NewCodecFactory(scheme).WithoutConversion()
	if c.UserAgent == "" {
		c.UserAgent = rest.DefaultKubernetesUserAgent()
	}
	return rest.RESTClientForConfigAndClient(c, httpClient)
}

// listRequest is what every request of one informer carries: its
// selectors, and whether watches ask for bookmarks.
type listRequest struct {
	label, field string // "" none
	bookmarks    bool
}

func (r listRequest) apply(opts *metav1.ListOptions) {
	if r.label != "" {
		opts.LabelSelector = r.label
	}
	if r.field != "" {
		opts.FieldSelector = r.field
	}
	// A watch-list stream ends its initial events with a bookmark, which
	// the server sends only when asked for bookmarks.
	if opts.Watch && (opts.SendInitialEvents == nil || !*opts.SendInitialEvents) {
		opts.AllowWatchBookmarks = r.bookmarks
	}
}

// listerWatcher is a runtime/wire ListWatch as client-go's ListerWatcher
// (List returns a *wire.List of the decoded items) and as the runtime's
// cache.ItemLister, which clientgo's informers list through. gvk, when set,
// is set on every object (metadata-only objects carry no kind of their
// own).
type listerWatcher struct {
	listItems func(ctx context.Context, opts metav1.ListOptions, yield func(wire.Item) error) (*metav1.ListMeta, error)
	watch     func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error)
	gvk       *schema.GroupVersionKind
}

// newListerWatcher builds the ListWatch of one informer of kind: example's
// type (a typed object), metadata-only objects (the server is asked for
// PartialObjectMetadata) or unstructured objects of gvk, listing resource in
// namespace ("" all) through client.
func newListerWatcher(client *rest.RESTClient, kind objectKind, example wire.Item, resource schema.GroupVersionResource, namespace string, req listRequest, gvk schema.GroupVersionKind) (*listerWatcher, error) {
	metadata := kind == kindMetadata
	fetch, ok := wire.NewRESTFetch(client, namespace, resource.Resource)
	if !ok {
		return nil, fmt.Errorf("no REST client for %s", resource)
	}
	request := fetch
	fetch = func(ctx context.Context, opts metav1.ListOptions, accept string) (io.ReadCloser, string, error) {
		req.apply(&opts)
		if metadata {
			accept = acceptMetadataList
			if opts.Watch {
				accept = acceptMetadataWatch
			}
		}
		return request(ctx, opts, accept)
	}
	o := wire.Options{Resource: strings.TrimSuffix(resource.Resource+"."+resource.Version+"."+resource.Group, ".")}
	// Watch events must carry the kind and apiVersion asked for, as
	// client-go's decoding through the scheme requires: gvk's, or
	// PartialObjectMetadata's for metadata-only objects.
	o.GroupVersionKind = gvk
	if metadata {
		o.ContentType = wire.ContentTypeJSON
		o.GroupVersionKind = metav1.SchemeGroupVersion.WithKind("PartialObjectMetadata")
	}
	if kind == kindUnstructured {
		lw, err := wire.NewUnstructuredListWatch(fetch, gvk, o)
		if err != nil {
			return nil, err
		}
		return &listerWatcher{
			listItems: func(ctx context.Context, opts metav1.ListOptions, yield func(wire.Item) error) (*metav1.ListMeta, error) {
				return lw.ListItems(ctx, opts, func(u *unstructured.Unstructured) error { return yield(u) })
			},
			watch: lw.Watch,
		}, nil
	}
	lw, err := wire.NewListWatchOf(fetch, example, o)
	if err != nil {
		return nil, err
	}
	l := &listerWatcher{listItems: lw.ListItems, watch: lw.Watch}
	if metadata {
		l.gvk = &gvk
	}
	return l, nil
}

// ListItems lists one page item by item (the runtime's cache.ItemLister).
func (l *listerWatcher) ListItems(ctx context.Context, opts metav1.ListOptions, yield func(cache.Object) error) (*metav1.ListMeta, error) {
	return l.listItems(ctx, opts, func(it wire.Item) error {
		if l.gvk != nil {
			it.GetObjectKind().SetGroupVersionKind(*l.gvk)
		}
		return yield(it)
	})
}

// ListWithContext lists one page as a *wire.List (client-go's ListerWatcher).
func (l *listerWatcher) ListWithContext(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	list := &wire.List[wire.Item]{}
	lm, err := l.ListItems(ctx, opts, func(o cache.Object) error {
		list.Items = append(list.Items, o)
		return nil
	})
	if err != nil {
		return nil, err
	}
	list.ListMeta = *lm
	return list, nil
}

// WatchWithContext starts a watch (client-go's ListerWatcher).
func (l *listerWatcher) WatchWithContext(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	w, err := l.watch(ctx, opts)
	if err != nil || l.gvk == nil {
		return w, err
	}
	gvk := *l.gvk
	return watch.Filter(w, func(ev watch.Event) (watch.Event, bool) {
		if _, ok := ev.Object.(*metav1.Status); !ok && ev.Object != nil {
			ev.Object.GetObjectKind().SetGroupVersionKind(gvk)
		}
		return ev, true
	}), nil
}

// List is ListWithContext without a context (client-go's ListerWatcher).
func (l *listerWatcher) List(opts metav1.ListOptions) (runtime.Object, error) {
	return l.ListWithContext(context.Background(), opts)
}

// Watch is WatchWithContext without a context (client-go's ListerWatcher).
func (l *listerWatcher) Watch(opts metav1.ListOptions) (watch.Interface, error) {
	return l.WatchWithContext(context.Background(), opts)
}
