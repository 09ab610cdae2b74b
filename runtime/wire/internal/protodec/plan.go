package protodec

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// unmarshaler is a type's own protobuf decoding.
type unmarshaler interface {
	Unmarshal(data []byte) error
}

// New returns a Decoder for values of type t, a struct type with
// protobuf struct tags and an Unmarshal method. It fails, saying why, when
// some field of t or of the types t holds is of a kind the plan does not
// lay out.
func New(t reflect.Type) (*Decoder, error) {
	if t.Kind() != reflect.Struct || !reflect.PointerTo(t).Implements(reflect.TypeFor[unmarshaler]()) {
		return nil, fmt.Errorf("protodec: %v is not a struct with an Unmarshal method", t)
	}
	if ownUnmarshal(t) {
		return nil, fmt.Errorf("protodec: %v decodes itself", t)
	}
	b := builder{msgs: map[reflect.Type]*message{}}
	m, err := b.message(t)
	if err != nil {
		return nil, err
	}
	return &Decoder{typ: t, root: m, slots: b.slots, maps: b.maps}, nil
}

type builder struct {
	msgs  map[reflect.Type]*message
	slots int
	maps  int
}

func (b *builder) newSlot() int {
	b.slots++
	return b.slots - 1
}

// maxField is the largest field number the plan lays out (k8s.io/api's
// are below a few hundred).
const maxField = 1 << 12

// message plans struct type t. The plan is memoised before its fields are
// planned, so a type that holds itself refers to its own plan.
func (b *builder) message(t reflect.Type) (*message, error) {
	if m, ok := b.msgs[t]; ok {
		return m, nil
	}
	m := &message{name: t.Name()}
	b.msgs[t] = m
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("protobuf")
		if tag == "" || tag == "-" {
			continue
		}
		parts := strings.Split(tag, ",")
		if len(parts) < 2 {
			return nil, fmt.Errorf("protodec: %v.%s: protobuf tag %q", t, f.Name, tag)
		}
		num, err := strconv.Atoi(parts[1])
		if err != nil || num <= 0 || num > maxField {
			return nil, fmt.Errorf("protodec: %v.%s: protobuf tag %q", t, f.Name, tag)
		}
		dec, err := b.field(f.Type, f.Name, num)
		if err != nil {
			return nil, fmt.Errorf("protodec: %v.%s: %w", t, f.Name, err)
		}
		if t == reflect.TypeFor[metav1.FieldsV1]() && f.Type.Kind() == reflect.Slice {
			dec = bytesField(f.Name, true)
		}
		if num >= len(m.fields) {
			m.fields = append(m.fields, make([]field, num+1-len(m.fields))...)
		}
		if m.fields[num].dec != nil {
			return nil, fmt.Errorf("protodec: %v: field number %d used twice", t, num)
		}
		m.fields[num] = field{off: f.Offset, dec: dec}
	}
	return m, nil
}

// ownUnmarshal reports whether t is a type whose Unmarshal is not the
// standard generated one that the plan reproduces: the hand-written ones
// of apimachinery, types other than structs (a named slice encoded as a
// message), and structs without protobuf-tagged fields or with unexported
// fields (which the plan cannot see).
func ownUnmarshal(t reflect.Type) bool {
	switch t {
	case reflect.TypeFor[resource.Quantity](), reflect.TypeFor[metav1.Time](), reflect.TypeFor[metav1.MicroTime]():
		return true
	}
	if t.Kind() != reflect.Struct {
		return true
	}
	tagged := false
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			return true
		}
		if tag := f.Tag.Get("protobuf"); tag == "-" {
			return true
		} else if tag != "" {
			tagged = true
		}
	}
	return !tagged && t.NumField() > 0
}

// msg returns how a message of type t is decoded: by its plan, or by its
// own Unmarshal method.
func (b *builder) msg(t reflect.Type) (msgFunc, error) {
	if !reflect.PointerTo(t).Implements(reflect.TypeFor[unmarshaler]()) {
		return nil, fmt.Errorf("%v has no Unmarshal method", t)
	}
	if ownUnmarshal(t) {
		return delegate(t), nil
	}
	m, err := b.message(t)
	if err != nil {
		return nil, err
	}
	return m.decode, nil
}

// delegate decodes a message with the type's own Unmarshal method.
func delegate(t reflect.Type) msgFunc {
	switch t {
	case reflect.TypeFor[resource.Quantity]():
		return quantity()
	case reflect.TypeFor[metav1.Time]():
		return func(_ *State, b []byte, p unsafe.Pointer) error { return (*metav1.Time)(p).Unmarshal(b) }
	case reflect.TypeFor[metav1.MicroTime]():
		return func(_ *State, b []byte, p unsafe.Pointer) error { return (*metav1.MicroTime)(p).Unmarshal(b) }
	}
	return func(_ *State, b []byte, p unsafe.Pointer) error {
		return reflect.NewAt(t, p).Interface().(unmarshaler).Unmarshal(b)
	}
}

// isVarint reports whether values of kind k are varints.
func isVarint(k reflect.Kind) bool {
	switch k {
	case reflect.Bool, reflect.Int32, reflect.Int64, reflect.Uint32, reflect.Uint64:
		return true
	}
	return false
}

// field returns the decode function of a field of type t named name.
func (b *builder) field(t reflect.Type, name string, num int) (fieldFunc, error) {
	if t.Kind() != reflect.Struct && reflect.PointerTo(t).Implements(reflect.TypeFor[unmarshaler]()) {
		if t.Kind() != reflect.Slice {
			return nil, fmt.Errorf("a field of type %v", t)
		}
		// A named slice decoded as a message (metav1.Verbs) is made
		// empty, not nil, before its Unmarshal appends to it.
		d := delegate(t)
		return msgField(name, func(st *State, b []byte, p unsafe.Pointer) error {
			if h := (*sliceHeader)(p); h.data == nil {
				reflect.NewAt(t, p).Elem().Set(reflect.MakeSlice(t, 0, 0))
			}
			return d(st, b, p)
		}), nil
	}
	switch k := t.Kind(); {
	case k == reflect.String:
		return stringField(name, b.newSlot()), nil
	case isVarint(k):
		return varintField(name, k), nil
	case k == reflect.Struct:
		m, err := b.msg(t)
		if err != nil {
			return nil, err
		}
		return msgField(name, m), nil
	case k == reflect.Pointer:
		e := t.Elem()
		switch ek := e.Kind(); {
		case ek == reflect.String:
			return ptrStringField(name, b.newSlot()), nil
		case isVarint(ek):
			return ptrVarintField(name, ek), nil
		case ek == reflect.Struct:
			m, err := b.msg(e)
			if err != nil {
				return nil, err
			}
			return ptrMsgField(name, e, m), nil
		}
	case k == reflect.Slice:
		e := t.Elem()
		switch ek := e.Kind(); {
		case ek == reflect.Uint8:
			return bytesField(name, false), nil
		case ek == reflect.String:
			return stringsField(name, b.newSlot(), runTag(num)), nil
		case isVarint(ek):
			return varintsField(name, ek), nil
		case ek == reflect.Struct:
			m, err := b.msg(e)
			if err != nil {
				return nil, err
			}
			return msgsField(name, t, m, runTag(num)), nil
		}
	case k == reflect.Map:
		return b.mapField(t, name, num)
	}
	return nil, fmt.Errorf("a field of type %v", t)
}

func stringField(name string, slot int) fieldFunc {
	return func(st *State, b []byte, i, wt int, p unsafe.Pointer) (int, error) {
		if wt != wireBytes {
			return i, wrongWireType(wt, name)
		}
		s, e, err := length(b, i)
		if err != nil {
			return i, err
		}
		*(*string)(p) = st.str(b[s:e], slot)
		return e, nil
	}
}

func ptrStringField(name string, slot int) fieldFunc {
	return func(st *State, b []byte, i, wt int, p unsafe.Pointer) (int, error) {
		if wt != wireBytes {
			return i, wrongWireType(wt, name)
		}
		s, e, err := length(b, i)
		if err != nil {
			return i, err
		}
		v := new(string)
		*v = st.str(b[s:e], slot)
		*(*unsafe.Pointer)(p) = unsafe.Pointer(v)
		return e, nil
	}
}

// setVarint stores v in the value of kind k at p as the generated code
// converts it: the low bits that fit, a bool true when any bit is set.
func setVarint(k reflect.Kind, p unsafe.Pointer, v uint64) {
	switch k {
	case reflect.Bool:
		*(*bool)(p) = v != 0
	case reflect.Int32, reflect.Uint32:
		*(*uint32)(p) = uint32(v)
	default:
		*(*uint64)(p) = v
	}
}

func newVarint(k reflect.Kind) unsafe.Pointer {
	switch k {
	case reflect.Bool:
		return unsafe.Pointer(new(bool))
	case reflect.Int32, reflect.Uint32:
		return unsafe.Pointer(new(uint32))
	}
	return unsafe.Pointer(new(uint64))
}

func varintField(name string, k reflect.Kind) fieldFunc {
	return func(_ *State, b []byte, i, wt int, p unsafe.Pointer) (int, error) {
		if wt != wireVarint {
			return i, wrongWireType(wt, name)
		}
		v, i, err := uvarint(b, i)
		if err != nil {
			return i, err
		}
		setVarint(k, p, v)
		return i, nil
	}
}

func ptrVarintField(name string, k reflect.Kind) fieldFunc {
	return func(_ *State, b []byte, i, wt int, p unsafe.Pointer) (int, error) {
		if wt != wireVarint {
			return i, wrongWireType(wt, name)
		}
		v, i, err := uvarint(b, i)
		if err != nil {
			return i, err
		}
		n := newVarint(k)
		setVarint(k, n, v)
		*(*unsafe.Pointer)(p) = n
		return i, nil
	}
}

func msgField(name string, m msgFunc) fieldFunc {
	return func(st *State, b []byte, i, wt int, p unsafe.Pointer) (int, error) {
		if wt != wireBytes {
			return i, wrongWireType(wt, name)
		}
		s, e, err := length(b, i)
		if err != nil {
			return i, err
		}
		return e, m(st, b[s:e], p)
	}
}

func ptrMsgField(name string, t reflect.Type, m msgFunc) fieldFunc {
	return func(st *State, b []byte, i, wt int, p unsafe.Pointer) (int, error) {
		if wt != wireBytes {
			return i, wrongWireType(wt, name)
		}
		s, e, err := length(b, i)
		if err != nil {
			return i, err
		}
		v := *(*unsafe.Pointer)(p)
		if v == nil {
			v = reflect.New(t).UnsafePointer()
			*(*unsafe.Pointer)(p) = v
		}
		return e, m(st, b[s:e], v)
	}
}

// bytesField decodes a []byte: replaced by a copy of the value's bytes,
// empty but not nil for an empty value. With doc (the document of a
// metav1.FieldsV1), the copy of a value an earlier one of the body equals
// is that one (see jsondec.Strings.Doc).
func bytesField(name string, doc bool) fieldFunc {
	return func(st *State, b []byte, i, wt int, p unsafe.Pointer) (int, error) {
		if wt != wireBytes {
			return i, wrongWireType(wt, name)
		}
		s, e, err := length(b, i)
		if err != nil {
			return i, err
		}
		v := (*[]byte)(p)
		if doc && s < e && st != nil {
			*v = st.strs.Doc(b[s:e])
			return e, nil
		}
		*v = append((*v)[:0], b[s:e]...)
		if *v == nil {
			*v = []byte{}
		}
		return e, nil
	}
}

func stringsField(name string, slot int, tag []byte) fieldFunc {
	return func(st *State, b []byte, i, wt int, p unsafe.Pointer) (int, error) {
		if wt != wireBytes {
			return i, wrongWireType(wt, name)
		}
		s, e, err := length(b, i)
		if err != nil {
			return i, err
		}
		sp := (*[]string)(p)
		if len(*sp) == cap(*sp) {
			*sp = slices.Grow(*sp, run(b, e, tag))
		}
		*sp = append(*sp, st.str(b[s:e], slot))
		return e, nil
	}
}

// varintsField decodes a repeated integer or bool, one value (wire type
// varint) or packed values (wire type bytes) at a time. As the generated
// code does, the packed values are read up to the end of the enclosing
// message, and decoding goes on where the last one ended.
func varintsField(name string, k reflect.Kind) fieldFunc {
	return func(_ *State, b []byte, i, wt int, p unsafe.Pointer) (int, error) {
		switch wt {
		case wireVarint:
			v, i, err := uvarint(b, i)
			if err != nil {
				return i, err
			}
			appendVarint(k, p, v, 0)
			return i, nil
		case wireBytes:
			s, e, err := length(b, i)
			if err != nil {
				return i, err
			}
			n := 0
			for _, c := range b[s:e] {
				if c < 0x80 {
					n++
				}
			}
			i = s
			for i < e {
				var v uint64
				if v, i, err = uvarint(b, i); err != nil {
					return i, err
				}
				appendVarint(k, p, v, n)
			}
			return i, nil
		}
		return i, wrongWireType(wt, name)
	}
}

// appendVarint appends v to the slice of kind k elements at p, making it
// with capacity n first when it is empty.
func appendVarint(k reflect.Kind, p unsafe.Pointer, v uint64, n int) {
	switch k {
	case reflect.Bool:
		s := (*[]bool)(p)
		if len(*s) == 0 && n > 0 {
			*s = make([]bool, 0, n)
		}
		*s = append(*s, v != 0)
	case reflect.Int32, reflect.Uint32:
		s := (*[]uint32)(p)
		if len(*s) == 0 && n > 0 {
			*s = make([]uint32, 0, n)
		}
		*s = append(*s, uint32(v))
	default:
		s := (*[]uint64)(p)
		if len(*s) == 0 && n > 0 {
			*s = make([]uint64, 0, n)
		}
		*s = append(*s, v)
	}
}

// sliceHeader is the layout of a slice.
type sliceHeader struct {
	data     unsafe.Pointer
	len, cap int
}

// msgsField decodes a repeated message into a slice of structs of type
// t: each occurrence appends a zero element and decodes into it. The
// slice grows by the run of occurrences that follow one another (as
// Marshal writes them), to their number at once. Elements past the
// length of a slice that only appends made are zero, so an appended
// element is not cleared again.
func msgsField(name string, t reflect.Type, m msgFunc, tag []byte) fieldFunc {
	size := t.Elem().Size()
	return func(st *State, b []byte, i, wt int, p unsafe.Pointer) (int, error) {
		if wt != wireBytes {
			return i, wrongWireType(wt, name)
		}
		s, e, err := length(b, i)
		if err != nil {
			return i, err
		}
		h := (*sliceHeader)(p)
		if h.len == h.cap {
			reflect.NewAt(t, p).Elem().Grow(run(b, e, tag))
		}
		v := unsafe.Add(h.data, uintptr(h.len)*size)
		h.len++
		return e, m(st, b[s:e], v)
	}
}

// runTag is the tag Marshal writes for the length-delimited field num.
func runTag(num int) []byte {
	return binary.AppendUvarint(nil, uint64(num)<<3|wireBytes)
}

// run counts the values of a repeated field that come one after another
// from the one ending at e, itself included: how many elements to make
// room for at once. It only sizes: a value it cannot read ends the run.
func run(b []byte, e int, tag []byte) int {
	n := 1
	for e < len(b) && bytes.HasPrefix(b[e:], tag) {
		_, ne, err := length(b, e+len(tag))
		if err != nil {
			break
		}
		n++
		e = ne
	}
	return n
}

// maxQuantities bounds the Quantities a State keeps.
const maxQuantities = 256

// quantity decodes a resource.Quantity with its Unmarshal method, which
// parses the quantity's string, and keeps what it gives in the State for
// the same bytes: the items of a list repeat the same few requests and
// limits. Only a Quantity that holds no pointer (no inf.Dec: what every
// quantity that fits an int64 with a scale parses to) is kept, so that a
// copy shares nothing mutable; and only for a message that is exactly one
// string field, which Unmarshal decodes into the same Quantity whatever
// the value held before. Where the Quantity's layout is not the one known
// here, every quantity is parsed.
func quantity() msgFunc {
	parse := func(_ *State, b []byte, p unsafe.Pointer) error { return (*resource.Quantity)(p).Unmarshal(b) }
	d, ok := reflect.TypeFor[resource.Quantity]().FieldByName("d")
	if !ok || d.Type.Kind() != reflect.Struct {
		return parse
	}
	dec, ok := d.Type.FieldByName("Dec")
	if !ok || dec.Type.Kind() != reflect.Pointer || len(d.Index) != 1 || len(dec.Index) != 1 {
		return parse
	}
	off := d.Offset + dec.Offset
	return func(st *State, b []byte, p unsafe.Pointer) error {
		q := (*resource.Quantity)(p)
		if len(b) < 2 || b[0] != 1<<3|wireBytes || b[1] >= 0x80 || int(b[1]) != len(b)-2 {
			return q.Unmarshal(b)
		}
		if v, ok := st.quantities[string(b)]; ok {
			*q = v
			return nil
		}
		if err := q.Unmarshal(b); err != nil {
			return err
		}
		if *(*unsafe.Pointer)(unsafe.Add(p, off)) == nil && len(st.quantities) < maxQuantities {
			if st.quantities == nil {
				st.quantities = make(map[string]resource.Quantity)
			}
			st.quantities[string(b)] = *q
		}
		return nil
	}
}
