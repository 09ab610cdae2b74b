package protodec

import (
	"fmt"
	"reflect"
	"unsafe"
)

// A map field is a repeated message of entries, each with the key as
// field 1 and the value as field 2. The generated code reads an entry
// without looking at wire types (field 1 is read as the key and field 2
// as the value whatever their wire type), reads the key's and the value's
// bytes up to the end of the enclosing message rather than of the entry,
// skips other fields, and stores the entry with a zero key or value when
// one is missing; a []byte value that is missing is empty, not nil.

// valueKind is how a map's values are read.
type valueKind uint8

const (
	valueString valueKind = iota
	valueBytes
	valueMessage
)

// mapScratch is a State's key and value of one map type: an entry is
// decoded into them and then copied into the map.
type mapScratch struct {
	key, val reflect.Value
	kp, vp   unsafe.Pointer // their addresses
	// m is the map field at p, as a reflect.Value: the entries of one
	// map come one after another.
	p unsafe.Pointer
	m reflect.Value
}

type mapPlan struct {
	name             string
	typ              reflect.Type
	keySlot, valSlot int
	kind             valueKind
	msg              msgFunc
	scratch          int    // the index of the State's mapScratch
	tag              []byte // the map field's tag, for run
}

func (b *builder) mapField(t reflect.Type, name string, num int) (fieldFunc, error) {
	if t.Key().Kind() != reflect.String {
		return nil, fmt.Errorf("a map with keys of type %v", t.Key())
	}
	mp := &mapPlan{name: name, typ: t, keySlot: b.newSlot(), tag: runTag(num)}
	switch e := t.Elem(); {
	case e.Kind() == reflect.String:
		mp.kind, mp.valSlot = valueString, b.newSlot()
	case e.Kind() == reflect.Slice && e.Elem().Kind() == reflect.Uint8:
		mp.kind = valueBytes
	default:
		m, err := b.msg(e)
		if err != nil {
			return nil, fmt.Errorf("map values: %w", err)
		}
		mp.kind, mp.msg = valueMessage, m
	}
	switch t {
	case reflect.TypeFor[map[string]string]():
		return mp.stringMap, nil
	case reflect.TypeFor[map[string][]byte]():
		return mp.bytesMap, nil
	}
	mp.scratch = b.maps
	b.maps++
	return mp.anyMap, nil
}

// entry reads one entry at b[s:e], calling key and val with the bounds
// of the key's and the value's bytes.
func (mp *mapPlan) entry(b []byte, s, e int, key, val func(s, e int) error) error {
	i := s
	for i < e {
		pre := i
		tag, ni, err := uvarint(b, i)
		if err != nil {
			return err
		}
		i = ni
		switch int32(tag >> 3) {
		case 1:
			ks, ke, err := length(b, i)
			if err != nil {
				return err
			}
			if err := key(ks, ke); err != nil {
				return err
			}
			i = ke
		case 2:
			vs, ve, err := length(b, i)
			if err != nil {
				return err
			}
			if err := val(vs, ve); err != nil {
				return err
			}
			i = ve
		default:
			if i, err = skipUnknown(b, pre, e); err != nil {
				return err
			}
		}
	}
	return nil
}

func (mp *mapPlan) start(b []byte, i, wt int) (int, int, error) {
	if wt != wireBytes {
		return 0, 0, wrongWireType(wt, mp.name)
	}
	return length(b, i)
}

func (mp *mapPlan) stringMap(st *State, b []byte, i, wt int, p unsafe.Pointer) (int, error) {
	s, e, err := mp.start(b, i, wt)
	if err != nil {
		return i, err
	}
	m := *(*map[string]string)(p)
	if m == nil {
		m = make(map[string]string, run(b, e, mp.tag))
		*(*map[string]string)(p) = m
	}
	var k, v string
	if err := mp.entry(b, s, e,
		func(s, e int) error { k = st.str(b[s:e], mp.keySlot); return nil },
		func(s, e int) error { v = st.str(b[s:e], mp.valSlot); return nil }); err != nil {
		return i, err
	}
	m[k] = v
	return e, nil
}

func (mp *mapPlan) bytesMap(st *State, b []byte, i, wt int, p unsafe.Pointer) (int, error) {
	s, e, err := mp.start(b, i, wt)
	if err != nil {
		return i, err
	}
	m := *(*map[string][]byte)(p)
	if m == nil {
		m = make(map[string][]byte, run(b, e, mp.tag))
		*(*map[string][]byte)(p) = m
	}
	var k string
	v := []byte{}
	if err := mp.entry(b, s, e,
		func(s, e int) error { k = st.str(b[s:e], mp.keySlot); return nil },
		func(s, e int) error { v = append(make([]byte, 0, e-s), b[s:e]...); return nil }); err != nil {
		return i, err
	}
	m[k] = v
	return e, nil
}

// anyMap decodes an entry of any other map into the State's scratch key
// and value and copies them into the map.
func (mp *mapPlan) anyMap(st *State, b []byte, i, wt int, p unsafe.Pointer) (int, error) {
	s, e, err := mp.start(b, i, wt)
	if err != nil {
		return i, err
	}
	sc := &st.scratch[mp.scratch]
	if !sc.key.IsValid() {
		k, v := reflect.New(mp.typ.Key()), reflect.New(mp.typ.Elem())
		sc.key, sc.val, sc.kp, sc.vp = k.Elem(), v.Elem(), k.UnsafePointer(), v.UnsafePointer()
	}
	if sc.p != p {
		sc.p, sc.m = p, reflect.NewAt(mp.typ, p).Elem()
	}
	mv := sc.m
	if mv.IsNil() {
		mv.Set(reflect.MakeMapWithSize(mp.typ, run(b, e, mp.tag)))
	}
	kp, vp := sc.kp, sc.vp
	*(*string)(kp) = ""
	mp.resetValue(sc.val)
	if err := mp.entry(b, s, e,
		func(s, e int) error { *(*string)(kp) = st.str(b[s:e], mp.keySlot); return nil },
		func(s, e int) error {
			switch mp.kind {
			case valueString:
				*(*string)(vp) = st.str(b[s:e], mp.valSlot)
			case valueBytes:
				*(*[]byte)(vp) = append(make([]byte, 0, e-s), b[s:e]...)
			default:
				mp.resetValue(sc.val)
				return mp.msg(st, b[s:e], vp)
			}
			return nil
		}); err != nil {
		return i, err
	}
	mv.SetMapIndex(sc.key, sc.val)
	return e, nil
}

// resetValue sets v to what the generated code starts an entry's value
// from: the zero value of a struct or string, an empty but not nil slice
// ([]byte, or a named slice decoded as a message).
func (mp *mapPlan) resetValue(v reflect.Value) {
	if v.Kind() == reflect.Slice {
		v.Set(reflect.MakeSlice(v.Type(), 0, 0))
		return
	}
	v.SetZero()
}
