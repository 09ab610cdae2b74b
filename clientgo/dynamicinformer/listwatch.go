package dynamicinformer

import (
	"context"
	"io"
	"reflect"
	"time"
	"unsafe"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/typedinformer/typedinformer/runtime/cache"
	rtdynamic "github.com/typedinformer/typedinformer/runtime/dynamicinformer"
	"github.com/typedinformer/typedinformer/runtime/wire"
)

// restClientOf returns the REST client a *dynamic.DynamicClient sends its
// requests through, or nil for any other dynamic.Interface (a fake, a
// wrapper) and for a client-go whose DynamicClient no longer keeps it
// where v0.37 does. client-go does not export it; it is read so that
// lists and watches keep the client's configuration (host, TLS,
// authentication, rate limiter, user agent) while their bodies are decoded
// by runtime/wire.
func restClientOf(client dynamic.Interface) *rest.RESTClient {
	dc, ok := client.(*dynamic.DynamicClient)
	if !ok || dc == nil {
		return nil
	}
	f := reflect.ValueOf(dc).Elem().FieldByName("client")
	if !f.IsValid() || f.Type() != reflect.TypeFor[rest.Interface]() {
		return nil
	}
	ri, _ := reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem().Interface().(rest.Interface)
	rc, _ := ri.(*rest.RESTClient)
	return rc
}

// restFetch GETs gvr in namespace through rc as the dynamic client does
// (the same path and query), with the Accept header runtime/wire asks for.
// As client-go's watches, watches are not rate limited, and a
// TimeoutSeconds bounds the request on the client side too.
func restFetch(rc *rest.RESTClient, gvr schema.GroupVersionResource, namespace string) wire.Fetch {
	path := rtdynamic.ResourcePath(gvr, namespace)
	return func(ctx context.Context, opts metav1.ListOptions, accept string) (io.ReadCloser, string, error) {
		var timeout time.Duration
		if opts.TimeoutSeconds != nil {
			timeout = time.Duration(*opts.TimeoutSeconds) * time.Second
		}
		req := rc.Get().AbsPath(path).
			SpecificallyVersionedParams(&opts, metav1.ParameterCodec, metav1.SchemeGroupVersion).
			SetHeader("Accept", accept).
			Timeout(timeout)
		if opts.Watch {
			req = req.Throttle(nil)
		}
		body, err := req.Stream(ctx)
		if err != nil {
			return nil, "", err
		}
		return body, "", nil
	}
}

// wireListerWatcher is an unstructured wire.ListWatch with the factory's
// tweak, as client-go's ListerWatcher and as the runtime's ItemLister,
// through which clientgo's informers list item by item.
type wireListerWatcher struct {
	lw    *wire.UnstructuredListWatch
	tweak TweakListOptionsFunc
}

func (w wireListerWatcher) apply(opts *metav1.ListOptions) {
	if w.tweak != nil {
		w.tweak(opts)
	}
}

// ListItems lists one page item by item.
func (w wireListerWatcher) ListItems(ctx context.Context, opts metav1.ListOptions, yield func(cache.Object) error) (*metav1.ListMeta, error) {
	w.apply(&opts)
	return w.lw.ListItems(ctx, opts, func(u *unstructured.Unstructured) error { return yield(u) })
}

// ListWithContext lists one page as a list of the decoded items.
func (w wireListerWatcher) ListWithContext(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	w.apply(&opts)
	return w.lw.List(ctx, opts)
}

// WatchWithContext starts a watch.
func (w wireListerWatcher) WatchWithContext(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	w.apply(&opts)
	return w.lw.Watch(ctx, opts)
}

// List is ListWithContext without a context.
func (w wireListerWatcher) List(opts metav1.ListOptions) (runtime.Object, error) {
	return w.ListWithContext(context.Background(), opts)
}

// Watch is WatchWithContext without a context.
func (w wireListerWatcher) Watch(opts metav1.ListOptions) (watch.Interface, error) {
	return w.WatchWithContext(context.Background(), opts)
}
