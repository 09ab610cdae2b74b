package crcache

import (
	"fmt"
	"maps"
	"reflect"
	"time"
	"unsafe"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime"
)

// A copyPlan deep-copies values of one Go type T with the semantics of T's
// generated DeepCopyInto, without calling it: built once per type with
// reflect, it knows at which offsets T holds pointers, slices, maps and
// values that need a hand-written copy, and what each points to.
//
// Each copy first counts what it will allocate (countPlan), then carves
// every pointer target and slice backing from one slab per element type
// (arena), made once per copy. Maps are copied per instance. The copy is
// equal (reflect.DeepEqual) to DeepCopyInto's and shares no pointer target,
// slice backing or map with the source; strings are shared, as
// DeepCopyInto shares them. Carved slices have their capacity equal to
// their length, so appending to one never writes into another's memory.
//
// Retention: the objects of one List (or the one object of a Get) share
// their slabs, so a caller that keeps one of them, or anything it points
// to, keeps the slabs of all of them alive, as keeping &Items[i] keeps
// the whole Items array alive.
//
// Values handed to hand-written copies, as their DeepCopyInto copies them:
// resource.Quantity (its DeepCopy), time.Time and so metav1.Time and
// MicroTime (assigned), interface members of static type runtime.Object
// (DeepCopyObject, as runtime.RawExtension's DeepCopyInto does), and any
// other struct with unexported fields through its DeepCopyInto method.
// A type with another interface, a channel, a function or an unsafe
// pointer has no plan.
type copyPlan struct {
	typ     reflect.Type
	fixups  []fixup // in field order; empty: T is copied by assignment
	planner *planner
}

// fixup is what a copy of the plan's type does at one offset after the
// value was assigned: replace what the assignment shared.
type fixup struct {
	off   uintptr
	kind  fixupKind
	elem  *copyPlan // fixPointer, fixSlice: the element's plan
	id    int       // fixPointer, fixSlice: the element type's slab
	typ   reflect.Type
	mapFn func(dst, src unsafe.Pointer) // fixMap
	// method is (*T).DeepCopyInto (fixDeepCopyInto).
	method reflect.Value
}

type fixupKind int

const (
	fixPointer fixupKind = iota
	fixSlice
	fixMap
	fixQuantity
	fixObject       // interface of static type runtime.Object
	fixDeepCopyInto // a struct with unexported fields and its own DeepCopyInto
)

// planner builds and holds the plans reachable from one root type, and the
// element types (slab ids) their pointers and slices carve.
type planner struct {
	plans map[reflect.Type]*copyPlan
	elems []reflect.Type // by slab id
	ids   map[reflect.Type]int
	root  *copyPlan
}

// newPlanner returns the planner of t (not a pointer type), or an error
// naming the type that has no plan.
func newPlanner(t reflect.Type) (*planner, error) {
	p := &planner{plans: map[reflect.Type]*copyPlan{}, ids: map[reflect.Type]int{}}
	root, err := p.plan(t)
	if err != nil {
		return nil, err
	}
	p.root = root
	return p, nil
}

func (p *planner) slabID(t reflect.Type) int {
	if id, ok := p.ids[t]; ok {
		return id
	}
	id := len(p.elems)
	p.elems = append(p.elems, t)
	p.ids[t] = id
	return id
}

var (
	quantityType = reflect.TypeFor[resource.Quantity]()
	timeType     = reflect.TypeFor[time.Time]()
	objectType   = reflect.TypeFor[runtime.Object]()
)

func (p *planner) plan(t reflect.Type) (*copyPlan, error) {
	if cp, ok := p.plans[t]; ok {
		return cp, nil // built, or being built (a recursive type)
	}
	cp := &copyPlan{typ: t, planner: p}
	p.plans[t] = cp
	fixups, err := p.fixupsOf(t, 0, nil)
	if err != nil {
		delete(p.plans, t)
		return nil, err
	}
	cp.fixups = fixups
	return cp, nil
}

// fixupsOf appends the fixups of a value of type t at offset off.
func (p *planner) fixupsOf(t reflect.Type, off uintptr, out []fixup) ([]fixup, error) {
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128, reflect.String:
		return out, nil
	case reflect.Pointer, reflect.Slice:
		elem, err := p.plan(t.Elem())
		if err != nil {
			return nil, err
		}
		k := fixPointer
		if t.Kind() == reflect.Slice {
			k = fixSlice
		}
		return append(out, fixup{off: off, kind: k, elem: elem, id: p.slabID(t.Elem()), typ: t}), nil
	case reflect.Map:
		fn, err := p.mapCopy(t)
		if err != nil {
			return nil, err
		}
		return append(out, fixup{off: off, kind: fixMap, typ: t, mapFn: fn}), nil
	case reflect.Interface:
		if t != objectType {
			return nil, fmt.Errorf("%s: no plan for interface members other than runtime.Object", t)
		}
		return append(out, fixup{off: off, kind: fixObject, typ: t}), nil
	case reflect.Array:
		elem, err := p.fixupsOf(t.Elem(), 0, nil)
		if err != nil {
			return nil, err
		}
		for i := 0; i < t.Len() && len(elem) > 0; i++ {
			for _, f := range elem {
				f.off += off + uintptr(i)*t.Elem().Size()
				out = append(out, f)
			}
		}
		return out, nil
	case reflect.Struct:
		switch t {
		case quantityType:
			return append(out, fixup{off: off, kind: fixQuantity, typ: t}), nil
		case timeType:
			return out, nil // DeepCopyInto of metav1.Time and MicroTime assigns it
		}
		for i := range t.NumField() {
			if !t.Field(i).IsExported() {
				return p.deepCopyIntoFixup(t, off, out)
			}
		}
		for i := range t.NumField() {
			f := t.Field(i)
			var err error
			if out, err = p.fixupsOf(f.Type, off+f.Offset, out); err != nil {
				return nil, fmt.Errorf("%s.%s: %w", t, f.Name, err)
			}
		}
		return out, nil
	default:
		return nil, fmt.Errorf("%s: no plan for %s", t, t.Kind())
	}
}

// deepCopyIntoFixup hands a struct with unexported fields to its own
// DeepCopyInto.
func (p *planner) deepCopyIntoFixup(t reflect.Type, off uintptr, out []fixup) ([]fixup, error) {
	m, ok := reflect.PointerTo(t).MethodByName("DeepCopyInto")
	if !ok || m.Type.NumIn() != 2 || m.Type.In(1) != reflect.PointerTo(t) {
		return nil, fmt.Errorf("%s has unexported fields and no DeepCopyInto", t)
	}
	return append(out, fixup{off: off, kind: fixDeepCopyInto, typ: t, method: m.Func}), nil
}

// mapCopy returns the per-instance copy of maps of type t: map[string]string
// (whatever its name) cloned, others rebuilt entry by entry, each value
// copied with its plan.
func (p *planner) mapCopy(t reflect.Type) (func(dst, src unsafe.Pointer), error) {
	switch {
	case t.Key() == reflect.TypeFor[string]() && t.Elem() == reflect.TypeFor[string]():
		return func(dst, src unsafe.Pointer) {
			*(*map[string]string)(dst) = maps.Clone(*(*map[string]string)(src))
		}, nil
	case t == reflect.TypeFor[corev1.ResourceList]():
		return func(dst, src unsafe.Pointer) {
			in := *(*corev1.ResourceList)(src)
			if in == nil {
				return
			}
			out := make(corev1.ResourceList, len(in))
			for k, q := range in {
				out[k] = q.DeepCopy()
			}
			*(*corev1.ResourceList)(dst) = out
		}, nil
	}
	if kf, err := p.fixupsOf(t.Key(), 0, nil); err != nil || len(kf) > 0 {
		return nil, fmt.Errorf("%s: no plan for map keys that hold pointers", t)
	}
	elem, err := p.plan(t.Elem())
	if err != nil {
		return nil, err
	}
	return func(dst, src unsafe.Pointer) {
		in := reflect.NewAt(t, src).Elem()
		if in.IsNil() {
			return
		}
		m := reflect.MakeMapWithSize(t, in.Len())
		v := reflect.New(t.Elem()).Elem()
		for it := in.MapRange(); it.Next(); {
			if len(elem.fixups) == 0 {
				m.SetMapIndex(it.Key(), it.Value())
				continue
			}
			v.Set(it.Value())
			cv := reflect.New(t.Elem())
			elem.copyAlone(cv.UnsafePointer(), v.Addr().UnsafePointer())
			m.SetMapIndex(it.Key(), cv.Elem())
		}
		reflect.NewAt(t, dst).Elem().Set(m)
	}, nil
}

// handsOver reports whether the plan only hands the whole value to its
// DeepCopyInto (a struct with unexported fields).
func (cp *copyPlan) handsOver() bool {
	return len(cp.fixups) == 1 && cp.fixups[0].kind == fixDeepCopyInto && cp.fixups[0].off == 0
}

// count adds to counts what a copy of the value at src carves from each
// slab.
func (cp *copyPlan) count(src unsafe.Pointer, counts []int) {
	for i := range cp.fixups {
		f := &cp.fixups[i]
		switch f.kind {
		case fixPointer:
			q := *(*unsafe.Pointer)(unsafe.Add(src, f.off))
			if q == nil {
				continue
			}
			counts[f.id]++
			if len(f.elem.fixups) > 0 {
				f.elem.count(q, counts)
			}
		case fixSlice:
			s := (*sliceHeader)(unsafe.Add(src, f.off))
			if s.data == nil || s.len == 0 {
				continue
			}
			counts[f.id] += s.len
			if len(f.elem.fixups) > 0 {
				size := f.elem.typ.Size()
				for j := range s.len {
					f.elem.count(unsafe.Add(s.data, uintptr(j)*size), counts)
				}
			}
		}
	}
}

// sliceHeader is the memory layout of a slice.
type sliceHeader struct {
	data     unsafe.Pointer
	len, cap int
}

// arena holds one copy's slabs, one per element type of the planner.
type arena struct {
	planner *planner
	slabs   []slab
}

type slab struct {
	base unsafe.Pointer
	used int
	n    int
}

// newArena makes the slabs counts asks for.
func (p *planner) newArena(counts []int) *arena {
	a := &arena{planner: p, slabs: make([]slab, len(p.elems))}
	for id, n := range counts {
		if n == 0 {
			continue
		}
		a.slabs[id] = slab{base: reflect.MakeSlice(reflect.SliceOf(p.elems[id]), n, n).UnsafePointer(), n: n}
	}
	return a
}

// carve returns room for n values of element type id, zeroed.
func (a *arena) carve(id, n int) unsafe.Pointer {
	s := &a.slabs[id]
	if s.n-s.used < n {
		// Not counted (cannot happen for an unchanged source): its own
		// allocation.
		return reflect.MakeSlice(reflect.SliceOf(a.planner.elems[id]), n, n).UnsafePointer()
	}
	p := unsafe.Add(s.base, uintptr(s.used)*a.planner.elems[id].Size())
	s.used += n
	return p
}

// copyAlone deep-copies the value at src into dst with slabs of its own.
func (cp *copyPlan) copyAlone(dst, src unsafe.Pointer) {
	counts := make([]int, len(cp.planner.elems))
	cp.count(src, counts)
	cp.copy(dst, src, cp.planner.newArena(counts))
}

// copy deep-copies the value at src into dst, carving from a.
func (cp *copyPlan) copy(dst, src unsafe.Pointer, a *arena) {
	reflect.NewAt(cp.typ, dst).Elem().Set(reflect.NewAt(cp.typ, src).Elem())
	cp.fix(dst, src, a)
}

// fix replaces, in dst (an assigned copy of src), what the assignment
// shared.
func (cp *copyPlan) fix(dst, src unsafe.Pointer, a *arena) {
	for i := range cp.fixups {
		f := &cp.fixups[i]
		d, s := unsafe.Add(dst, f.off), unsafe.Add(src, f.off)
		switch f.kind {
		case fixPointer:
			q := *(*unsafe.Pointer)(s)
			if q == nil {
				continue
			}
			n := a.carve(f.id, 1)
			f.elem.copy(n, q, a)
			*(*unsafe.Pointer)(d) = n
		case fixSlice:
			sh := (*sliceHeader)(s)
			if sh.data == nil {
				continue
			}
			if sh.len == 0 {
				// Not nil, as DeepCopyInto's make([]E, 0); no memory.
				*(*sliceHeader)(d) = sliceHeader{data: unsafe.Pointer(unsafe.SliceData(make([]byte, 0)))}
				continue
			}
			n := a.carve(f.id, sh.len)
			*(*sliceHeader)(d) = sliceHeader{data: n, len: sh.len, cap: sh.len}
			reflect.Copy(reflect.NewAt(f.typ, d).Elem(), reflect.NewAt(f.typ, s).Elem())
			if len(f.elem.fixups) > 0 {
				size := f.elem.typ.Size()
				for j := range sh.len {
					off := uintptr(j) * size
					f.elem.fix(unsafe.Add(n, off), unsafe.Add(sh.data, off), a)
				}
			}
		case fixMap:
			f.mapFn(d, s)
		case fixQuantity:
			*(*resource.Quantity)(d) = (*resource.Quantity)(s).DeepCopy()
		case fixObject:
			if o := *(*runtime.Object)(s); o != nil {
				*(*runtime.Object)(d) = o.DeepCopyObject()
			}
		case fixDeepCopyInto:
			f.method.Call([]reflect.Value{reflect.NewAt(f.typ, s), reflect.NewAt(f.typ, d)})
		}
	}
}
