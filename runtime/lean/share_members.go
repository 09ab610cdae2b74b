package lean

import (
	"reflect"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// memberMaps makes equal maps of strings among an object's members (outside
// its metadata) shared, as shareMeta does for labels and annotations: a
// custom resource's spec.data, a ConfigMap's data. It remembers, per Go
// struct type, which fields can lead to such a map, so that each object is
// walked through those only, at the cost of one map lookup per struct. One
// memberMaps serves one transform; it is safe for concurrent use.
type memberMaps struct {
	in *Interner

	mu    sync.RWMutex
	holds map[reflect.Type]bool
	// fields are, per struct type (and whether it is the object itself),
	// the indices of the fields the walk enters.
	fields map[fieldsKey][]int
}

type fieldsKey struct {
	t   reflect.Type
	top bool
}

func newMemberMaps(in *Interner) *memberMaps {
	return &memberMaps{in: in, holds: map[reflect.Type]bool{}, fields: map[fieldsKey][]int{}}
}

// share shares the maps of strings reachable from obj (a pointer to a
// struct) through exported struct fields, pointers, slices and arrays. Maps
// whose values are not strings, and members inside maps or interfaces, are
// left as they are.
func (s *memberMaps) share(obj any) {
	v := reflect.ValueOf(obj)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return
	}
	s.walkStruct(v.Elem(), true)
}

// walkStruct walks the fields of the struct v that can lead to a map of
// strings. The object's own metadata (top) is shareMeta's; metadata further
// down (a Pod template's) is walked like any other member.
func (s *memberMaps) walkStruct(v reflect.Value, top bool) {
	for _, i := range s.walked(v.Type(), top) {
		s.walk(v.Field(i))
	}
}

func (s *memberMaps) walk(v reflect.Value) {
	switch v.Kind() {
	case reflect.Struct:
		s.walkStruct(v, false)
	case reflect.Pointer:
		if !v.IsNil() {
			s.walk(v.Elem())
		}
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			s.walk(v.Index(i))
		}
	case reflect.Map:
		if v.Len() == 0 || !v.CanSet() {
			return
		}
		m := v.Convert(reflect.TypeFor[map[string]string]()).Interface().(map[string]string)
		if shared := sharedMap(s.in, m); reflect.ValueOf(shared).UnsafePointer() != v.UnsafePointer() {
			v.Set(reflect.ValueOf(shared).Convert(v.Type()))
		}
	}
}

// walked returns the indices of the fields of the struct type t the walk
// enters: exported ones that can hold a map of strings, and, for the object
// itself (top), not its ObjectMeta.
func (s *memberMaps) walked(t reflect.Type, top bool) []int {
	k := fieldsKey{t, top}
	s.mu.RLock()
	idx, ok := s.fields[k]
	s.mu.RUnlock()
	if ok {
		return idx
	}
	idx = []int{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() || top && f.Type == reflect.TypeFor[metav1.ObjectMeta]() {
			continue
		}
		if s.canHold(f.Type) {
			idx = append(idx, i)
		}
	}
	s.mu.Lock()
	s.fields[k] = idx
	s.mu.Unlock()
	return idx
}

// canHold reports whether a value of type t can hold, through exported
// fields, pointers, slices and arrays, a map of strings the walk shares.
func (s *memberMaps) canHold(t reflect.Type) bool {
	s.mu.RLock()
	h, ok := s.holds[t]
	s.mu.RUnlock()
	if ok {
		return h
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.canHoldLocked(t, map[reflect.Type]bool{})
}

// canHoldLocked computes canHold. A type met again while it is being
// computed (a recursive type) counts as able to hold one, so that no answer
// depending on it is remembered too small; such a type is walked, which is
// only slower.
func (s *memberMaps) canHoldLocked(t reflect.Type, visiting map[reflect.Type]bool) bool {
	if h, ok := s.holds[t]; ok {
		return h
	}
	if visiting[t] {
		return true
	}
	visiting[t] = true
	h := false
	switch t.Kind() {
	case reflect.Map:
		h = t.ConvertibleTo(reflect.TypeFor[map[string]string]())
	case reflect.Pointer, reflect.Slice, reflect.Array:
		h = s.canHoldLocked(t.Elem(), visiting)
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if f.IsExported() && s.canHoldLocked(f.Type, visiting) {
				h = true
			}
		}
	}
	delete(visiting, t)
	s.holds[t] = h
	return h
}
