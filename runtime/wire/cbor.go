package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"

	"github.com/fxamacker/cbor/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/typedinformer/typedinformer/runtime/wire/internal/cborscan"
)

// ContentTypeCBOR asks for CBOR (RFC 8949), as apimachinery's CBOR
// serializer encodes it: API servers serve it for custom resources when
// their CBORServingAndStorage feature gate is enabled (alpha in v1.37,
// off by default). The request also accepts JSON, which a server without
// CBOR answers.
const ContentTypeCBOR = "application/cbor"

// cborItems decodes objects from CBOR exactly as apimachinery's CBOR
// serializer does when it decodes into a typed object (not strict: map
// keys that name no field are ignored), including its last step, which
// rewrites the raw bytes of every metav1.FieldsV1 and runtime.RawExtension
// as JSON, since programs expect JSON there. It is built once per
// ListWatch and read-only afterwards.
type cborItems struct {
	dm cbor.DecMode
	// transcode rewrites the raw fields of an addressable value of the
	// item type; nil when the type holds none.
	transcode func(reflect.Value) error
}

func newCBORItems(t reflect.Type) (*cborItems, error) {
	dm, err := cborDecMode()
	if err != nil {
		return nil, err
	}
	tr := rawTranscoders{}
	return &cborItems{dm: dm, transcode: tr.of(t)}, nil
}

// cborDecMode returns the decoding options of apimachinery v0.37's CBOR
// serializer in its non-strict mode. What each option is for:
//   - duplicate map keys, NaN, infinities, big numbers, simple values other
//     than false, true and null, and invalid UTF-8 are rejected: they are
//     invalid CBOR or have no JSON counterpart;
//   - nesting, array and map sizes are bounded as the JSON decoder bounds
//     them;
//   - byte strings decode into strings (the encoder writes every string as
//     one) and, into []byte, are taken as base64 as in JSON; RFC 3339
//     strings decode into times, tagged or not;
//   - into interface{}, maps are map[string]interface{}, byte strings are
//     strings, tags yield their content and times their RFC 3339 text;
//   - map keys match struct fields case-sensitively, as text or byte
//     strings;
//   - integers become int64, failing on overflow;
//   - a type with UnmarshalJSON and no UnmarshalCBOR gets its value
//     transcoded to JSON; BinaryUnmarshaler is ignored and TextUnmarshaler
//     takes text strings.
func cborDecMode() (cbor.DecMode, error) {
	var reject []func(*cbor.SimpleValueRegistry) error
	for sv := 0; sv <= 255; sv++ {
		switch {
		case sv >= 20 && sv <= 22: // false, true, null
		case sv >= 24 && sv <= 31: // reserved: not well-formed anyway
		default:
			reject = append(reject, cbor.WithRejectedSimpleValue(cbor.SimpleValue(sv)))
		}
	}
	simple, err := cbor.NewSimpleValueRegistryFromDefaults(reject...)
	if err != nil {
		return nil, err
	}
	opts := cbor.DecOptions{
		DupMapKey:                cbor.DupMapKeyEnforcedAPF,
		TimeTag:                  cbor.DecTagOptional,
		MaxNestedLevels:          cborscan.MaxDepth,
		MaxArrayElements:         2147483647,
		MaxMapPairs:              2097152,
		IndefLength:              cbor.IndefLengthAllowed,
		TagsMd:                   cbor.TagsAllowed,
		IntDec:                   cbor.IntDecConvertSignedOrFail,
		MapKeyByteString:         cbor.MapKeyByteStringForbidden,
		DefaultMapType:           reflect.TypeFor[map[string]any](),
		UTF8:                     cbor.UTF8RejectInvalid,
		FieldNameMatching:        cbor.FieldNameMatchingCaseSensitive,
		DefaultByteStringType:    reflect.TypeFor[string](),
		ByteStringToString:       cbor.ByteStringToStringAllowedWithExpectedLaterEncoding,
		FieldNameByteString:      cbor.FieldNameByteStringAllowed,
		UnrecognizedTagToAny:     cbor.UnrecognizedTagContentToAny,
		TimeTagToAny:             cbor.TimeTagToRFC3339Nano,
		ByteStringToTime:         cbor.ByteStringToTimeAllowed,
		NaN:                      cbor.NaNDecodeForbidden,
		Inf:                      cbor.InfDecodeForbidden,
		ByteStringExpectedFormat: cbor.ByteStringExpectedBase64,
		BignumTag:                cbor.BignumTagForbidden,
		SimpleValues:             simple,
		BinaryUnmarshaler:        cbor.BinaryUnmarshalerNone,
		TextUnmarshaler:          cbor.TextUnmarshalerTextString,
	}
	plain, err := opts.DecMode()
	if err != nil {
		return nil, err
	}
	opts.JSONUnmarshalerTranscoder = cborToJSON{plain}
	return opts.DecMode()
}

// cborToJSON rewrites one CBOR item as JSON, for types that only
// unmarshal JSON: the item is decoded into interface{} and encoded with
// encoding/json.
type cborToJSON struct{ dm cbor.DecMode }

func (c cborToJSON) Transcode(dst io.Writer, src io.Reader) error {
	b, err := io.ReadAll(src)
	if err != nil {
		return err
	}
	var v any
	rest, err := c.dm.UnmarshalFirst(b, &v)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return errors.New("extraneous data")
	}
	j, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = dst.Write(j)
	return err
}

// decode decodes the item b into v, a pointer to the item type.
func (c *cborItems) decode(b []byte, v any) error {
	if err := c.dm.Unmarshal(stripSelfDescribed(b), v); err != nil {
		return err
	}
	if c.transcode != nil {
		return c.transcode(reflect.ValueOf(v).Elem())
	}
	return nil
}

// decodeMeta decodes b into v, a pointer to a type without raw fields
// (ListMeta, Status).
func (c *cborItems) decodeMeta(b []byte, v any) error {
	return c.dm.Unmarshal(stripSelfDescribed(b), v)
}

// stripSelfDescribed removes the tags 55799 before an item; they mean
// nothing but "this is CBOR".
func stripSelfDescribed(b []byte) []byte {
	for len(b) > len(cborscan.SelfDescribed) && string(b[:len(cborscan.SelfDescribed)]) == cborscan.SelfDescribed {
		b = b[len(cborscan.SelfDescribed):]
	}
	return b
}

// rawTranscoders builds, for a type, the function that rewrites the raw
// CBOR held by the metav1.FieldsV1 and runtime.RawExtension values inside
// it as JSON (nil when the type can hold none). Values held in interfaces
// need nothing: decoding into an interface{} yields only maps, slices,
// strings, numbers, booleans and nil.
type rawTranscoders map[reflect.Type]*rawTranscoder

type rawTranscoder struct {
	fn    func(reflect.Value) error
	built bool
}

func (m rawTranscoders) of(t reflect.Type) func(reflect.Value) error {
	if p, ok := m[t]; ok {
		if p.built {
			return p.fn
		}
		// t contains itself: its function is being built.
		return func(v reflect.Value) error {
			if p.fn == nil {
				return nil
			}
			return p.fn(v)
		}
	}
	p := &rawTranscoder{}
	m[t] = p
	p.fn = m.build(t)
	p.built = true
	return p.fn
}

func (m rawTranscoders) build(t reflect.Type) func(reflect.Value) error {
	switch t {
	case reflect.TypeFor[metav1.FieldsV1]():
		return transcodeFieldsV1
	case reflect.TypeFor[runtime.RawExtension]():
		return transcodeRawExtension
	}
	switch t.Kind() {
	case reflect.Pointer:
		elem := m.of(t.Elem())
		if elem == nil {
			return nil
		}
		return func(v reflect.Value) error {
			if v.IsNil() {
				return nil
			}
			return elem(v.Elem())
		}
	case reflect.Slice, reflect.Array:
		elem := m.of(t.Elem())
		if elem == nil {
			return nil
		}
		return func(v reflect.Value) error {
			for i := range v.Len() {
				if err := elem(v.Index(i)); err != nil {
					return err
				}
			}
			return nil
		}
	case reflect.Map:
		elem := m.of(t.Elem())
		if elem == nil {
			return nil
		}
		// Map values are not addressable: each is copied out, rewritten
		// and stored back.
		return func(v reflect.Value) error {
			it := v.MapRange()
			for it.Next() {
				e := reflect.New(t.Elem()).Elem()
				e.Set(it.Value())
				if err := elem(e); err != nil {
					return err
				}
				v.SetMapIndex(it.Key(), e)
			}
			return nil
		}
	case reflect.Struct:
		type field struct {
			index int
			fn    func(reflect.Value) error
		}
		var fields []field
		for i := range t.NumField() {
			if fn := m.of(t.Field(i).Type); fn != nil {
				fields = append(fields, field{i, fn})
			}
		}
		if len(fields) == 0 {
			return nil
		}
		return func(v reflect.Value) error {
			for _, f := range fields {
				if err := f.fn(v.Field(f.index)); err != nil {
					return err
				}
			}
			return nil
		}
	}
	return nil
}

func transcodeFieldsV1(v reflect.Value) error {
	f := v.Addr().Interface().(*metav1.FieldsV1)
	j, err := f.MarshalJSON()
	if err != nil {
		return fmt.Errorf("managedFields: %w", err)
	}
	if string(j) == "null" {
		return nil // nothing, or JSON null: as it would have been from JSON
	}
	*f = metav1.FieldsV1{}
	return f.UnmarshalJSON(j)
}

func transcodeRawExtension(v reflect.Value) error {
	re := v.Addr().Interface().(*runtime.RawExtension)
	if re.Raw == nil {
		return nil
	}
	j, err := re.MarshalJSON()
	if err != nil {
		return fmt.Errorf("embedded object: %w", err)
	}
	re.Raw = j
	return nil
}

// cborStream cuts a CBOR sequence read from r into heads and whole items.
// The bytes an item is returned in are valid until the next call. It is
// used by one goroutine.
type cborStream struct {
	r   io.Reader
	buf []byte
	off int   // buf[off:] is unread
	err error // why r ended; io.EOF at its end
	// limit bounds the length of one item read by item (0: maxMessage);
	// a longer one is errObjectTooLarge once its end was read, and is not
	// buffered whole.
	limit int
	// scanned counts the bytes examined to find where items end, for
	// tests (see jsonStream.scanned).
	scanned int64
}

func newCBORStream(r io.Reader, size, limit int) *cborStream {
	return &cborStream{r: r, buf: make([]byte, 0, size), limit: limit}
}

// more reads more bytes, keeping the unread ones; it returns false when r
// has ended, or when the unread bytes already fill maxMessage.
func (c *cborStream) more() bool {
	if c.err != nil {
		return false
	}
	if c.off > 0 {
		n := copy(c.buf, c.buf[c.off:])
		c.buf, c.off = c.buf[:n], 0
	}
	if len(c.buf) == cap(c.buf) {
		if len(c.buf) >= maxMessage {
			c.err = fmt.Errorf("an item larger than the limit of %d bytes", maxMessage)
			return false
		}
		size := min(2*cap(c.buf), maxMessage)
		if c.limit > 0 {
			size = min(size, max(cap(c.buf), c.limit+1))
		}
		if size == cap(c.buf) {
			c.err = errObjectTooLarge
			return false
		}
		nb := make([]byte, len(c.buf), size)
		copy(nb, c.buf)
		c.buf = nb
	}
	for {
		n, err := c.r.Read(c.buf[len(c.buf):cap(c.buf)])
		c.buf = c.buf[:len(c.buf)+n]
		if err != nil {
			c.err = err
			return n > 0
		}
		if n > 0 {
			return true
		}
	}
}

// readErr is the error for a stream that ended where more was needed.
func (c *cborStream) readErr() error {
	if c.err == nil || errors.Is(c.err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return c.err
}

// atEnd reports whether the stream ended cleanly with no unread bytes; it
// returns the reason the stream ended otherwise, if it did.
func (c *cborStream) atEnd() (bool, error) {
	for c.off == len(c.buf) {
		if !c.more() {
			if errors.Is(c.err, io.EOF) {
				return true, nil
			}
			return false, c.err
		}
	}
	return false, nil
}

// scan calls fn with the unread bytes until it no longer reports them cut
// off, reading more as needed.
func (c *cborStream) scan(fn func([]byte) (int, error)) ([]byte, error) {
	for {
		n, err := fn(c.buf[c.off:])
		if err == nil {
			b := c.buf[c.off : c.off+n]
			c.off += n
			return b, nil
		}
		var se *cborscan.SyntaxError
		if !errors.As(err, &se) || !se.Truncated {
			return nil, err
		}
		if !c.more() {
			return nil, c.readErr()
		}
	}
}

// head reads the next item's head.
func (c *cborStream) head() (cborscan.Head, error) {
	var h cborscan.Head
	_, err := c.scan(func(b []byte) (int, error) {
		var n int
		var err error
		h, n, err = cborscan.ReadHead(b)
		return n, err
	})
	return h, err
}

// item returns the bytes of the next whole item. Its end is found by a
// scan that resumes after each read where the previous one stopped. An
// item longer than limit is read to its end without being kept, and is
// errObjectTooLarge; if r ends first, it is r's end.
func (c *cborStream) item() ([]byte, error) {
	var sc cborscan.Scanner
	tooLarge := false
	for {
		b := c.buf[c.off:]
		from := sc.Scanned()
		n, err := sc.Scan(b)
		c.scanned += int64(sc.Scanned() - from)
		if err == nil {
			c.scanned += int64(n - sc.Scanned())
			v := b[:n]
			c.off += n
			if tooLarge || c.limit > 0 && n > c.limit {
				return nil, errObjectTooLarge
			}
			return v, nil
		}
		var se *cborscan.SyntaxError
		if !errors.As(err, &se) || !se.Truncated {
			return nil, err
		}
		if c.limit > 0 && len(b) > c.limit {
			tooLarge = true
			c.off += sc.Discard()
		}
		if !c.more() {
			return nil, c.readErr()
		}
	}
}

// skipSelfDescribed consumes tags 55799 before the next item.
func (c *cborStream) skipSelfDescribed() error {
	for {
		tagged := false
		if _, err := c.scan(func(b []byte) (int, error) {
			n := len(cborscan.SelfDescribed)
			if len(b) < n && string(b) == cborscan.SelfDescribed[:len(b)] {
				return 0, &cborscan.SyntaxError{Msg: "unexpected end of data", Truncated: true}
			}
			tagged = len(b) >= n && string(b[:n]) == cborscan.SelfDescribed
			return 0, nil
		}); err != nil {
			return err
		}
		if !tagged {
			return nil
		}
		c.off += len(cborscan.SelfDescribed)
	}
}

// cborString decodes the item b, which must be a text or byte string.
func (c *cborItems) cborString(b []byte) (string, error) {
	h, n, err := cborscan.ReadHead(b)
	if err != nil {
		return "", err
	}
	if (h.Major == cborscan.MajorText || h.Major == cborscan.MajorBytes) && !h.Indefinite && uint64(len(b)-n) == h.Arg {
		return string(b[n:]), nil
	}
	var s string
	if err := c.dm.Unmarshal(b, &s); err != nil {
		return "", err
	}
	return s, nil
}

// forEach calls fn for each element of the array or map whose head h was
// just read (each pair of a map counting as one call, fn reading the key
// and the value); a map or array of indefinite length ends at a break.
func (c *cborStream) forEach(h cborscan.Head, fn func(i int) error) error {
	if !h.Indefinite {
		for i := uint64(0); i < h.Arg; i++ {
			if err := fn(int(i)); err != nil {
				return err
			}
		}
		return nil
	}
	for i := 0; ; i++ {
		if _, err := c.scan(func(b []byte) (int, error) {
			if len(b) == 0 {
				return 0, &cborscan.SyntaxError{Msg: "unexpected end of data", Truncated: true}
			}
			return 0, nil
		}); err != nil {
			return err
		}
		if c.buf[c.off] == cborscan.Break {
			c.off++
			return nil
		}
		if err := fn(i); err != nil {
			return err
		}
	}
}

// cborList walks a CBOR list response: a map whose "items" array is
// decoded element by element into fresh Ts as the stream reaches them. As
// apimachinery's CBOR decoder reads a list: null, an empty map and a map
// without items or metadata are an empty list, keys are matched case
// sensitively, a duplicate key is an error (found when the second one is
// reached, after the items of a first items key were handed over), and a
// Status is the error client-go's REST client makes of it.
func (d *decoder[E, T]) cborList(yield func(T) error) (*metav1.ListMeta, error) {
	c := d.cborStream
	if err := c.skipSelfDescribed(); err != nil {
		return nil, err
	}
	h, err := c.head()
	if err != nil {
		return nil, err
	}
	if h.Major == cborscan.MajorSimple && h.Arg == 22 && !h.Indefinite {
		if err := c.end(); err != nil {
			return nil, err
		}
		return &metav1.ListMeta{}, nil // null
	}
	if h.Major != cborscan.MajorMap {
		return nil, fmt.Errorf("the CBOR response is not a map (major type %d)", h.Major)
	}
	lm := &metav1.ListMeta{}
	seen := map[string]struct{}{}
	var kind string
	// The pairs other than items, kept as an indefinite-length map in case
	// the body turns out to be a Status.
	pairs := []byte{0xbf}
	err = c.forEach(h, func(i int) error {
		kb, err := c.item()
		if err != nil {
			return err
		}
		key, err := d.cbor.cborString(kb)
		if err != nil {
			return fmt.Errorf("a map key: %w", err)
		}
		if _, dup := seen[key]; dup {
			return fmt.Errorf("cbor: found duplicate map key %q at map element index %d", key, i)
		}
		seen[key] = struct{}{}
		if key == "items" && kind != "Status" {
			return d.cborItemsArray(yield)
		}
		pairs = append(pairs, kb...)
		v, err := c.item()
		if err != nil {
			return fmt.Errorf("field %q: %w", key, err)
		}
		pairs = append(pairs, v...)
		switch key {
		case "kind":
			if kind, err = d.cbor.cborString(v); err != nil {
				return fmt.Errorf("kind: %w", err)
			}
		case "metadata":
			if err := d.cbor.decodeMeta(v, lm); err != nil {
				return fmt.Errorf("list metadata: %w", err)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := c.end(); err != nil {
		return nil, err
	}
	if kind == "Status" {
		st := &metav1.Status{}
		if err := d.cbor.decodeMeta(append(pairs, cborscan.Break), st); err != nil {
			return nil, fmt.Errorf("the response is a Status that cannot be decoded: %w", err)
		}
		return nil, statusError(st)
	}
	return lm, nil
}

// end checks that the stream ended cleanly after the list.
func (c *cborStream) end() error {
	end, err := c.atEnd()
	if err == nil && !end {
		err = fmt.Errorf("bytes after the list (0x%02x...)", c.buf[c.off])
	}
	return err
}

// cborItemsArray decodes the items array (or null).
func (d *decoder[E, T]) cborItemsArray(yield func(T) error) error {
	c := d.cborStream
	h, err := c.head()
	if err != nil {
		return fmt.Errorf("items: %w", err)
	}
	if h.Major == cborscan.MajorSimple && h.Arg == 22 && !h.Indefinite {
		return nil // null
	}
	if h.Major != cborscan.MajorArray {
		return fmt.Errorf("items: want an array, got major type %d", h.Major)
	}
	return c.forEach(h, func(int) error {
		b, err := c.item()
		if err != nil {
			return fmt.Errorf("item %d: %w", d.items, err)
		}
		t := d.newItem()
		if err := d.cbor.decode(b, t); err != nil {
			return fmt.Errorf("item %d: %w", d.items, err)
		}
		// As for JSON (and in client-go), an item keeps the kind and
		// apiVersion it carries.
		d.items++
		if err := yield(t); err != nil {
			return yieldError{err}
		}
		return nil
	})
}

// cborEvent decodes one event of a CBOR watch stream (a CBOR sequence of
// {"type": ..., "object": ...} maps).
func (d *decoder[E, T]) cborEvent() (watch.Event, error) {
	c := d.cborStream
	if end, err := c.atEnd(); end || err != nil {
		if end {
			err = io.EOF
		}
		return watch.Event{}, err
	}
	b, err := c.item()
	if err != nil {
		return watch.Event{}, fmt.Errorf("watch event: %w", err)
	}
	b = stripSelfDescribed(b)
	h, n, err := cborscan.ReadHead(b)
	if err != nil {
		return watch.Event{}, fmt.Errorf("watch event: %w", err)
	}
	if h.Major != cborscan.MajorMap {
		return watch.Event{}, fmt.Errorf("watch event: want a map, got major type %d", h.Major)
	}
	b = b[n:]
	var typ string
	var object []byte
	var keysBuf [4]string
	keys := keysBuf[:0]
	next := func() ([]byte, error) {
		n, err := cborscan.Skip(b)
		if err != nil {
			return nil, err
		}
		v := b[:n]
		b = b[n:]
		return v, nil
	}
	for i := uint64(0); h.Indefinite || i < h.Arg; i++ {
		if h.Indefinite && len(b) > 0 && b[0] == cborscan.Break {
			break
		}
		kb, err := next()
		if err != nil {
			return watch.Event{}, fmt.Errorf("watch event: %w", err)
		}
		key, err := d.cbor.cborString(kb)
		if err != nil {
			return watch.Event{}, fmt.Errorf("watch event key: %w", err)
		}
		// As apimachinery's CBOR decoder, which rejects duplicate keys.
		if slices.Contains(keys, key) {
			return watch.Event{}, fmt.Errorf("watch event: cbor: found duplicate map key %q", key)
		}
		keys = append(keys, key)
		v, err := next()
		if err != nil {
			return watch.Event{}, fmt.Errorf("watch event field %q: %w", key, err)
		}
		switch key {
		case "type":
			if typ, err = d.cbor.cborString(v); err != nil {
				return watch.Event{}, fmt.Errorf("watch event type: %w", err)
			}
		case "object":
			object = v
		}
	}
	et, err := eventType(typ)
	if err != nil {
		return watch.Event{}, err
	}
	if object == nil || bytes.Equal(stripSelfDescribed(object), []byte{0xf6}) {
		return watch.Event{}, fmt.Errorf("%s watch event without an object", typ)
	}
	var tm metav1.TypeMeta
	if err := d.cbor.decodeMeta(object, &tm); err != nil {
		return watch.Event{}, fmt.Errorf("%s event object: %w", et, err)
	}
	if err := d.checkKind(et, tm.APIVersion, tm.Kind, func() string { return fmt.Sprintf("%#v", tm) }); err != nil {
		return watch.Event{}, err
	}
	if et == watch.Error {
		st := &metav1.Status{}
		if err := d.cbor.decodeMeta(object, st); err != nil {
			return watch.Event{}, fmt.Errorf("ERROR event status: %w", err)
		}
		st.TypeMeta = metav1.TypeMeta{} // as client-go's decoder leaves it
		return watch.Event{Type: et, Object: st}, nil
	}
	t := d.newItem()
	if err := d.cbor.decode(object, t); err != nil {
		return watch.Event{}, fmt.Errorf("%s event object: %w", typ, err)
	}
	t.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{})
	return watch.Event{Type: et, Object: t}, nil
}

// sniffCBOR makes the body's encoding CBOR.
func (d *decoder[E, T]) sniffCBOR(watching bool) error {
	if d.cborOf == nil {
		return fmt.Errorf("the response is CBOR, which this reader of %s does not decode (Content-Type %q)", d.itemType, d.contentType)
	}
	c, err := d.cborOf()
	if err != nil {
		return fmt.Errorf("decoding CBOR into %s: %w", d.itemType, err)
	}
	size, limit := jsonListBuffer, 0
	if watching {
		size, limit = jsonWatchBuffer, maxEvent
	}
	d.cbor, d.cborStream, d.encoding = c, newCBORStream(d.br, size, limit), encCBOR
	return nil
}
