// Package jsondec decodes JSON into Go values of one type, with the
// semantics of sigs.k8s.io/json's UnmarshalCaseSensitivePreserveInts (the
// decoder apimachinery uses for API objects) and without walking the type
// by reflection for every value.
//
// A Decoder is built once for a type: it lays out, with reflect, how each
// field is reached (its offset, through embedded structs) and which
// function reads it, and then decodes documents by writing into the
// value's memory directly while reading the bytes once. Types whose
// decoding it does not implement itself (types with an UnmarshalJSON or
// UnmarshalText method, fixed-size arrays, maps with non-string keys,
// fields with the ",string" option, non-empty interfaces, json.Number)
// are handed, with the exact bytes of their value, to sigs.k8s.io/json,
// which is what such a value would meet inside a larger document too.
//
// Equivalence with sigs.k8s.io/json: object keys match field names
// exactly (case-sensitive); fields of embedded structs without a name are
// promoted by Go's rules (the shallowest wins, then the tagged one, and
// names left ambiguous are dropped); unknown keys are ignored; null leaves
// a struct, string, number or bool unchanged and sets a pointer, map,
// slice or interface to nil; a key seen twice is decoded twice into the
// same field (the last value wins, merged into what the first one set as
// encoding/json does); strings into []byte are base64; numbers into
// interface{} are int64 when they have no fraction and fit, else float64;
// a value of the wrong kind for its field is an error naming the field's
// path. The result differs only when both decoders fail: this one stops
// at the first fault, so the value is then partly written and must be
// discarded (sigs.k8s.io/json goes on past type mismatches).
package jsondec

import (
	"encoding"
	"encoding/base64"
	gojson "encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"unsafe"

	kjson "sigs.k8s.io/json"
)

// Decoder decodes JSON documents into values of one type. It holds no
// mutable state and may be used by many goroutines at once.
type Decoder struct {
	typ       reflect.Type
	root      *node
	fallbacks []reflect.Type // the types left to sigs.k8s.io/json
}

// decodeFunc reads one value at the read position of s into the value of
// the node's type at p.
type decodeFunc func(s *state, p unsafe.Pointer) error

// node is how values of one type are decoded. dec is set once the type's
// plan is complete (a recursive type refers to its own node before that).
type node struct {
	typ reflect.Type
	dec decodeFunc
}

// New returns a Decoder for values of type t (Decode takes a *t).
func New(t reflect.Type) *Decoder {
	b := builder{
		nodes:               map[reflect.Type]*node{},
		unmarshalerType:     reflect.TypeFor[gojson.Unmarshaler](),
		textUnmarshalerType: reflect.TypeFor[encoding.TextUnmarshaler](),
		numberType:          reflect.TypeFor[gojson.Number](),
	}
	return &Decoder{typ: t, root: b.node(t), fallbacks: b.fallbacks}
}

// Decode decodes the single JSON document data into v, which must be a
// non-nil pointer to the Decoder's type. White space may surround the
// document; anything else after it is an error. v should be zero or hold
// only what this decoder or sigs.k8s.io/json wrote: like sigs.k8s.io/json,
// decoding merges into what v already holds.
func (d *Decoder) Decode(data []byte, v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() || rv.Type().Elem() != d.typ {
		return fmt.Errorf("jsondec: Decode into %T, want a non-nil *%v", v, d.typ)
	}
	s := state{data: data}
	s.ws()
	if err := d.root.dec(&s, rv.UnsafePointer()); err != nil {
		return err
	}
	if s.ws(); s.i < len(s.data) {
		return s.unexpected("after top-level value")
	}
	return nil
}

// DecodeValue decodes the value at the start of data (after white space)
// into v, a non-nil pointer to the Decoder's type, and returns how many
// bytes of data it took; what follows is left unread. Its strings are
// shared through strs with those of earlier values decoded with the same
// strs (nil shares none). When data ends inside the value, the error is
// a *SyntaxError with Truncated set, and v is partly written.
func (d *Decoder) DecodeValue(data []byte, v any, strs *Strings) (int, error) {
	return d.DecodeValueAt(data, v, strs, 0)
}

// DecodeValueAt is DecodeValue for a value nested depth levels deep in
// its document (an item of a list's items array is 2 deep): the nesting
// limit counts from the document's top, as a decoder reading the whole
// document counts it.
func (d *Decoder) DecodeValueAt(data []byte, v any, strs *Strings, depth int) (int, error) {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() || rv.Type().Elem() != d.typ {
		return 0, fmt.Errorf("jsondec: Decode into %T, want a non-nil *%v", v, d.typ)
	}
	s := state{data: data, strs: strs, depth: depth}
	s.ws()
	if err := d.root.dec(&s, rv.UnsafePointer()); err != nil {
		return 0, err
	}
	return s.i, nil
}

// Strings holds one copy of each short string decoded with it, up to a
// limit, so that the objects of one list share the strings they repeat
// (namespaces, labels, images, condition types...) instead of each
// holding its own. Strings are immutable, so sharing them changes no
// value. A Strings is used by one goroutine.
//
// It also holds managedFields documents (metav1.FieldsV1) the same way,
// see Doc.
type Strings struct {
	m     map[string]string
	boxes map[string]any // strings boxed in an interface, for unstructured values
	limit int
	// docs are the documents Doc holds, keyed by their own bytes (never
	// modified: decoded objects are read-only once handed over);
	// docBytes is their total length.
	docs     map[string][]byte
	docBytes int
}

// Bounds of the managedFields documents one Strings holds: each at most
// maxSharedDoc bytes, together at most maxDocBytes (the first ones met
// are kept: a list's objects repeat their templates' documents from the
// first objects on).
const (
	maxSharedDoc = 64 << 10
	maxDocBytes  = 1 << 20
)

// Doc returns a copy of the managedFields document b (the bytes a
// metav1.FieldsV1 holds), the one held if an equal one is, so that the
// objects of one body repeating a document (Pods of one template, with
// the same manager owning the same fields) hold it once, as the informer
// holds its objects' documents. A nil Strings returns a new copy.
func (t *Strings) Doc(b []byte) []byte {
	if t == nil {
		return append([]byte{}, b...)
	}
	if v, ok := t.docs[string(b)]; ok {
		return v
	}
	v := append([]byte{}, b...)
	if len(v) <= maxSharedDoc && t.docBytes+len(v) <= maxDocBytes {
		if t.docs == nil {
			t.docs = make(map[string][]byte)
		}
		t.docs[unsafe.String(unsafe.SliceData(v), len(v))] = v
		t.docBytes += len(v)
	}
	return v
}

// MaxSharedLen is the length up to which a string is looked up in
// Strings: longer strings rarely repeat whole.
const MaxSharedLen = 64

// NewStrings returns a Strings that keeps at most limit strings.
func NewStrings(limit int) *Strings {
	return &Strings{m: make(map[string]string), limit: limit}
}

// get returns b as a string, the copy held if there is one.
func (t *Strings) get(b []byte) string {
	if len(b) > MaxSharedLen {
		return string(b)
	}
	if v, ok := t.m[string(b)]; ok {
		return v
	}
	v := string(b)
	if len(t.m) < t.limit {
		t.m[v] = v
	}
	return v
}

// Lookup returns b as a string, the copy held if there is one, and
// whether one was held (holding the new string when there was none and
// the limit allows). Like Share, it leaves strings longer than
// MaxSharedLen alone: they come back new and not held.
func (t *Strings) Lookup(b []byte) (string, bool) {
	if len(b) > MaxSharedLen {
		return string(b), false
	}
	if v, ok := t.m[string(b)]; ok {
		return v, true
	}
	v := string(b)
	if len(t.m) < t.limit {
		t.m[v] = v
	}
	return v, false
}

// boxed returns b as a string in an interface, the box held if there is
// one: an interface holding a string is as immutable as the string.
func (t *Strings) boxed(b []byte) any {
	if len(b) > MaxSharedLen {
		return string(b)
	}
	if v, ok := t.boxes[string(b)]; ok {
		return v
	}
	var v any = t.get(b)
	if len(t.boxes) < t.limit {
		if t.boxes == nil {
			t.boxes = make(map[string]any)
		}
		t.boxes[v.(string)] = v
	}
	return v
}

// Share returns v, or the equal string held if there is one (holding v
// when there is none and the limit allows).
func (t *Strings) Share(v string) string {
	if len(v) > MaxSharedLen {
		return v
	}
	if h, ok := t.m[v]; ok {
		return h
	}
	if len(t.m) < t.limit {
		t.m[v] = v
	}
	return v
}

// TypeError is a JSON value of the wrong kind (or out of range) for the Go
// value it is decoded into. Path is the JSON field path from the
// document's root and Struct the innermost struct type's name, as
// sigs.k8s.io/json names them ("Container.spec.containers.image").
type TypeError struct {
	Value  string // "string", "number 1.5", "object", ...
	Type   reflect.Type
	Offset int
	Struct string   // the innermost struct type's name
	Path   []string // JSON field names from the root, outermost first
}

func (e *TypeError) Error() string {
	if len(e.Path) > 0 {
		return "json: cannot unmarshal " + e.Value + " into Go struct field " + e.Struct + "." + strings.Join(e.Path, ".") + " of type " + e.Type.String()
	}
	return "json: cannot unmarshal " + e.Value + " into Go value of type " + e.Type.String()
}

// FieldError wraps an error that sigs.k8s.io/json or an UnmarshalJSON
// method returned for a field, naming the field's path.
type FieldError struct {
	Struct string
	Path   []string
	Err    error
}

func (e *FieldError) Error() string {
	if e.Struct == "" {
		return "json: field " + strings.Join(e.Path, ".") + ": " + e.Err.Error()
	}
	return "json: field " + e.Struct + "." + strings.Join(e.Path, ".") + ": " + e.Err.Error()
}

func (e *FieldError) Unwrap() error { return e.Err }

// inField adds the field named name of struct type st to err's path.
func inField(err error, st reflect.Type, name string) error {
	switch e := err.(type) { //nolint:errorlint // the errors of this package, never wrapped here
	case *TypeError:
		e.Path = append([]string{name}, e.Path...)
		if e.Struct == "" {
			e.Struct = st.Name()
		}
		return e
	case *FieldError:
		e.Path = append([]string{name}, e.Path...)
		if e.Struct == "" {
			e.Struct = st.Name()
		}
		return e
	case *SyntaxError:
		return e
	}
	return &FieldError{Struct: st.Name(), Path: []string{name}, Err: err}
}

// mismatch is the TypeError for the value at the read position of s.
func (s *state) mismatch(t reflect.Type) error {
	e := &TypeError{Type: t, Offset: s.i}
	switch c := s.ws(); c {
	case '{':
		e.Value = "object"
	case '[':
		e.Value = "array"
	case '"':
		e.Value = "string"
	case 't', 'f':
		e.Value = "bool"
	default:
		b, err := s.skip()
		if err != nil {
			return err
		}
		e.Value = "number " + string(b)
		return e
	}
	if _, err := s.skip(); err != nil {
		return err
	}
	return e
}

// builder makes the nodes of one Decoder.
type builder struct {
	nodes map[reflect.Type]*node
	// fallbacks are the types left to sigs.k8s.io/json, for tests.
	fallbacks []reflect.Type
	// The interfaces and types encoding/json treats specially.
	unmarshalerType, textUnmarshalerType, numberType reflect.Type
}

func (b *builder) node(t reflect.Type) *node {
	if n, ok := b.nodes[t]; ok {
		return n
	}
	n := &node{typ: t}
	b.nodes[t] = n
	n.dec = b.plan(t)
	if n.dec == nil {
		b.fallbacks = append(b.fallbacks, t)
		n.dec = fallbackDec(t)
	}
	return n
}

// plan returns the decode function for t, or nil for a type left to
// sigs.k8s.io/json.
func (b *builder) plan(t reflect.Type) decodeFunc {
	// encoding/json looks for UnmarshalJSON and UnmarshalText on a named
	// value through its address, and on a pointer after allocating it.
	pt := reflect.PointerTo(t)
	if t.Kind() == reflect.Pointer {
		et := t.Elem()
		custom := t.Implements(b.unmarshalerType) || t.Implements(b.textUnmarshalerType)
		if et.Kind() == reflect.Pointer || custom && et.Name() == "" {
			return nil
		}
		return ptrDec(t, b.node(et))
	}
	if dec := k8sDec(t); dec != nil {
		return dec
	}
	if t.Name() != "" && pt.Implements(b.unmarshalerType) {
		return unmarshalerDec(t)
	}
	if t.Name() != "" && pt.Implements(b.textUnmarshalerType) || t == b.numberType {
		return nil
	}
	switch t.Kind() {
	case reflect.Bool:
		return boolDec(t)
	case reflect.String:
		return stringDec(t)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return intDec(t)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return uintDec(t)
	case reflect.Float32, reflect.Float64:
		return floatDec(t)
	case reflect.Interface:
		if t.NumMethod() == 0 {
			return ifaceDec(t)
		}
	case reflect.Slice:
		return b.sliceDec(t)
	case reflect.Map:
		if t.Key().Kind() == reflect.String && !reflect.PointerTo(t.Key()).Implements(b.textUnmarshalerType) {
			return b.mapDec(t)
		}
	case reflect.Struct:
		if dec := b.structDec(t); dec != nil {
			return dec
		}
	}
	return nil
}

// fallbackDec hands the value's exact bytes to sigs.k8s.io/json.
func fallbackDec(t reflect.Type) decodeFunc {
	return func(s *state, p unsafe.Pointer) error {
		b, err := s.skip()
		if err != nil {
			return err
		}
		return kjson.UnmarshalCaseSensitivePreserveInts(b, reflect.NewAt(t, p).Interface())
	}
}

// unmarshalerDec calls the UnmarshalJSON method of *t with the value's
// exact bytes, null included, as encoding/json does for a value that is
// not a pointer.
func unmarshalerDec(t reflect.Type) decodeFunc {
	return func(s *state, p unsafe.Pointer) error {
		b, err := s.skip()
		if err != nil {
			return err
		}
		return reflect.NewAt(t, p).Interface().(gojson.Unmarshaler).UnmarshalJSON(b)
	}
}

func boolDec(t reflect.Type) decodeFunc {
	return func(s *state, p unsafe.Pointer) error {
		switch s.cur() {
		case 't':
			*(*bool)(p) = true
			return s.literal("true")
		case 'f':
			*(*bool)(p) = false
			return s.literal("false")
		case 'n':
			return s.null()
		}
		return s.mismatch(t)
	}
}

func stringDec(t reflect.Type) decodeFunc {
	return func(s *state, p unsafe.Pointer) error {
		switch s.cur() {
		case '"':
			v, err := s.str()
			if err != nil {
				return err
			}
			*(*string)(p) = v
			return nil
		case 'n':
			return s.null()
		}
		return s.mismatch(t)
	}
}

// numberOf reads a number for a field of type t; ok is false after a
// null.
func (s *state) numberOf(t reflect.Type) (b []byte, ok bool, err error) {
	c := s.cur()
	if c == 'n' {
		return nil, false, s.null()
	}
	if c != '-' && (c < '0' || c > '9') {
		return nil, false, s.mismatch(t)
	}
	b, err = s.number()
	return b, err == nil, err
}

func intDec(t reflect.Type) decodeFunc {
	bits := t.Bits()
	return func(s *state, p unsafe.Pointer) error {
		start := s.i
		b, ok, err := s.numberOf(t)
		if !ok {
			return err
		}
		n, ok := parseInt(b)
		if !ok {
			var perr error
			if n, perr = strconv.ParseInt(string(b), 10, 64); perr != nil {
				return &TypeError{Value: "number " + string(b), Type: t, Offset: start}
			}
		}
		if bits < 64 && (n < -1<<(bits-1) || n >= 1<<(bits-1)) {
			return &TypeError{Value: "number " + string(b), Type: t, Offset: start}
		}
		switch bits {
		case 8:
			*(*int8)(p) = int8(n)
		case 16:
			*(*int16)(p) = int16(n)
		case 32:
			*(*int32)(p) = int32(n)
		default:
			*(*int64)(p) = n
		}
		return nil
	}
}

// parseInt parses a short integer without a fraction or exponent; ok is
// false for anything else, which strconv then judges.
func parseInt(b []byte) (int64, bool) {
	neg := false
	if len(b) > 0 && b[0] == '-' {
		neg, b = true, b[1:]
	}
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

func uintDec(t reflect.Type) decodeFunc {
	bits := t.Bits()
	return func(s *state, p unsafe.Pointer) error {
		start := s.i
		b, ok, err := s.numberOf(t)
		if !ok {
			return err
		}
		n, err := strconv.ParseUint(string(b), 10, 64)
		if err != nil || bits < 64 && n >= 1<<bits {
			return &TypeError{Value: "number " + string(b), Type: t, Offset: start}
		}
		switch bits {
		case 8:
			*(*uint8)(p) = uint8(n)
		case 16:
			*(*uint16)(p) = uint16(n)
		case 32:
			*(*uint32)(p) = uint32(n)
		default:
			*(*uint64)(p) = n
		}
		return nil
	}
}

func floatDec(t reflect.Type) decodeFunc {
	bits := t.Bits()
	return func(s *state, p unsafe.Pointer) error {
		start := s.i
		b, ok, err := s.numberOf(t)
		if !ok {
			return err
		}
		f, err := strconv.ParseFloat(string(b), bits)
		if err != nil {
			return &TypeError{Value: "number " + string(b), Type: t, Offset: start}
		}
		if bits == 32 {
			*(*float32)(p) = float32(f)
		} else {
			*(*float64)(p) = f
		}
		return nil
	}
}

// ifaceDec decodes into an empty interface: null sets it to nil; any other
// value replaces it with a fresh map[string]any, []any, string, bool,
// int64 or float64. An interface that already holds a non-nil pointer is
// decoded through, as encoding/json does; that is left to
// sigs.k8s.io/json.
func ifaceDec(t reflect.Type) decodeFunc {
	fallback := fallbackDec(t)
	return func(s *state, p unsafe.Pointer) error {
		ip := (*any)(p)
		if *ip != nil {
			if rv := reflect.ValueOf(*ip); rv.Kind() == reflect.Pointer && !rv.IsNil() {
				return fallback(s, p)
			}
		}
		if s.cur() == 'n' {
			*ip = nil
			return s.null()
		}
		v, err := s.anyValue()
		if err != nil {
			return err
		}
		*ip = v
		return nil
	}
}

// anyValue reads a value as encoding/json decodes it into an empty
// interface (with integers kept as int64).
func (s *state) anyValue() (any, error) {
	switch c := s.ws(); c {
	case '{':
		m := map[string]any{}
		more, err := s.open('}')
		for more && err == nil {
			var k string
			if k, err = s.keyString(); err != nil {
				break
			}
			var v any
			if v, err = s.anyValue(); err != nil {
				break
			}
			m[k] = v
			more, err = s.next('}')
		}
		if err != nil {
			return nil, err
		}
		return m, nil
	case '[':
		a := make([]any, 0)
		more, err := s.open(']')
		for more && err == nil {
			var v any
			if v, err = s.anyValue(); err != nil {
				break
			}
			a = append(a, v)
			more, err = s.next(']')
		}
		if err != nil {
			return nil, err
		}
		return a, nil
	case '"':
		return s.str()
	case 't':
		return true, s.literal("true")
	case 'f':
		return false, s.literal("false")
	case 'n':
		return nil, s.null()
	default:
		if c != '-' && (c < '0' || c > '9') {
			_, err := s.skip()
			return nil, err
		}
		start := s.i
		b, err := s.number()
		if err != nil {
			return nil, err
		}
		if n, ok := parseInt(b); ok {
			return n, nil
		}
		str := string(b)
		if !strings.Contains(str, ".") {
			if n, err := strconv.ParseInt(str, 10, 64); err == nil {
				return n, nil
			}
		}
		f, err := strconv.ParseFloat(str, 64)
		if err != nil {
			return nil, &TypeError{Value: "number " + str, Type: reflect.TypeFor[float64](), Offset: start}
		}
		return f, nil
	}
}

// ptrDec decodes into a pointer: null sets it to nil, anything else is
// decoded into what it points to, allocated first when it is nil.
func ptrDec(t reflect.Type, elem *node) decodeFunc {
	et := t.Elem()
	return func(s *state, p unsafe.Pointer) error {
		pp := (*unsafe.Pointer)(p)
		if s.cur() == 'n' {
			*pp = nil
			return s.null()
		}
		if *pp == nil {
			*pp = reflect.New(et).UnsafePointer()
		}
		return elem.dec(s, *pp)
	}
}

func (b *builder) sliceDec(t reflect.Type) decodeFunc {
	elem := b.node(t.Elem())
	isBytes := t.Elem().Kind() == reflect.Uint8
	return func(s *state, p unsafe.Pointer) error {
		switch s.cur() {
		case 'n':
			reflect.NewAt(t, p).Elem().SetZero()
			return s.null()
		case '"':
			if !isBytes {
				return s.mismatch(t)
			}
			start := s.i
			raw, err := s.strBytes()
			if err != nil {
				return err
			}
			out := make([]byte, base64.StdEncoding.DecodedLen(len(raw)))
			n, err := base64.StdEncoding.Decode(out, raw)
			if err != nil {
				s.i = start
				return fmt.Errorf("decoding base64 into %v at offset %d: %w", t, start, err)
			}
			reflect.NewAt(t, p).Elem().SetBytes(out[:n])
			return nil
		case '[':
		default:
			return s.mismatch(t)
		}
		v := reflect.NewAt(t, p).Elem()
		i := 0
		more, err := s.open(']')
		for more && err == nil {
			if i >= v.Cap() {
				v.Grow(1)
			}
			if i >= v.Len() {
				v.SetLen(i + 1)
			}
			if err = elem.dec(s, v.Index(i).Addr().UnsafePointer()); err != nil {
				break
			}
			i++
			more, err = s.next(']')
		}
		if err != nil {
			return err
		}
		if i < v.Len() {
			v.SetLen(i)
		}
		if i == 0 {
			v.Set(reflect.MakeSlice(t, 0, 0))
		}
		return nil
	}
}

func (b *builder) mapDec(t reflect.Type) decodeFunc {
	elem := b.node(t.Elem())
	kt, et := t.Key(), t.Elem()
	plain := t == reflect.TypeFor[map[string]string]()
	return func(s *state, p unsafe.Pointer) error {
		switch s.cur() {
		case 'n':
			reflect.NewAt(t, p).Elem().SetZero()
			return s.null()
		case '{':
		default:
			return s.mismatch(t)
		}
		if plain {
			return s.stringMap((*map[string]string)(p))
		}
		v := reflect.NewAt(t, p).Elem()
		if v.IsNil() {
			v.Set(reflect.MakeMap(t))
		}
		more, err := s.open('}')
		for more && err == nil {
			var k string
			if k, err = s.keyString(); err != nil {
				break
			}
			ev := reflect.New(et)
			if err = elem.dec(s, ev.UnsafePointer()); err != nil {
				return inKey(err, k)
			}
			kv := reflect.ValueOf(k)
			if kt != kv.Type() {
				kv = kv.Convert(kt)
			}
			v.SetMapIndex(kv, ev.Elem())
			more, err = s.next('}')
		}
		return err
	}
}

// inKey names the map key k in err's path.
func inKey(err error, k string) error {
	switch e := err.(type) { //nolint:errorlint // the errors of this package, never wrapped here
	case *TypeError:
		e.Path = append([]string{k}, e.Path...)
		return e
	case *FieldError:
		e.Path = append([]string{k}, e.Path...)
		return e
	case *SyntaxError:
		return e
	}
	return &FieldError{Path: []string{k}, Err: err}
}

// stringMap decodes an object (at the read position) into a
// map[string]string.
func (s *state) stringMap(m *map[string]string) error {
	if *m == nil {
		*m = map[string]string{}
	}
	more, err := s.open('}')
	for more && err == nil {
		var k string
		if k, err = s.keyString(); err != nil {
			break
		}
		switch s.cur() {
		case '"':
			var v string
			if v, err = s.str(); err != nil {
				return err
			}
			(*m)[k] = v
		case 'n':
			if err = s.null(); err != nil {
				return err
			}
			(*m)[k] = ""
		default:
			return inKey(s.mismatch(reflect.TypeFor[string]()), k)
		}
		more, err = s.next('}')
	}
	return err
}
