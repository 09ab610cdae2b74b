package wire

import (
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"sync"
	"unsafe"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/typedinformer/typedinformer/runtime/wire/internal/jsondec"
)

// Content types a Fetch is asked for (the Accept header of the request).
const (
	// ContentTypeJSON asks for JSON only.
	ContentTypeJSON = "application/json"
	// ContentTypeProtobuf asks for Kubernetes' protobuf encoding.
	ContentTypeProtobuf = "application/vnd.kubernetes.protobuf"
)

// Fetch performs one GET of the resource a ListWatch serves: a list with
// opts (Limit, Continue, ResourceVersion, selectors...), or a watch when
// opts.Watch is set. accept is the value of the request's Accept header.
// It returns the response body, which the caller reads to its end or until
// it no longer needs it and then closes, and the response's Content-Type
// ("" when unknown: the encoding is then recognised from the body and the
// one asked for; see the package documentation). When
// the server does not answer 2xx, Fetch returns an error and no body; an
// error carrying the server's Status (an *errors.StatusError of
// k8s.io/apimachinery/pkg/api/errors) lets the reflector recognise 410 Gone
// and relist.
//
// Fetch must honour ctx: when it is cancelled, reads of the body fail.
//
// With client-go, a clientset's REST client does all of this, keeping its
// authentication, rate limiter and retries:
//
//	func(ctx context.Context, opts metav1.ListOptions, accept string) (io.ReadCloser, string, error) {
//		body, err := cs.CoreV1().RESTClient().Get().
//			Namespace(namespace).Resource("pods").
//			VersionedParams(&opts, scheme.ParameterCodec).
//			SetHeader("Accept", accept).
//			Stream(ctx)
//		return body, "", err
//	}
type Fetch func(ctx context.Context, opts metav1.ListOptions, accept string) (body io.ReadCloser, contentType string, err error)

// Object is the constraint on a ListWatch's type: a pointer to an API type
// E (such as *corev1.Pod for corev1.Pod) that is a runtime.Object with
// ObjectMeta.
type Object[E any] interface {
	*E
	runtime.Object
	metav1.Object
}

// protoMessage is what protobuf decoding needs of an object: the
// Unmarshal method of gogo-protobuf's generated code, which every
// k8s.io/api type has. Like every protobuf Unmarshal, it must not keep a
// reference to its argument, which ListWatch reuses.
type protoMessage interface {
	Unmarshal(data []byte) error
}

// Options configures a ListWatch. The zero value asks for protobuf when the
// type has generated protobuf methods and JSON otherwise.
type Options struct {
	// ContentType is the encoding to ask the server for: ContentTypeJSON,
	// ContentTypeProtobuf, ContentTypeCBOR, or "" for the cheapest the type
	// allows (protobuf for types with an Unmarshal method, such as every
	// k8s.io/api type, else JSON: decoding CBOR costs about twice the CPU
	// time of this package's JSON decoding, so custom resources get CBOR
	// only when asked for). Set it to what the user configured
	// explicitly (rest.Config.ContentType) to keep that choice. A protobuf
	// request also accepts JSON, which servers send for custom resources.
	// Decoding protobuf costs about a quarter of the CPU time of JSON and
	// allocates less; JSON is what every server and type supports.
	ContentType string
	// DisableChunking makes every list one request, ignoring the Limit
	// the reflector asks for (as cache.ListWatch.DisableChunking does).
	DisableChunking bool
	// Resource names the resource in the ListWatch's errors, for example
	// "foos.v1alpha1.samples.example.com"; they always name T's Go type.
	// When it has that form (resource.version.group, or resource.version
	// for the core group), its version and group are T's unless
	// GroupVersionKind says otherwise.
	Resource string
	// GroupVersionKind is T's kind and apiVersion, which every watch event
	// object must carry, as client-go's scheme requires (see the package
	// documentation). An empty Kind is T's Go type name; an empty Version
	// takes the group and version from Resource, and when Resource has
	// none, only the kind is checked and the apiVersion must be set.
	GroupVersionKind schema.GroupVersionKind
}

// itemKind returns the group, version and kind watch event objects must
// have, and whether the group and version are known.
func itemKind(opts Options, elem reflect.Type) (schema.GroupVersionKind, bool) {
	gvk := opts.GroupVersionKind
	if gvk.Kind == "" {
		gvk.Kind = elem.Name()
	}
	if gvk.Version != "" {
		return gvk, true
	}
	parts := strings.SplitN(strings.TrimSpace(opts.Resource), ".", 3)
	if len(parts) < 2 || parts[1] == "" {
		return gvk, false
	}
	gvk.Version = parts[1]
	if len(parts) == 3 {
		gvk.Group = parts[2]
	}
	return gvk, true
}

// Item is what every ListWatch's items are: a runtime.Object with
// ObjectMeta (the runtime's cache.Object).
type Item interface {
	runtime.Object
	metav1.Object
}

// ListWatch lists and watches one resource through a Fetch, decoding
// responses item by item into T (see the package documentation). It
// satisfies the runtime's cache.ListerWatcher and its optional item-by-item
// list interface, which the reflector uses instead of List; List remains
// for other callers and returns a *List[T].
//
// A ListWatch from NewListWatch has E, the API type, and T, a pointer to
// it; one from NewListWatchOf, whose Go type is chosen at run time, is a
// ListWatch[Item, Item] whose items are all of that one type.
//
// A ListWatch holds no state between calls and is safe for concurrent use.
type ListWatch[E any, T Item] struct {
	fetch           Fetch
	accept          string
	proto           bool // T has protobuf methods
	disableChunking bool
	json            *jsondec.Decoder           // decodes T from JSON; read-only
	share           *sharePlan                 // shares strings of protobuf items; read-only
	cbor            func() (*cborItems, error) // decodes T from CBOR; built on first use
	unstructured    *unstructuredCodec         // set for unstructured objects; read-only
	what            string                     // the resource and T, for errors
	gvk             schema.GroupVersionKind    // what watch event objects must be
	gvKnown         bool                       // gvk's group and version are known
	newItem         func() T                   // a new, empty item
	pointer         func(T) unsafe.Pointer     // the struct an item points to
	itemType        string                     // the items' Go type, for errors
}

// NewListWatch returns a ListWatch of T over fetch. It returns an error
// when opts.ContentType is neither empty, ContentTypeJSON nor
// ContentTypeProtobuf, or is protobuf for a type without protobuf methods.
func NewListWatch[E any, T Object[E]](fetch Fetch, opts Options) (*ListWatch[E, T], error) {
	return newListWatch[E, T](fetch, opts, reflect.TypeFor[E](),
		func() T { return T(new(E)) }, func(t T) unsafe.Pointer { return unsafe.Pointer(t) })
}

// NewListWatchOf returns a ListWatch whose items are new objects of
// example's Go type, which must be a pointer to a struct: for callers that
// learn the type only at run time, such as from a scheme. It decodes as
// NewListWatch does for that type, and fails as it does, and when example
// is nil or not a pointer to a struct.
func NewListWatchOf(fetch Fetch, example Item, opts Options) (*ListWatch[Item, Item], error) {
	typ := reflect.TypeOf(example)
	if example == nil || typ.Kind() != reflect.Pointer || typ.Elem().Kind() != reflect.Struct {
		return nil, fmt.Errorf("wire.NewListWatchOf: the example object %T is not a pointer to a struct", example)
	}
	elem := typ.Elem()
	return newListWatch[Item, Item](fetch, opts, elem,
		func() Item { return reflect.New(elem).Interface().(Item) },
		func(t Item) unsafe.Pointer { return reflect.ValueOf(t).UnsafePointer() })
}

func newListWatch[E any, T Item](fetch Fetch, opts Options, elem reflect.Type, newItem func() T, pointer func(T) unsafe.Pointer) (*ListWatch[E, T], error) {
	if fetch == nil {
		return nil, errors.New("wire.NewListWatch: fetch is nil")
	}
	itemType := reflect.PointerTo(elem).String()
	_, proto := any(newItem()).(protoMessage)
	lw := &ListWatch[E, T]{fetch: fetch, proto: proto, disableChunking: opts.DisableChunking, json: jsondec.New(elem),
		cbor: sync.OnceValues(func() (*cborItems, error) { return newCBORItems(elem) }), what: itemType,
		newItem: newItem, pointer: pointer, itemType: itemType}
	if proto {
		lw.share = newSharePlan(elem)
	}
	lw.gvk, lw.gvKnown = itemKind(opts, elem)
	if r := strings.TrimSpace(opts.Resource); r != "" {
		lw.what = r + " (" + lw.what + ")"
	}
	switch ct := strings.TrimSpace(opts.ContentType); {
	case ct == "" && proto, ct == ContentTypeProtobuf && proto:
		lw.accept = ContentTypeProtobuf + ", " + ContentTypeJSON
	case ct == "", ct == ContentTypeJSON:
		lw.accept = ContentTypeJSON
	case ct == ContentTypeCBOR:
		lw.accept = ContentTypeCBOR + ", " + ContentTypeJSON + ";q=0.9"
	case ct == ContentTypeProtobuf:
		return nil, fmt.Errorf("wire.NewListWatch: content type %s asked for %s, which has no protobuf Unmarshal method", ct, itemType)
	default:
		return nil, fmt.Errorf("wire.NewListWatch: content type %q: want %q, %q, %q or empty", opts.ContentType, ContentTypeJSON, ContentTypeProtobuf, ContentTypeCBOR)
	}
	return lw, nil
}

// Accept returns the Accept header the ListWatch sends.
func (lw *ListWatch[E, T]) Accept() string { return lw.accept }

// ListItems lists with opts and calls yield with each item, in the
// response's order, as soon as it is decoded; each item is a fresh object
// that the callee owns. It returns the list's metadata (resourceVersion,
// continue token) once the whole response is read. The first error of
// yield stops the listing and is returned as is; any other error names the
// request and what in the response was malformed. yield is never called
// after ListItems returns.
func (lw *ListWatch[E, T]) ListItems(ctx context.Context, opts metav1.ListOptions, yield func(T) error) (*metav1.ListMeta, error) {
	if lw.disableChunking {
		opts.Limit = 0
	}
	opts.Watch = false
	resp, ct, err := lw.fetch(ctx, opts, lw.accept)
	if err != nil {
		return nil, err
	}
	body := newReadAhead(resp)
	defer body.Close()
	d := newDecoder(body, ct, lw)
	d.uns = lw.unstructured.newBody()
	lm, err := d.list(yield)
	if err != nil {
		var y yieldError
		if errors.As(err, &y) {
			return nil, y.err
		}
		return nil, fmt.Errorf("decoding the list of %s: %w", lw.what, err)
	}
	return lm, nil
}

// List lists with opts and returns the items as a *List[T]. Prefer
// ListItems, which keeps no list.
func (lw *ListWatch[E, T]) List(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	l := &List[T]{}
	lm, err := lw.ListItems(ctx, opts, func(t T) error {
		l.Items = append(l.Items, t)
		return nil
	})
	if err != nil {
		return nil, err
	}
	l.ListMeta = *lm
	return l, nil
}

// Watch starts a watch with opts (a watch-list when opts.SendInitialEvents
// is set) and returns it; its events carry T, or *metav1.Status for
// watch.Error events. A stream that cannot be decoded ends with an Error
// event whose Status says why.
func (lw *ListWatch[E, T]) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	opts.Watch = true
	body, ct, err := lw.fetch(ctx, opts, lw.accept)
	if err != nil {
		return nil, err
	}
	var ahead *readAhead
	if opts.SendInitialEvents != nil && *opts.SendInitialEvents {
		// A watch-list's initial events are a list's worth of bytes:
		// read them while earlier ones are decoded.
		ahead = newWatchReadAhead(body)
		body = ahead
	}
	d := newDecoder(body, ct, lw)
	d.uns = lw.unstructured.newBody()
	next := d.event
	if ahead != nil {
		next = func() (watch.Event, error) {
			ev, err := d.event()
			if err == nil && ev.Type == watch.Bookmark && initialEventsEnd(ev.Object) {
				// The initial events are over: the chunks that read them
				// ahead go now, not once the stream has idled.
				ahead.trim()
			}
			return ev, err
		}
	}
	return newStreamWatcher(ctx, next, body, lw.what), nil
}

// initialEventsEnd reports whether a bookmark's object marks the end of a
// watch-list's initial events.
func initialEventsEnd(obj runtime.Object) bool {
	m, ok := obj.(metav1.Object)
	return ok && m.GetAnnotations()[metav1.InitialEventsAnnotationKey] == "true"
}

// yieldError carries an error of the caller's yield function through the
// decoder unchanged.
type yieldError struct{ err error }

func (e yieldError) Error() string { return e.err.Error() }
func (e yieldError) Unwrap() error { return e.err }

// List is what ListWatch.List returns: a list whose Items are separate
// objects (no shared backing array of structs).
type List[T runtime.Object] struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []T `json:"items"`
}

// DeepCopyObject copies the list and every item.
func (l *List[T]) DeepCopyObject() runtime.Object {
	if l == nil {
		return nil
	}
	out := &List[T]{TypeMeta: l.TypeMeta}
	l.ListMeta.DeepCopyInto(&out.ListMeta)
	if l.Items != nil {
		out.Items = make([]T, len(l.Items))
		for i, it := range l.Items {
			out.Items[i] = it.DeepCopyObject().(T)
		}
	}
	return out
}
