package jsondec

import (
	"reflect"
	"strconv"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// UnstructuredDecoder decodes JSON objects into the content of
// unstructured objects (k8s.io/apimachinery's unstructured.Unstructured),
// giving exactly what apimachinery's UnstructuredJSONScheme gives, which
// decodes with sigs.k8s.io/json's UnmarshalCaseSensitivePreserveInts into
// a map[string]interface{}:
//
//   - objects are map[string]interface{}, arrays []interface{} (empty, not
//     nil, for []), strings string, true and false bool, null nil;
//   - a number without a '.' that fits int64 is an int64 (so are -0 and
//     integers written with leading minus signs); any other number (a
//     fraction, an exponent as in 1e3, an integer beyond int64) is the
//     nearest float64, and a number beyond float64's range is an error;
//   - strings are unescaped as encoding/json does: \u escapes, surrogate
//     pairs joined, a lone surrogate and every byte of invalid UTF-8
//     replaced by U+FFFD, in keys as in values;
//   - keys are case-sensitive and a key given twice keeps its last value;
//   - objects and arrays nest at most 10000 deep, as in encoding/json.
//
// Decoding is one pass over the bytes, which are checked as they are read.
// Each map and slice is allocated once at its final size, and strings up
// to MaxSharedLen bytes (keys and values), boxed in an interface for
// values, are shared through the Decoder's Strings with those of the
// objects decoded before: strings are immutable, so no object can change
// another. Maps and slices are never shared.
//
// An UnstructuredDecoder is used by one goroutine; it keeps scratch memory
// between calls.
type UnstructuredDecoder struct {
	s     state
	pairs []pair // the members of the objects being read, innermost last
	elems []any  // the elements of the arrays being read, innermost last
}

type pair struct {
	k string
	v any
}

// NewUnstructuredDecoder returns a decoder sharing strings through strs
// (nil shares none).
func NewUnstructuredDecoder(strs *Strings) *UnstructuredDecoder {
	return &UnstructuredDecoder{s: state{strs: strs}}
}

// DecodeValue decodes the value at the start of data (after white space),
// an object or null, and returns its content (nil for null) and how many
// bytes of data it took; what follows is left unread. Any other value is a
// *TypeError, as sigs.k8s.io/json gives for it in a map. When data ends
// inside the value, the error is a *SyntaxError with Truncated set.
func (d *UnstructuredDecoder) DecodeValue(data []byte) (map[string]any, int, error) {
	s := &d.s
	s.data, s.i, s.depth = data, 0, 0
	defer func() { s.data = nil }()
	switch s.ws() {
	case '{':
		m, err := d.object()
		if err != nil {
			d.reset()
			return nil, 0, err
		}
		return m, s.i, nil
	case 'n':
		if err := s.null(); err != nil {
			return nil, 0, err
		}
		return nil, s.i, nil
	}
	return nil, 0, s.mismatch(reflect.TypeFor[map[string]any]())
}

// DecodeInterface decodes the value at the start of data (after white
// space), of any kind, as it is decoded into an interface{} inside an
// unstructured object, and returns it and how many bytes of data it took.
func (d *UnstructuredDecoder) DecodeInterface(data []byte) (any, int, error) {
	s := &d.s
	s.data, s.i, s.depth = data, 0, 0
	defer func() { s.data = nil }()
	v, err := d.value()
	if err != nil {
		d.reset()
		return nil, 0, err
	}
	return v, s.i, nil
}

// Decode decodes the single JSON document data as
// UnstructuredJSONScheme.Decode(data, nil, &unstructured.Unstructured{})
// does: the document must be an object (or null), with nothing but white
// space after it, and have a non-empty string "kind", else the error is
// apimachinery's missing-kind error (runtime.IsMissingKind).
func (d *UnstructuredDecoder) Decode(data []byte) (*unstructured.Unstructured, error) {
	m, n, err := d.DecodeValue(data)
	if err != nil {
		return nil, err
	}
	s := state{data: data, i: n}
	if s.ws(); s.i < len(data) {
		return nil, s.unexpected("after top-level value")
	}
	u := &unstructured.Unstructured{Object: m}
	if u.GetKind() == "" {
		return nil, runtime.NewMissingKindErr(string(data))
	}
	return u, nil
}

// reset drops what a failed decoding left on the scratch stacks.
func (d *UnstructuredDecoder) reset() {
	clear(d.pairs)
	d.pairs = d.pairs[:0]
	clear(d.elems)
	d.elems = d.elems[:0]
}

// object reads the object at the read position (which holds '{').
func (d *UnstructuredDecoder) object() (map[string]any, error) {
	s := &d.s
	base := len(d.pairs)
	more, err := s.open('}')
	for more && err == nil {
		var k string
		if k, err = s.keyString(); err != nil {
			return nil, err
		}
		var v any
		if v, err = d.value(); err != nil {
			return nil, err
		}
		d.pairs = append(d.pairs, pair{k, v})
		more, err = s.next('}')
	}
	if err != nil {
		return nil, err
	}
	members := d.pairs[base:]
	m := make(map[string]any, len(members))
	for _, p := range members {
		m[p.k] = p.v
	}
	clear(members)
	d.pairs = d.pairs[:base]
	return m, nil
}

// array reads the array at the read position (which holds '[').
func (d *UnstructuredDecoder) array() ([]any, error) {
	s := &d.s
	base := len(d.elems)
	more, err := s.open(']')
	for more && err == nil {
		var v any
		if v, err = d.value(); err != nil {
			return nil, err
		}
		d.elems = append(d.elems, v)
		more, err = s.next(']')
	}
	if err != nil {
		return nil, err
	}
	elems := d.elems[base:]
	a := make([]any, len(elems))
	copy(a, elems)
	clear(elems)
	d.elems = d.elems[:base]
	return a, nil
}

// value reads any value at the read position.
func (d *UnstructuredDecoder) value() (any, error) {
	s := &d.s
	switch c := s.ws(); c {
	case '{':
		m, err := d.object()
		if err != nil {
			return nil, err
		}
		return m, nil
	case '[':
		a, err := d.array()
		if err != nil {
			return nil, err
		}
		return a, nil
	case '"':
		return s.boxedStr()
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
		return s.anyNumber()
	}
}

// anyNumber reads a number as sigs.k8s.io/json's
// UnmarshalCaseSensitivePreserveInts decodes one into an interface{}: an
// int64 when it has no '.' and strconv.ParseInt takes it, else a float64.
func (s *state) anyNumber() (any, error) {
	start := s.i
	b, err := s.number()
	if err != nil {
		return nil, err
	}
	if n, ok := parseInt(b); ok {
		return n, nil
	}
	fraction := false
	for _, c := range b {
		if c == '.' {
			fraction = true
			break
		}
	}
	str := string(b)
	if !fraction {
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

// boxedStr reads a string and returns it in an interface, the one held
// by the state's Strings when it holds one.
func (s *state) boxedStr() (any, error) {
	b, escaped, err := s.rawString()
	if err != nil {
		return nil, err
	}
	if escaped {
		s.buf = unquote(s.buf[:0], b)
		b = s.buf
	}
	if s.strs != nil {
		return s.strs.boxed(b), nil
	}
	return string(b), nil
}
