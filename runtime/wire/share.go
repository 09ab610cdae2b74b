package wire

import (
	"reflect"
	"unsafe"

	"github.com/typedinformer/typedinformer/runtime/wire/internal/jsondec"
)

// sharer replaces the strings of a freshly decoded object with the equal
// strings of objects decoded before it (see jsondec.Strings), so that a
// list's objects hold what they repeat once. It is for decoders that
// allocate every string themselves, such as generated protobuf
// Unmarshal methods. It reaches exported fields of structs, pointers,
// slices and the values of map[string]string (a map's keys cannot be
// replaced in place, and other maps are left alone); it changes no value. A sharer is built once per
// type and is read-only.
type sharer struct {
	root *shareNode
}

// shareNode shares the strings of one type's values; share is nil for a
// type that holds no string it reaches. Members are planned before the
// type that holds them, so a type that holds itself (through a pointer
// or slice) is not walked into again: its deeper strings stay unshared.
type shareNode struct {
	share func(p unsafe.Pointer, strs *jsondec.Strings)
}

func newSharer(t reflect.Type) *sharer {
	memo := map[reflect.Type]*shareNode{}
	return &sharer{root: sharePlan(t, memo)}
}

// Share shares the strings of the value at p.
func (s *sharer) Share(p unsafe.Pointer, strs *jsondec.Strings) {
	if s != nil && s.root.share != nil {
		s.root.share(p, strs)
	}
}

func sharePlan(t reflect.Type, memo map[reflect.Type]*shareNode) *shareNode {
	if n, ok := memo[t]; ok {
		return n
	}
	n := &shareNode{}
	memo[t] = n
	switch t.Kind() {
	case reflect.String:
		n.share = func(p unsafe.Pointer, strs *jsondec.Strings) {
			sp := (*string)(p)
			*sp = strs.Share(*sp)
		}
	case reflect.Pointer:
		elem := sharePlan(t.Elem(), memo).share
		if elem == nil {
			break
		}
		n.share = func(p unsafe.Pointer, strs *jsondec.Strings) {
			if e := *(*unsafe.Pointer)(p); e != nil {
				elem(e, strs)
			}
		}
	case reflect.Slice:
		et := t.Elem()
		if et.Kind() == reflect.Uint8 {
			break
		}
		elem := sharePlan(et, memo).share
		if elem == nil {
			break
		}
		size := et.Size()
		n.share = func(p unsafe.Pointer, strs *jsondec.Strings) {
			h := (*struct {
				data     unsafe.Pointer
				len, cap int
			})(p)
			for i := range h.len {
				elem(unsafe.Add(h.data, uintptr(i)*size), strs)
			}
		}
	case reflect.Map:
		if t != reflect.TypeFor[map[string]string]() {
			break
		}
		n.share = func(p unsafe.Pointer, strs *jsondec.Strings) {
			m := *(*map[string]string)(p)
			for k, v := range m {
				if h := strs.Share(v); unsafe.StringData(h) != unsafe.StringData(v) {
					m[k] = h
				}
			}
		}
	case reflect.Struct:
		type member struct {
			offset uintptr
			share  func(p unsafe.Pointer, strs *jsondec.Strings)
		}
		var members []member
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			if share := sharePlan(f.Type, memo).share; share != nil {
				members = append(members, member{f.Offset, share})
			}
		}
		if len(members) == 0 {
			break
		}
		n.share = func(p unsafe.Pointer, strs *jsondec.Strings) {
			for _, m := range members {
				m.share(unsafe.Add(p, m.offset), strs)
			}
		}
	}
	return n
}
