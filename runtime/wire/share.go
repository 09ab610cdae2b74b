package wire

import (
	"reflect"
	"unsafe"

	"github.com/typedinformer/typedinformer/runtime/wire/internal/jsondec"
	"github.com/typedinformer/typedinformer/runtime/wire/internal/protodec"
)

// sharePlan replaces the strings of a freshly decoded object with equal
// strings of objects decoded before it from the same body, so that the
// items of a list hold what they repeat once. It is for decoders that
// allocate every string themselves: generated protobuf Unmarshal methods.
//
// Each string field of a struct is a slot that remembers the string last
// seen there; an equal string (the same namespace, image or condition type
// as the item before) takes the remembered one after one comparison. Other
// strings go through the body's jsondec.Strings table, except in a slot
// whose strings keep missing the table (names, UIDs, IPs): it stops asking
// for a while. The plan reaches exported fields of structs, pointers and
// slices, and the values of maps from strings to strings (a map's keys
// cannot be replaced in place, and other maps are left alone). It changes no value,
// and only strings: no two objects share anything mutable.
//
// A sharePlan is built once per type and is read-only; the state of one
// body is a shareState, used by one goroutine.
//
// When the type is one protodec lays out, items are not decoded by their
// Unmarshal method and then walked: the plan's protodec.Decoder decodes
// them, sharing strings as it reads them (see unmarshal).
type sharePlan struct {
	root  shareFunc // nil when the type holds no string the plan reaches
	slots int
	dec   *protodec.Decoder // decodes the type; nil when protodec does not cover it
}

type shareFunc func(p unsafe.Pointer, st *shareState)

// shareState is what one body's items share: the table of strings and
// each slot's last string.
type shareState struct {
	strs  *jsondec.Strings
	slots []shareSlot
	dec   *protodec.State // the state of the plan's Decoder
}

type shareSlot struct {
	last string
	// misses counts table lookups in a row that found nothing; from
	// slotMisses on the slot skips the table, and skipped counts how many
	// strings it let through since.
	misses, skipped uint8
}

// slotMisses is how many strings of a slot in a row may miss the table
// before the slot stops asking it; every 256 strings it asks again.
const slotMisses = 8

func newSharePlan(t reflect.Type) *sharePlan {
	b := sharePlanBuilder{memo: map[reflect.Type]*shareNode{}}
	root := b.node(t).share
	p := &sharePlan{root: root, slots: b.slots}
	if dec, err := protodec.New(t); err == nil {
		p.dec = dec
	}
	return p
}

// newState returns the state of one body, sharing through strs (nil for
// a nil plan, which shares nothing).
func (p *sharePlan) newState(strs *jsondec.Strings) *shareState {
	if p == nil {
		return nil
	}
	st := &shareState{strs: strs, slots: make([]shareSlot, p.slots)}
	if p.dec != nil {
		st.dec = p.dec.NewState(strs)
	}
	return st
}

// unmarshal decodes the protobuf message b into the new item m, which
// points to obj: with the plan's Decoder when there is one, else with m's
// Unmarshal method, its strings then shared.
func (p *sharePlan) unmarshal(m any, obj unsafe.Pointer, b []byte, st *shareState) error {
	if p != nil && p.dec != nil {
		return p.dec.Decode(b, obj, st.dec)
	}
	if err := m.(protoMessage).Unmarshal(b); err != nil {
		return err
	}
	p.share(obj, st)
	return nil
}

// share shares the strings of the value at obj.
func (p *sharePlan) share(obj unsafe.Pointer, st *shareState) {
	if p != nil && p.root != nil {
		p.root(obj, st)
	}
}

// str shares the string at sp through slot i.
func (st *shareState) str(sp *string, i int) {
	v := *sp
	if len(v) == 0 || len(v) > jsondec.MaxSharedLen {
		return
	}
	sl := &st.slots[i]
	if sl.last == v {
		*sp = sl.last
		return
	}
	if sl.misses >= slotMisses {
		sl.skipped++
		if sl.skipped != 0 {
			sl.last = v
			return
		}
	}
	h := st.strs.Share(v)
	if unsafe.StringData(h) == unsafe.StringData(v) {
		if sl.misses < slotMisses {
			sl.misses++
		}
	} else {
		sl.misses, sl.skipped = 0, 0
		*sp = h
	}
	sl.last = h
}

// shareNode is one type's part of the plan. Members are planned before
// the type that holds them, so a type that holds itself (through a
// pointer or slice) is not walked into again: its deeper strings stay
// unshared.
type shareNode struct {
	share shareFunc
}

type sharePlanBuilder struct {
	memo  map[reflect.Type]*shareNode
	slots int
}

func (b *sharePlanBuilder) node(t reflect.Type) *shareNode {
	if n, ok := b.memo[t]; ok {
		return n
	}
	n := &shareNode{}
	b.memo[t] = n
	switch t.Kind() {
	case reflect.String:
		// A string reached other than as a struct field (a slice's
		// element) has a slot of its own.
		i := b.newSlot()
		n.share = func(p unsafe.Pointer, st *shareState) { st.str((*string)(p), i) }
	case reflect.Pointer:
		elem := b.node(t.Elem()).share
		if elem == nil {
			break
		}
		n.share = func(p unsafe.Pointer, st *shareState) {
			if e := *(*unsafe.Pointer)(p); e != nil {
				elem(e, st)
			}
		}
	case reflect.Slice:
		et := t.Elem()
		if et.Kind() == reflect.Uint8 {
			break
		}
		elem := b.node(et).share
		if elem == nil {
			break
		}
		size := et.Size()
		n.share = func(p unsafe.Pointer, st *shareState) {
			h := (*struct {
				data     unsafe.Pointer
				len, cap int
			})(p)
			for i := range h.len {
				elem(unsafe.Add(h.data, uintptr(i)*size), st)
			}
		}
	case reflect.Map:
		if t.Key().Kind() != reflect.String || t.Elem().Kind() != reflect.String {
			break
		}
		i := b.newSlot()
		n.share = func(p unsafe.Pointer, st *shareState) {
			m := *(*map[string]string)(p)
			for k, v := range m {
				h := v
				st.str(&h, i)
				if unsafe.StringData(h) != unsafe.StringData(v) {
					m[k] = h
				}
			}
		}
	case reflect.Struct:
		n.share = b.structShare(t)
	}
	return n
}

func (b *sharePlanBuilder) newSlot() int {
	b.slots++
	return b.slots - 1
}

// structShare plans a struct: its string fields inline, each with a slot,
// and calls into the members that reach strings.
func (b *sharePlanBuilder) structShare(t reflect.Type) shareFunc {
	type member struct {
		offset uintptr
		slot   int       // a string field's slot
		share  shareFunc // nil for a string field
	}
	var members []member
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		if f.Type.Kind() == reflect.String {
			members = append(members, member{offset: f.Offset, slot: b.newSlot()})
			continue
		}
		if share := b.node(f.Type).share; share != nil {
			members = append(members, member{offset: f.Offset, share: share})
		}
	}
	if len(members) == 0 {
		return nil
	}
	return func(p unsafe.Pointer, st *shareState) {
		for _, m := range members {
			if m.share == nil {
				st.str((*string)(unsafe.Add(p, m.offset)), m.slot)
				continue
			}
			m.share(unsafe.Add(p, m.offset), st)
		}
	}
}
