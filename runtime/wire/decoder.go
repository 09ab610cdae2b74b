package wire

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unsafe"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	kjson "sigs.k8s.io/json"

	"github.com/typedinformer/typedinformer/runtime/wire/internal/cborscan"
	"github.com/typedinformer/typedinformer/runtime/wire/internal/jsondec"
)

// decoder reads one response body (a list or a watch stream) of T. It is
// used by one goroutine.
type decoder[E any, T Item] struct {
	br          *bufio.Reader
	contentType string // the response's; "" when the fetch does not know it
	// asked is the encoding the request asked for first: encJSON,
	// encProtobuf or encCBOR.
	asked string
	proto bool // T has protobuf methods
	// encoding is "json", "protobuf" or "cbor" once the body's first bytes were
	// read; "" before.
	encoding string
	s        streamReader     // protobuf
	json     *jsonStream      // JSON, created on first use
	item     *jsondec.Decoder // decodes T from JSON
	strs     *jsondec.Strings // strings shared by the items of the body
	share    *sharePlan       // shares the strings of protobuf items
	shared   *shareState      // share's state for this body
	frame    [4]byte          // a protobuf watch frame's length
	items    int              // list items decoded so far, for errors

	gvk      schema.GroupVersionKind // what watch event objects must be
	gvKnown  bool                    // gvk's group and version are known
	newItem  func() T                // a new, empty item
	pointer  func(T) unsafe.Pointer  // the struct an item points to, for share
	itemType string                  // the items' Go type, for errors

	// CBOR (see cbor.go): cborOf builds what decodes T, cbor and
	// cborStream are set once the body is recognised as CBOR.
	cborOf     func() (*cborItems, error)
	cbor       *cborItems
	cborStream *cborStream

	// uns is set when T is unstructured.Unstructured (see unstructured.go).
	uns *unstructuredBody
}

// sharedStrings is how many distinct strings the items of one JSON or
// protobuf body share (see jsondec.Strings and sharePlan): enough for what
// a list's objects repeat (the first ones met are kept, and those repeat
// from the first objects on), bounded for what they do not.
const sharedStrings = 1 << 12

const (
	encJSON     = "json"
	encProtobuf = "protobuf"
	encCBOR     = "cbor"
)

func newDecoder[E any, T Item](body io.Reader, contentType string, lw *ListWatch[E, T]) *decoder[E, T] {
	br := bufio.NewReaderSize(body, 64<<10)
	return &decoder[E, T]{br: br, contentType: contentType, asked: askedEncoding(lw.accept), proto: lw.proto, s: streamReader{r: br}, item: lw.json, share: lw.share,
		cborOf: lw.cbor, gvk: lw.gvk, gvKnown: lw.gvKnown, newItem: lw.newItem, pointer: lw.pointer, itemType: lw.itemType}
}

// askedEncoding is the encoding an Accept header of a ListWatch asks for
// first.
func askedEncoding(accept string) string {
	switch {
	case strings.HasPrefix(accept, ContentTypeProtobuf):
		return encProtobuf
	case strings.HasPrefix(accept, ContentTypeCBOR):
		return encCBOR
	}
	return encJSON
}

// sniff decides the body's encoding. A JSON, protobuf or CBOR
// Content-Type decides it, as client-go decodes by the response's
// Content-Type. Otherwise (and
// without a Content-Type, as through NewRESTFetch) it is recognised from
// the first bytes: JSON starts with '{' after white space, CBOR with its
// self-described tag, a protobuf list with protoMagic, a protobuf watch
// stream with a frame length. A server that answers JSON to a request
// for protobuf or CBOR (a custom resource's) is read correctly either
// way. Without a Content-Type, a watch stream asked for as JSON only is
// JSON, a list body asked for as JSON only is never protobuf, a body
// asked for as CBOR that does not start with '{' is CBOR, and a list
// body of null is JSON only if JSON was asked for.
// It returns io.EOF for an empty body.
func (d *decoder[E, T]) sniff(watching bool) error {
	if d.encoding != "" {
		return nil
	}
	for {
		b, err := d.br.Peek(1)
		if err != nil {
			return err
		}
		if strings.Contains(d.contentType, "protobuf") {
			break
		}
		if strings.Contains(d.contentType, "json") || watching && d.contentType == "" && d.asked == encJSON {
			// As client-go does, a body of a JSON content type is read as
			// JSON whatever it starts with.
			d.useJSON(watching)
			return nil
		}
		if b[0] == cborscan.SelfDescribed[0] || strings.Contains(d.contentType, "cbor") {
			return d.sniffCBOR(watching)
		}
		if d.contentType == "" && d.asked == encCBOR && b[0] != '{' {
			// A server answers a CBOR request in CBOR or with a JSON
			// object, which starts with '{'.
			return d.sniffCBOR(watching)
		}
		switch b[0] {
		case ' ', '\t', '\r', '\n':
			d.br.Discard(1) //nolint:errcheck // Peek succeeded
			continue
		case '{':
			d.useJSON(watching)
			return nil
		case 'n':
			// A list body of null, which client-go reads as an empty
			// list; only where JSON is expected: an empty list would
			// make the reflector delete every cached object.
			if d.asked == encJSON {
				d.useJSON(watching)
				return nil
			}
		}
		break
	}
	if !watching {
		b, err := d.br.Peek(len(protoMagic))
		if err != nil || string(b) != protoMagic {
			if strings.Contains(d.contentType, "protobuf") {
				return fmt.Errorf("the response does not start with the protobuf prefix %q (it starts with %q; Content-Type %q)", protoMagic, b, d.contentType)
			}
			return fmt.Errorf("the response is neither JSON nor Kubernetes protobuf (it starts with %q; Content-Type %q)", b, d.contentType)
		}
	}
	if !d.proto {
		return fmt.Errorf("the response is protobuf, and %s has no protobuf Unmarshal method (Content-Type %q)", d.itemType, d.contentType)
	}
	if d.contentType == "" && d.asked == encJSON {
		// Only JSON was asked for, so a server answers JSON: client-go
		// reads such a body as JSON and fails on it.
		return fmt.Errorf("the response is protobuf, but only JSON was asked for (Content-Type %q)", d.contentType)
	}
	d.encoding = encProtobuf
	d.strs = jsondec.NewStrings(sharedStrings)
	d.shared = d.share.newState(d.strs)
	return nil
}

// useJSON makes the body's encoding JSON.
func (d *decoder[E, T]) useJSON(watching bool) {
	d.encoding = encJSON
	size, limit := jsonListBuffer, 0
	if watching {
		size, limit = jsonWatchBuffer, maxEvent
	}
	d.json = newJSONStream(d.br, size, limit)
	d.strs = jsondec.NewStrings(sharedStrings)
}

// list decodes a list response, calling yield with each item; errors of
// yield come back as yieldError.
func (d *decoder[E, T]) list(yield func(T) error) (*metav1.ListMeta, error) {
	if err := d.sniff(false); err != nil {
		return nil, eofIsUnexpected(err)
	}
	switch d.encoding {
	case encJSON:
		if d.uns != nil {
			return d.unstructuredList(yield)
		}
		return d.jsonList(yield)
	case encCBOR:
		return d.cborList(yield)
	}
	return d.protoList(yield)
}

// protoList walks a protobuf list response: the envelope's fields from the
// stream, and inside its raw field the list's metadata and items, each
// item read into the reused buffer and unmarshalled into a fresh T. As
// apimachinery's protobuf serializer reads the envelope: contentEncoding
// and contentType are not looked at, an envelope without a raw field is an
// empty list, and of two raw fields the last counts (once items of the
// first were handed over, a second is an error: they cannot be taken
// back).
func (d *decoder[E, T]) protoList(yield func(T) error) (*metav1.ListMeta, error) {
	s := &d.s
	if _, err := s.r.Discard(len(protoMagic)); err != nil {
		return nil, err
	}
	s.n += int64(len(protoMagic))
	var lm *metav1.ListMeta
	var env envelope
	empty := true
	for {
		tag, err := s.uvarint()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		empty = false
		field, wt := tag>>3, tag&7
		if err := checkWireType(field, wt, "Unknown", unknownTypeMeta, unknownRaw, unknownContentEncoding, unknownContentType); err != nil {
			return nil, err
		}
		switch field {
		case unknownTypeMeta:
			n, err := s.length(noEnd)
			if err != nil {
				return nil, fmt.Errorf("typeMeta: %w", err)
			}
			b, err := s.bytes(n)
			if err != nil {
				return nil, fmt.Errorf("typeMeta: %w", err)
			}
			if err := env.typeMeta(b); err != nil {
				return nil, fmt.Errorf("typeMeta: %w", err)
			}
		case unknownRaw:
			l, err := s.uvarint()
			if err != nil {
				return nil, eofIsUnexpected(err)
			}
			if env.kind == "Status" {
				return nil, d.protoStatus(l)
			}
			if err := d.checkListKind(env.kind, env.apiVersion); err != nil {
				return nil, err
			}
			if lm != nil && d.items > 0 {
				return nil, errors.New("the protobuf envelope has a second raw field after items were handed over")
			}
			if lm, err = d.protoListBody(int64(l), yield); err != nil {
				return nil, err
			}
		default:
			if err := s.skip(wt, noEnd); err != nil {
				return nil, err
			}
		}
	}
	if empty {
		return nil, errors.New("empty body")
	}
	if lm == nil {
		lm = &metav1.ListMeta{}
	}
	return lm, nil
}

// protoStatus reads a Status of size bytes sent instead of a list and
// returns it as an error.
func (d *decoder[E, T]) protoStatus(size uint64) error {
	if size > maxMessage {
		return fmt.Errorf("a Status of %d bytes is larger than the limit of %d", size, maxMessage)
	}
	b, err := d.s.bytes(int(size))
	if err != nil {
		return err
	}
	st := &metav1.Status{}
	if err := st.Unmarshal(b); err != nil {
		return fmt.Errorf("the response is a Status that cannot be decoded: %w", err)
	}
	return statusError(st)
}

// protoListBody reads size bytes of a list message from the stream.
func (d *decoder[E, T]) protoListBody(size int64, yield func(T) error) (*metav1.ListMeta, error) {
	s := &d.s
	end := s.n + size
	lm := &metav1.ListMeta{}
	for s.n < end {
		tag, err := s.uvarint()
		if err != nil {
			return nil, eofIsUnexpected(err)
		}
		field, wt := tag>>3, tag&7
		if err := checkWireType(field, wt, "the list", listMetadata, listItems); err != nil {
			return nil, err
		}
		switch {
		case field == listMetadata && wt == wireBytes:
			n, err := s.length(end)
			if err != nil {
				return nil, fmt.Errorf("list metadata: %w", err)
			}
			b, err := s.bytes(n)
			if err != nil {
				return nil, fmt.Errorf("list metadata: %w", err)
			}
			if err := lm.Unmarshal(b); err != nil {
				return nil, fmt.Errorf("list metadata: %w", err)
			}
		case field == listItems && wt == wireBytes:
			n, err := s.length(end)
			if err != nil {
				return nil, fmt.Errorf("item %d: %w", d.items, err)
			}
			b, err := s.bytes(n)
			if err != nil {
				return nil, fmt.Errorf("item %d: %w", d.items, err)
			}
			t := d.newItem()
			if err := d.share.unmarshal(t, d.pointer(t), b, d.shared); err != nil {
				return nil, fmt.Errorf("item %d: %w", d.items, err)
			}
			d.items++
			if err := yield(t); err != nil {
				return nil, yieldError{err}
			}
		default:
			if err := s.skip(wt, end); err != nil {
				return nil, err
			}
		}
	}
	if s.n != end {
		return nil, errTruncated
	}
	return lm, nil
}

// jsonList walks a JSON list response: its metadata, and each element of
// items decoded into a fresh T as the stream reaches it. It accepts and
// refuses what client-go's typed decoding of the whole body into a list
// does: null, {} and a list without items or metadata are an empty list;
// nesting is limited over the whole document; members kind and apiVersion
// (their keys in any case, as encoding/json reads them) must be strings
// or null; a second metadata merges into the first; nothing but white
// space may follow. One difference, as the items are handed over as they
// are decoded: a second items member after items were handed over is an
// error (client-go keeps the last one).
func (d *decoder[E, T]) jsonList(yield func(T) error) (*metav1.ListMeta, error) {
	j := d.json
	lm := &metav1.ListMeta{}
	c, err := j.peek()
	if err != nil {
		return nil, eofIsUnexpected(err)
	}
	if c == 'n' {
		if err := j.null(); err != nil {
			return nil, err
		}
		return lm, j.end()
	}
	if err := j.expect('{'); err != nil {
		return nil, err
	}
	j.depth = 1
	defer func() { j.depth = 0 }()
	var tm typeMeta
	// The members other than items, kept as an object's text in case the
	// body turns out to be a Status (see jsonStatus).
	members := []byte{'{'}
	for more, err := j.first('}'); more || err != nil; more, err = j.next('}') {
		if err != nil {
			return nil, err
		}
		key, err := j.key()
		if err != nil {
			return nil, err
		}
		if key == "items" && tm.kind != "Status" {
			if d.items > 0 {
				return nil, errors.New("the list has a second items member after items were handed over")
			}
			if err := d.checkListKind(tm.kind, tm.apiVersion); err != nil {
				return nil, err
			}
			if err := d.jsonItems(yield); err != nil {
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
		members = appendMember(members, key, v)
		if key == "metadata" && tm.kind != "Status" {
			if err := unmarshalJSON(v, lm); err != nil {
				return nil, fmt.Errorf("list metadata: %w", err)
			}
		}
	}
	if tm.kind == "Status" {
		if err := j.end(); err != nil {
			return nil, err
		}
		return nil, jsonStatus(append(members[:len(members)-1], '}'))
	}
	if err := d.checkListKind(tm.kind, tm.apiVersion); err != nil {
		return nil, err
	}
	return lm, j.end()
}

// appendMember appends the member key: v and a comma to an object's text.
func appendMember(b []byte, key string, v []byte) []byte {
	k, _ := json.Marshal(key) // a string always marshals
	b = append(b, k...)
	b = append(b, ':')
	b = append(b, v...)
	return append(b, ',')
}

// jsonStatus decodes the Status that a list response's body holds (its
// members in b) and returns it as the error client-go's REST client
// makes of a Status that is not a success. A Status of status Success is
// an error too: client-go would give an empty list, on which the
// reflector would delete every cached object.
func jsonStatus(b []byte) error {
	st := &metav1.Status{}
	if err := unmarshalJSON(b, st); err != nil {
		return fmt.Errorf("the response is a Status that cannot be decoded: %w", err)
	}
	return statusError(st)
}

// statusError is the error for a Status sent instead of a list, wrapping
// the *apierrors.StatusError that carries its reason and code.
func statusError(st *metav1.Status) error {
	if st.Status == metav1.StatusSuccess {
		return errors.New("the server answered with a Status of status Success instead of a list")
	}
	return fmt.Errorf("the server answered with a Status instead of a list: %w", apierrors.FromObject(st))
}

// null consumes the literal null, which must come next.
func (j *jsonStream) null() error {
	v, err := j.value()
	if err != nil {
		return err
	}
	if string(v) != "null" {
		return fmt.Errorf("want an object or null, got %.20q", v)
	}
	return nil
}

// end checks that nothing but white space follows the document.
func (j *jsonStream) end() error {
	switch c, err := j.peek(); {
	case err == nil:
		return fmt.Errorf("invalid character %q after top-level value", c)
	case !errors.Is(err, io.EOF):
		return err
	}
	return nil
}

// jsonItems decodes the items array (or null).
func (d *decoder[E, T]) jsonItems(yield func(T) error) error {
	j := d.json
	c, err := j.peek()
	if err != nil {
		return fmt.Errorf("items: %w", eofIsUnexpected(err))
	}
	if c != '[' {
		v, err := j.value()
		if err != nil {
			return fmt.Errorf("items: %w", err)
		}
		if string(v) == "null" {
			return nil
		}
		return fmt.Errorf("items: want an array, got %.20q", v)
	}
	j.off++
	for more, err := j.first(']'); more || err != nil; more, err = j.next(']') {
		if err != nil {
			return fmt.Errorf("item %d: %w", d.items, err)
		}
		var t T
		if err := j.decode(func(b []byte) (n int, err error) {
			t, n, err = d.jsonItem(b)
			return n, err
		}); err != nil {
			return fmt.Errorf("item %d: %w", d.items, err)
		}
		d.items++
		if err := yield(t); err != nil {
			return yieldError{err}
		}
	}
	return nil
}

// jsonItem decodes a list item from the start of b into a fresh T and
// returns how many bytes it took. The item is two levels deep in the
// list's document (the list, its items). As in client-go's typed lists,
// an item keeps the kind and apiVersion it carries.
func (d *decoder[E, T]) jsonItem(b []byte) (T, int, error) {
	if d.uns != nil {
		return d.unstructuredItem(b)
	}
	t := d.newItem()
	n, err := d.item.DecodeValueAt(b, t, d.strs, 2)
	if err != nil {
		return *new(T), 0, err
	}
	return t, n, nil
}

// unmarshalJSON decodes a small value that is not an item, as
// apimachinery does.
func unmarshalJSON(b []byte, v any) error {
	return kjson.UnmarshalCaseSensitivePreserveInts(b, v)
}

// event decodes the next watch event; io.EOF means the stream ended
// cleanly between events.
func (d *decoder[E, T]) event() (watch.Event, error) {
	if err := d.sniff(true); err != nil {
		return watch.Event{}, err
	}
	switch d.encoding {
	case encJSON:
		return d.jsonEvent()
	case encCBOR:
		return d.cborEvent()
	}
	return d.protoEvent()
}

// protoEvent reads one length-prefixed frame of a protobuf watch stream:
// an envelope holding a WatchEvent, whose object is an envelope holding T
// (or a Status for an error event).
func (d *decoder[E, T]) protoEvent() (watch.Event, error) {
	if _, err := io.ReadFull(d.br, d.frame[:]); err != nil {
		return watch.Event{}, err // io.EOF at a frame boundary is the end
	}
	size := binary32(d.frame)
	if size > maxEvent {
		// As client-go's streaming decoder: the frame is too large once
		// maxEvent of its bytes were read; a body that ends before is a
		// quiet end. The bytes are not kept.
		if _, err := d.br.Discard(maxEvent); err != nil {
			return watch.Event{}, eofIsUnexpected(err)
		}
		return watch.Event{}, errObjectTooLarge
	}
	frame, err := d.s.bytes(int(size))
	if err != nil {
		return watch.Event{}, err
	}
	// An API server frames each event as a bare WatchEvent message (its
	// stream serializer adds no prefix); only the object inside carries
	// the Kubernetes protobuf envelope. A frame in the envelope is read
	// too.
	event := frame
	if hasProtoMagic(frame) {
		env, err := openEnvelope(frame)
		if err != nil {
			return watch.Event{}, fmt.Errorf("watch event: %w", err)
		}
		event = env.raw
	}
	// As gogo-protobuf's WatchEvent.Unmarshal: the last type wins, object
	// fields merge (the last raw wins).
	var typ string
	var object []byte
	r := sliceReader{b: event}
	for {
		field, wt, val, _, ok, err := r.next()
		if err != nil {
			return watch.Event{}, fmt.Errorf("watch event: %w", err)
		}
		if !ok {
			break
		}
		if err := checkWireType(field, wt, "WatchEvent", watchEventType, watchEventObject); err != nil {
			return watch.Event{}, err
		}
		switch field {
		case watchEventType:
			typ = string(val)
		case watchEventObject:
			ext := sliceReader{b: val}
			for {
				f, w, v, _, ok, err := ext.next()
				if err != nil {
					return watch.Event{}, fmt.Errorf("watch event object: %w", err)
				}
				if !ok {
					break
				}
				if err := checkWireType(f, w, "RawExtension", rawExtensionRaw); err != nil {
					return watch.Event{}, err
				}
				if f == rawExtensionRaw {
					object = v
				}
			}
		}
	}
	et, err := eventType(typ)
	if err != nil {
		return watch.Event{}, err
	}
	if len(object) == 0 {
		return watch.Event{}, fmt.Errorf("%s watch event without an object", typ)
	}
	inner, err := openEnvelope(object)
	if err != nil {
		return watch.Event{}, fmt.Errorf("%s event object: %w", typ, err)
	}
	if err := d.checkKind(et, inner.apiVersion, inner.kind, func() string {
		return fmt.Sprintf("%#v", metav1.TypeMeta{APIVersion: inner.apiVersion, Kind: inner.kind})
	}); err != nil {
		return watch.Event{}, err
	}
	if et == watch.Error {
		st := &metav1.Status{}
		if err := st.Unmarshal(inner.raw); err != nil {
			return watch.Event{}, fmt.Errorf("ERROR event status: %w", err)
		}
		return watch.Event{Type: et, Object: st}, nil
	}
	t := d.newItem()
	if err := d.share.unmarshal(t, d.pointer(t), inner.raw, d.shared); err != nil {
		return watch.Event{}, fmt.Errorf("%s event object (kind %q): %w", typ, inner.kind, err)
	}
	return watch.Event{Type: et, Object: t}, nil
}

func binary32(b [4]byte) uint64 {
	return uint64(b[0])<<24 | uint64(b[1])<<16 | uint64(b[2])<<8 | uint64(b[3])
}

// checkKind checks the kind and apiVersion of an event's object as
// client-go's watch decoder does, which decodes it through its scheme
// and so needs both, of a type it knows: T's, or a Status in an ERROR
// event. object describes the object for the missing-kind and
// missing-version errors.
func (d *decoder[E, T]) checkKind(et watch.EventType, apiVersion, kind string, object func() string) error {
	if kind == "" {
		return fmt.Errorf("%s event object: %w", et, runtime.NewMissingKindErr(object()))
	}
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil || gv.Version == "" {
		return fmt.Errorf("%s event object: %w", et, runtime.NewMissingVersionErr(object()))
	}
	switch {
	case et == watch.Error:
		if kind == "Status" {
			return nil
		}
		return fmt.Errorf("%s event object of kind %q and apiVersion %q, not a Status", et, kind, apiVersion)
	case kind != d.gvk.Kind:
	case !d.gvKnown, gv == d.gvk.GroupVersion():
		return nil
	}
	want := fmt.Sprintf("kind %q", d.gvk.Kind)
	if d.gvKnown {
		want = fmt.Sprintf("kind %q and apiVersion %q", d.gvk.Kind, d.gvk.GroupVersion().String())
	}
	return fmt.Errorf("%s event object of kind %q and apiVersion %q, not %s", et, kind, apiVersion, want)
}

// jsonEvent decodes one {"type": ..., "object": ...} of a JSON watch
// stream, as client-go decodes a metav1.WatchEvent: the last type wins,
// and the last object that is not null.
func (d *decoder[E, T]) jsonEvent() (watch.Event, error) {
	j := d.json
	if _, err := j.peek(); err != nil {
		return watch.Event{}, err // io.EOF between events is the end
	}
	b, err := j.value()
	if err != nil {
		return watch.Event{}, fmt.Errorf("watch event: %w", err)
	}
	var typ string
	var object []byte
	if err := jsondec.Members(b, func(k, v []byte) error {
		switch string(k) {
		case "type":
			var err error
			if typ, err = jsonString(v, d.strs); err != nil {
				return fmt.Errorf("watch event type: %w", err)
			}
		case "object":
			if string(v) != "null" {
				object = v
			}
		}
		return nil
	}); err != nil {
		return watch.Event{}, fmt.Errorf("watch event: %w", err)
	}
	if object == nil {
		if _, err := eventType(typ); err != nil {
			return watch.Event{}, err
		}
		return watch.Event{}, fmt.Errorf("%s watch event without an object", typ)
	}
	return d.jsonEventObject(typ, object)
}

// jsonEventObject decodes the object of an event of type typ from b.
func (d *decoder[E, T]) jsonEventObject(typ string, b []byte) (watch.Event, error) {
	et, err := eventType(typ)
	if err != nil {
		return watch.Event{}, err
	}
	if d.uns != nil {
		return d.unstructuredEvent(et, b)
	}
	tm := typeMeta{strs: d.strs}
	if err := jsondec.Members(b, func(k, v []byte) error { return tm.member(string(k), v) }); err != nil {
		return watch.Event{}, fmt.Errorf("%s event object: %w", et, err)
	}
	if err := d.checkKind(et, tm.apiVersion, tm.kind, func() string { return shortJSON(b) }); err != nil {
		return watch.Event{}, err
	}
	if et == watch.Error {
		st := &metav1.Status{}
		if err := unmarshalJSON(b, st); err != nil {
			return watch.Event{}, fmt.Errorf("ERROR event status: %w", err)
		}
		st.TypeMeta = metav1.TypeMeta{} // as client-go's decoder leaves it
		return watch.Event{Type: et, Object: st}, nil
	}
	t := d.newItem()
	if _, err := d.item.DecodeValue(b, t, d.strs); err != nil {
		return watch.Event{}, fmt.Errorf("%s event object: %w", typ, err)
	}
	t.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{})
	return watch.Event{Type: et, Object: t}, nil
}

// shortJSON is the start of an object's JSON, for errors.
func shortJSON(b []byte) string {
	if len(b) > 256 {
		return string(b[:256]) + "..."
	}
	return string(b)
}

// eventType checks a watch event's type.
func eventType(typ string) (watch.EventType, error) {
	switch et := watch.EventType(typ); et {
	case watch.Added, watch.Modified, watch.Deleted, watch.Bookmark, watch.Error:
		return et, nil
	}
	return "", fmt.Errorf("a watch event of unknown type %q", typ)
}

// checkListKind checks a list response's kind and apiVersion against T's
// list, before any of its items is handed over where the kind comes first
// (as servers write it). An empty kind or apiVersion is T's, as client-go's
// typed decoding defaults them. A list of another kind is an error, where
// client-go's typed decoding gives an empty list for one its scheme knows
// (which would make the reflector delete every cached object) and an error
// for one it does not.
//
// It checks only a ListWatch that knows T's group and version (from
// Options.Resource or Options.GroupVersionKind), as generated informers
// and crcache's do.
func (d *decoder[E, T]) checkListKind(kind, apiVersion string) error {
	if !d.gvKnown {
		return nil
	}
	if kind != "" && kind != d.gvk.Kind+"List" {
		return fmt.Errorf("the response is a %s (apiVersion %q), not a %sList", kind, apiVersion, d.gvk.Kind)
	}
	if apiVersion == "" {
		return nil
	}
	if gv, err := schema.ParseGroupVersion(apiVersion); err != nil || gv != d.gvk.GroupVersion() {
		return fmt.Errorf("the response's apiVersion is %q, not %q", apiVersion, d.gvk.GroupVersion().String())
	}
	return nil
}
