// Package protodec decodes Kubernetes' protobuf messages into the Go types
// of k8s.io/api, giving the values their generated Unmarshal methods give,
// without walking the type by reflection for every value and sharing the
// strings it decodes through a jsondec.Strings table as it goes.
//
// A Decoder is built once for a type. It reads the type's fields and their
// `protobuf:"..."` struct tags (which the generated code was made from)
// and lays out, for each field number, the field's offset and a function
// that reads the field's wire value into it. Decoding then writes fields
// straight into the value's memory.
//
// What it gives is what the generated code gives, fault for fault:
// fields are decoded in the order they come (a field seen twice is decoded
// twice: scalars and strings are overwritten, messages merged, repeated
// fields appended to), unknown fields are skipped the way the generated
// code skips them (groups included), a known field with the wrong wire
// type is an error, repeated integers are read packed or not, a []byte
// that was present is never nil, maps are read entry by entry with an
// entry's missing key or value left zero, and truncated, overflowing or
// negative lengths fail as they do there, with the same error texts. The
// generated code's quirks are kept too: the values of a map entry and of a
// packed field are read up to the end of the enclosing message rather
// than of the entry, and a field number is the low 32 bits of the tag's.
//
// Types whose Unmarshal is written by hand rather than generated
// (resource.Quantity, metav1.Time, metav1.MicroTime) and types that are
// not structs but have an Unmarshal method (ExtraValue, a []string encoded
// as a message) are decoded by their own Unmarshal method, on the bytes of
// their message. Types the plan cannot lay out (a field of a kind the
// generated code of k8s.io/api never has) make New fail: the caller then
// uses the type's own Unmarshal.
package protodec

import (
	"fmt"
	"io"
	"reflect"
	"unsafe"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/typedinformer/typedinformer/runtime/wire/internal/jsondec"
)

// Decoder decodes protobuf messages into values of one type. It holds no
// mutable state and may be used by many goroutines at once; each
// goroutine decodes with a State of its own.
type Decoder struct {
	typ   reflect.Type
	root  *message
	slots int // string slots of a State
	maps  int // map scratch values of a State
}

// State is what the values decoded one after another (the items of one
// response) share: the table of strings, each string field's last
// strings, scratch values for map entries, and the quantities parsed
// already. A State is used by one goroutine.
type State struct {
	strs       *jsondec.Strings
	slots      []slot
	scratch    []mapScratch
	quantities map[string]resource.Quantity // by message bytes; see quantity
}

// slot remembers the last two strings decoded into one field of a type;
// an equal string (the same namespace, image or condition type as the
// item before, or as the element before the one before: fields of list
// elements often alternate between two values) is that one, without
// asking the table.
type slot struct {
	last, prev string
	// misses counts table lookups in a row that found nothing; from
	// slotMisses on the slot skips the table, and skipped counts how many
	// strings it let through since.
	misses, skipped uint8
}

// slotMisses is how many strings of a slot in a row may miss the table
// before the slot stops asking it; every 256 strings it asks again.
const slotMisses = 8

// NewState returns a State sharing strings through strs (nil shares
// none).
func (d *Decoder) NewState(strs *jsondec.Strings) *State {
	return &State{strs: strs, slots: make([]slot, d.slots), scratch: make([]mapScratch, d.maps)}
}

// Type returns the type the Decoder decodes.
func (d *Decoder) Type() reflect.Type { return d.typ }

// Decode decodes the message b into the value of the Decoder's type at p,
// merging into what it holds as the generated Unmarshal does. The value
// must be zero or hold only what decoding (this or the generated
// Unmarshal) wrote: the elements of its slices past their length are
// taken to be zero, as appending leaves them. Decode keeps no reference
// to b. On error the value is partly written.
func (d *Decoder) Decode(b []byte, p unsafe.Pointer, st *State) error {
	return d.root.decode(st, b, p)
}

// Unmarshal is Decode for v, a non-nil pointer to the Decoder's type.
func (d *Decoder) Unmarshal(b []byte, v any, st *State) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() || rv.Type().Elem() != d.typ {
		return fmt.Errorf("protodec: Unmarshal into %T, want a non-nil *%v", v, d.typ)
	}
	return d.Decode(b, rv.UnsafePointer(), st)
}

// str returns b as a string, shared through the table and the slot.
func (st *State) str(b []byte, i int) string {
	if len(b) == 0 {
		return ""
	}
	if len(b) > jsondec.MaxSharedLen || st.strs == nil {
		return string(b)
	}
	sl := &st.slots[i]
	if sl.last == string(b) {
		return sl.last
	}
	if sl.prev == string(b) {
		// A string the slot shares: as a hit in the table, it resets
		// the count of misses.
		sl.last, sl.prev = sl.prev, sl.last
		sl.misses, sl.skipped = 0, 0
		return sl.last
	}
	sl.prev = sl.last
	if sl.misses >= slotMisses {
		sl.skipped++
		if sl.skipped != 0 {
			sl.last = string(b)
			return sl.last
		}
	}
	v, held := st.strs.Lookup(b)
	if held {
		sl.misses, sl.skipped = 0, 0
	} else if sl.misses < slotMisses {
		sl.misses++
	}
	sl.last = v
	return v
}

// message is the plan of one struct type: by field number, the field's
// offset and decode function.
type message struct {
	name   string  // the Go type's name, as the generated code's errors say it
	fields []field // indexed by field number; dec is nil for numbers not used
}

type field struct {
	off uintptr
	dec fieldFunc
}

// fieldFunc decodes a field of wire type wt whose value starts at b[i:]
// (after the tag) into the field at p, and returns where the value ends.
// b is the whole enclosing message.
type fieldFunc func(st *State, b []byte, i, wt int, p unsafe.Pointer) (int, error)

// msgFunc decodes the message b into the value at p.
type msgFunc func(st *State, b []byte, p unsafe.Pointer) error

func (m *message) decode(st *State, b []byte, p unsafe.Pointer) error {
	i, l := 0, len(b)
	for i < l {
		pre := i
		var tag uint64
		if c := b[i]; c < 0x80 {
			tag = uint64(c)
			i++
		} else {
			var err error
			if tag, i, err = uvarint(b, i); err != nil {
				return err
			}
		}
		num, wt := int32(tag>>3), int(tag&7)
		if wt == wireEndGroup {
			return fmt.Errorf("proto: %s: wiretype end group for non-group", m.name)
		}
		if num <= 0 {
			return fmt.Errorf("proto: %s: illegal tag %d (wire type %d)", m.name, num, tag)
		}
		if int(num) >= len(m.fields) || m.fields[num].dec == nil {
			var err error
			if i, err = skipUnknown(b, pre, l); err != nil {
				return err
			}
			continue
		}
		f := &m.fields[num]
		var err error
		if i, err = f.dec(st, b, i, wt, unsafe.Add(p, f.off)); err != nil {
			return err
		}
	}
	if i > l {
		return io.ErrUnexpectedEOF
	}
	return nil
}
