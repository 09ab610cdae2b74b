package wire

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unsafe"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/typedinformer/typedinformer/runtime/wire/internal/jsondec"
)

// UnstructuredListWatch is the ListWatch of unstructured objects.
type UnstructuredListWatch = ListWatch[unstructured.Unstructured, *unstructured.Unstructured]

// NewUnstructuredListWatch returns a ListWatch of the objects of kind gvk
// as *unstructured.Unstructured over fetch: the objects client-go's
// dynamic client (and so a dynamic informer) gets from the same
// responses, decoded item by item from the stream as every ListWatch
// decodes, their strings shared as a JSON list's are (see the package
// documentation).
//
// It asks for JSON, as the dynamic client does unless its CBOR feature
// gates are on; opts.ContentType must be empty or ContentTypeJSON. A
// response in another encoding is an error. gvk names the resource in
// errors (unless opts.Resource does) and must have a version and a kind;
// the objects' own apiVersion and kind are what the responses say.
//
// Lists are decoded as apimachinery's UnstructuredList decoding does: an
// item with neither a kind nor an apiVersion gets the list's kind without
// its "List" suffix and the list's apiVersion; a list without a kind is
// runtime's missing-kind error; the ListMeta returned is what the list's
// accessors (GetResourceVersion, GetContinue...) read from its metadata.
// Items are handed over as they are decoded when the list's kind and
// apiVersion come before its items, as an API server writes them; else
// they are held until the list's end. Two ways the streaming differs:
// once items were handed over, a list that sets its kind or apiVersion
// again to other values, or that has a second "items" member, is an
// error (apimachinery applies the last ones).
//
// Watch events are decoded as the dynamic client's watch decodes them:
// the event object must have a kind and an apiVersion (as encoding/json
// reads them: keys matched without regard to case, values strings or
// null); a kind of apimachinery's meta/v1 scheme (Status, of any
// apiVersion, above all) is decoded into its Go type, which for an ERROR
// event is the *metav1.Status the reflector expects; any other object is
// an *unstructured.Unstructured.
func NewUnstructuredListWatch(fetch Fetch, gvk schema.GroupVersionKind, opts Options) (*UnstructuredListWatch, error) {
	if fetch == nil {
		return nil, errors.New("wire.NewUnstructuredListWatch: fetch is nil")
	}
	if gvk.Version == "" || gvk.Kind == "" {
		return nil, fmt.Errorf("wire.NewUnstructuredListWatch: the group-version-kind %q has no version or no kind", gvk.String())
	}
	switch ct := strings.TrimSpace(opts.ContentType); ct {
	case "", ContentTypeJSON:
	default:
		return nil, fmt.Errorf("wire.NewUnstructuredListWatch: content type %q: unstructured objects are decoded from JSON only: want %q or empty", opts.ContentType, ContentTypeJSON)
	}
	what := gvk.String()
	if r := strings.TrimSpace(opts.Resource); r != "" {
		what = r
	}
	return &UnstructuredListWatch{
		fetch:           fetch,
		accept:          ContentTypeJSON,
		disableChunking: opts.DisableChunking,
		unstructured:    newUnstructuredCodec(),
		what:            fmt.Sprintf("%s (%T)", what, &unstructured.Unstructured{}),
		newItem:         func() *unstructured.Unstructured { return &unstructured.Unstructured{} },
		pointer:         func(u *unstructured.Unstructured) unsafe.Pointer { return unsafe.Pointer(u) },
		itemType:        fmt.Sprintf("%T", &unstructured.Unstructured{}),
	}, nil
}

// unstructuredCodec is what a ListWatch of unstructured objects decodes
// with; it is read-only.
type unstructuredCodec struct {
	// scheme holds the types the dynamic client's watch decodes event
	// objects into instead of an Unstructured: meta/v1's, in version v1.
	scheme *runtime.Scheme
}

func newUnstructuredCodec() *unstructuredCodec {
	s := runtime.NewScheme()
	metav1.AddToGroupVersion(s, schema.GroupVersion{Version: "v1"})
	return &unstructuredCodec{scheme: s}
}

// unstructuredBody is the state of one response body's decoding.
type unstructuredBody struct {
	codec *unstructuredCodec
	dec   *jsondec.UnstructuredDecoder // created once the body's strings are
}

// newBody returns the state for one body; nil for a ListWatch of a typed
// object.
func (c *unstructuredCodec) newBody() *unstructuredBody {
	if c == nil {
		return nil
	}
	return &unstructuredBody{codec: c}
}

func (d *decoder[E, T]) unstructuredDecoder() *jsondec.UnstructuredDecoder {
	if d.uns.dec == nil {
		d.uns.dec = jsondec.NewUnstructuredDecoder(d.strs)
	}
	return d.uns.dec
}

// unstructuredItem decodes a list item from the start of b: an object
// (or null) whose content becomes the item's.
func (d *decoder[E, T]) unstructuredItem(b []byte) (T, int, error) {
	m, n, err := d.unstructuredDecoder().DecodeValue(b)
	if err != nil {
		return *new(T), 0, err
	}
	return any(&unstructured.Unstructured{Object: m}).(T), n, nil
}

// typeMeta is what apimachinery's JSON serializer reads of an object's
// type before decoding it (with encoding/json: keys matched regardless of
// case, the last one winning, null leaving the value as it is). strs, when
// not nil, holds the strings read, as an item's strings are held.
type typeMeta struct {
	apiVersion, kind string
	strs             *jsondec.Strings
}

// member takes one member of the object: a key that is apiVersion or
// kind but for case must have a string or null.
func (tm *typeMeta) member(key string, v []byte) error {
	var field *string
	switch {
	case strings.EqualFold(key, "apiVersion"):
		field = &tm.apiVersion
	case strings.EqualFold(key, "kind"):
		field = &tm.kind
	default:
		return nil
	}
	switch v[0] {
	case 'n':
		return nil
	case '"':
		str, err := jsonString(v, tm.strs)
		if err != nil {
			return err
		}
		*field = str
		return nil
	}
	return fmt.Errorf("couldn't get version/kind: %q is %.20s, not a string", strings.Clone(key), v)
}

// jsonString decodes the JSON value v into a string as sigs.k8s.io/json
// does (its errors included), a plain string literal without it, held in
// strs (see jsondec.String).
func jsonString(v []byte, strs *jsondec.Strings) (string, error) {
	if str, ok := jsondec.String(v, strs); ok {
		return str, nil
	}
	var slow string // declared here, so that only this path allocates it
	err := unmarshalJSON(v, &slow)
	return slow, err
}

// gvk parses the apiVersion read.
func (tm *typeMeta) gvk() (schema.GroupVersionKind, error) {
	gv, err := schema.ParseGroupVersion(tm.apiVersion)
	if err != nil {
		return schema.GroupVersionKind{}, err
	}
	return gv.WithKind(tm.kind), nil
}

// unstructuredList walks a JSON list response as apimachinery decodes one
// into an UnstructuredList (see NewUnstructuredListWatch).
func (d *decoder[E, T]) unstructuredList(yield func(T) error) (*metav1.ListMeta, error) {
	j := d.json
	if err := j.expect('{'); err != nil {
		return nil, err
	}
	list := &unstructured.UnstructuredList{Object: map[string]any{}}
	var tm typeMeta
	var sawKind, sawAPIVersion bool
	// handed counts the items handed over, usedKind and usedAPIVersion
	// are what they were given; held are items waiting for the list's end.
	handed := 0
	var usedKind, usedAPIVersion string
	var held []T
	for more, err := j.first('}'); more || err != nil; more, err = j.next('}') {
		if err != nil {
			return nil, err
		}
		key, err := j.key()
		if err != nil {
			return nil, err
		}
		if key == "items" {
			if handed > 0 {
				return nil, errors.New("the list has a second items member after items were handed over")
			}
			clear(held) // as apimachinery does, the last items member wins
			held = held[:0]
			if sawKind && sawAPIVersion {
				usedKind, usedAPIVersion = list.GetKind(), list.GetAPIVersion()
				itemKind := strings.TrimSuffix(usedKind, "List")
				if err := d.jsonItems(func(t T) error {
					setListKind(any(t).(*unstructured.Unstructured), usedAPIVersion, itemKind)
					handed++
					return yield(t)
				}); err != nil {
					return nil, err
				}
				continue
			}
			if err := d.jsonItems(func(t T) error { held = append(held, t); return nil }); err != nil {
				return nil, err
			}
			continue
		}
		v, err := j.value()
		if err != nil {
			return nil, fmt.Errorf("field %q: %w", key, err)
		}
		if err := tm.member(key, v); err != nil {
			return nil, err
		}
		val, _, err := d.unstructuredDecoder().DecodeInterface(v)
		if err != nil {
			return nil, fmt.Errorf("field %q: %w", key, err)
		}
		list.Object[key] = val
		switch key {
		case "kind":
			sawKind = true
		case "apiVersion":
			sawAPIVersion = true
		default:
			continue
		}
		if handed > 0 && (list.GetKind() != usedKind || list.GetAPIVersion() != usedAPIVersion) {
			return nil, fmt.Errorf("the list's %s changes after its items", key)
		}
	}
	switch c, err := j.peek(); {
	case err == nil:
		return nil, fmt.Errorf("invalid character %q after the list", c)
	case !errors.Is(err, io.EOF):
		return nil, err
	}
	if _, err := tm.gvk(); err != nil {
		return nil, err
	}
	if list.GetKind() == "" {
		b, _ := json.Marshal(list.Object) //nolint:errchkjson // decoded JSON values encode
		return nil, runtime.NewMissingKindErr(string(b))
	}
	itemKind := strings.TrimSuffix(list.GetKind(), "List")
	for i, t := range held {
		held[i] = *new(T)
		setListKind(any(t).(*unstructured.Unstructured), list.GetAPIVersion(), itemKind)
		if err := yield(t); err != nil {
			return nil, yieldError{err}
		}
	}
	return &metav1.ListMeta{
		ResourceVersion:    list.GetResourceVersion(),
		Continue:           list.GetContinue(),
		RemainingItemCount: list.GetRemainingItemCount(),
	}, nil
}

// setListKind gives an item that has neither a kind nor an apiVersion
// those of its list, as apimachinery's UnstructuredList decoding does.
func setListKind(u *unstructured.Unstructured, apiVersion, kind string) {
	if u.GetKind() == "" && u.GetAPIVersion() == "" {
		u.SetKind(kind)
		u.SetAPIVersion(apiVersion)
	}
}

// unstructuredEvent decodes the object of a watch event of type et from b
// as the dynamic client's watch does.
func (d *decoder[E, T]) unstructuredEvent(et watch.EventType, b []byte) (watch.Event, error) {
	tm := typeMeta{strs: d.strs}
	if err := jsondec.Members(b, func(k, v []byte) error { return tm.member(string(k), v) }); err != nil {
		return watch.Event{}, fmt.Errorf("%s event object: %w", et, err)
	}
	gvk, err := tm.gvk()
	if err != nil {
		return watch.Event{}, fmt.Errorf("%s event object: %w", et, err)
	}
	switch {
	case gvk.Kind == "":
		return watch.Event{}, fmt.Errorf("%s event object: %w", et, runtime.NewMissingKindErr(string(b)))
	case gvk.Version == "":
		return watch.Event{}, fmt.Errorf("%s event object: %w", et, runtime.NewMissingVersionErr(string(b)))
	}
	if obj, err := d.uns.codec.scheme.New(gvk); err == nil {
		if err := unmarshalJSON(b, obj); err != nil {
			return watch.Event{}, fmt.Errorf("%s event object (%s): %w", et, gvk.Kind, err)
		}
		return watch.Event{Type: et, Object: obj}, nil
	}
	u, err := d.unstructuredDecoder().Decode(b)
	if err != nil {
		return watch.Event{}, fmt.Errorf("%s event object: %w", et, err)
	}
	return watch.Event{Type: et, Object: u}, nil
}
