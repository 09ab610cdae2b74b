package crcache

import (
	"reflect"

	"k8s.io/apimachinery/pkg/runtime"
)

// copier copies cached objects of one Go type, a pointer type *T, straight
// into a *T the caller owns, with T's DeepCopyInto semantics: the target is
// overwritten whole and shares no memory with the source but strings.
type copier struct {
	typ reflect.Type // *T
	// deepCopyInto is the method expression (*T).DeepCopyInto.
	deepCopyInto reflect.Value
}

// newCopier returns the copier of t, or nil when t is no pointer type with
// a DeepCopyInto(*T) method (its objects are then copied with
// DeepCopyObject and assigned).
func newCopier(t reflect.Type) *copier {
	if t == nil || t.Kind() != reflect.Pointer {
		return nil
	}
	m, ok := t.MethodByName("DeepCopyInto")
	if !ok {
		return nil
	}
	ft := m.Func.Type() // func(receiver *T, out *T)
	if ft.NumIn() != 2 || ft.In(1) != t || ft.NumOut() != 0 {
		return nil
	}
	return &copier{typ: t, deepCopyInto: m.Func}
}

// copies reports whether c copies obj's type.
func (c *copier) copies(obj runtime.Object) bool {
	return c != nil && reflect.TypeOf(obj) == c.typ
}

// copyInto deep-copies src into dst, both of type c.typ and not nil.
func (c *copier) copyInto(dst, src reflect.Value) {
	c.deepCopyInto.Call([]reflect.Value{src, dst})
}

// copyAll deep-copies srcs[i] into the element i of dst, a []T of their
// length.
func (c *copier) copyAll(dst reflect.Value, srcs []runtime.Object) {
	for i, src := range srcs {
		c.copyInto(dst.Index(i).Addr(), reflect.ValueOf(src))
	}
}
