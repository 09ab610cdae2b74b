package wire

import (
	"context"
	"io"
	"reflect"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// RESTRequest is the part of client-go's *rest.Request that NewRESTFetch
// builds a GET with. R is *rest.Request and L is flowcontrol.RateLimiter;
// they are type parameters because this package does not import
// client-go, and Go infers them from the REST client passed to
// NewRESTFetch.
type RESTRequest[R any, L any] interface {
	// NamespaceIfScoped sets the namespace when scoped.
	NamespaceIfScoped(namespace string, scoped bool) R
	// Resource sets the resource (its plural).
	Resource(resource string) R
	// VersionedParams encodes obj (the ListOptions) as query parameters.
	VersionedParams(obj runtime.Object, codec runtime.ParameterCodec) R
	// UseProtobufAsDefault asks for protobuf, with JSON as the fallback,
	// unless the client's configuration sets a content type.
	UseProtobufAsDefault() R
	// SetHeader sets a header of the request.
	SetHeader(key string, values ...string) R
	// Timeout sets the request's timeout; 0 none.
	Timeout(d time.Duration) R
	// Throttle sets the request's rate limiter; nil none.
	Throttle(limiter L) R
	// Stream sends the request and returns the body of a 2xx response,
	// else the server's error.
	Stream(ctx context.Context) (io.ReadCloser, error)
}

// RESTClient is the part of client-go's rest.Interface that NewRESTFetch
// uses.
type RESTClient[R any] interface {
	// Get starts a GET request.
	Get() R
}

// restClientPackage and restClientName identify client-go's
// *rest.RESTClient, the only REST client NewRESTFetch fetches through.
const (
	restClientPackage = "k8s.io/client-go/rest"
	restClientName    = "RESTClient"
)

// NewRESTFetch returns a Fetch that GETs resource (a plural such as
// "pods") in namespace ("" for all namespaces or a cluster-scoped
// resource) through client, and true; client is a group client's
// RESTClient() of a client-go clientset. It returns nil and false when
// client is not a non-nil *rest.RESTClient of k8s.io/client-go/rest: a
// fake clientset's (client-go's and client-gen's fakes return a nil one),
// or any other implementation, which the caller lists and watches through
// the typed client instead.
//
// Each request is built as client-go's typed List and Watch build theirs:
// the ListOptions encoded by metav1.ParameterCodec (the same query as a
// clientset scheme's ParameterCodec), opts.TimeoutSeconds as the request's
// Timeout, and no client-side rate limiting of watches. The client keeps
// its authentication, rate limiter (for lists), retries and warning
// handler. When the ListWatch asks for protobuf, the request prefers it
// only if the client's configuration sets no content type
// (rest.Config.ContentType or AcceptContentTypes), so a content type the
// user set is kept; a request for JSON asks for JSON. The REST client's
// Stream does not pass the response's Content-Type on, so its encoding is
// recognised from its bytes, guided by the one asked for (see the package
// documentation).
func NewRESTFetch[C RESTClient[R], R RESTRequest[R, L], L any](client C, namespace, resource string) (Fetch, bool) {
	if !isRESTClient(client) {
		return nil, false
	}
	return restFetch[R, L](client.Get, namespace, resource), true
}

// restFetch is NewRESTFetch's Fetch, starting each request with get.
func restFetch[R RESTRequest[R, L], L any](get func() R, namespace, resource string) Fetch {
	return func(ctx context.Context, opts metav1.ListOptions, accept string) (io.ReadCloser, string, error) {
		var timeout time.Duration
		if opts.TimeoutSeconds != nil {
			timeout = time.Duration(*opts.TimeoutSeconds) * time.Second
		}
		req := get().
			NamespaceIfScoped(namespace, namespace != "").
			Resource(resource).
			VersionedParams(&opts, metav1.ParameterCodec).
			Timeout(timeout)
		if strings.HasPrefix(accept, ContentTypeProtobuf) {
			req = req.UseProtobufAsDefault()
		} else {
			req = req.SetHeader("Accept", accept)
		}
		if opts.Watch {
			var none L
			req = req.Throttle(none)
		}
		body, err := req.Stream(ctx)
		if err != nil {
			return nil, "", err
		}
		return body, "", nil
	}
}

// isRESTClient reports whether c holds a non-nil *rest.RESTClient of
// k8s.io/client-go/rest.
func isRESTClient(c any) bool {
	v := reflect.ValueOf(c)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return false
	}
	t := v.Type().Elem()
	return t.PkgPath() == restClientPackage && t.Name() == restClientName
}
