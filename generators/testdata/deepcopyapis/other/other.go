// Package other holds the types the deepcopy testdata refers to in another
// package: a shallow-copyable struct, types with DeepCopy or DeepCopyInto
// written by hand, a named map and an interface.
package other

import "unique"

// Copier is implemented by types that copy themselves.
type Copier interface {
	DeepCopyCopier() Copier
}

// Plain is copied by assignment.
type Plain struct {
	A string
	B int
}

// WithPtrInto has DeepCopyInto and DeepCopy on its pointer, as a type
// deepcopy-gen generated for has.
type WithPtrInto struct {
	P *string
}

// DeepCopyInto copies in into out.
func (in *WithPtrInto) DeepCopyInto(out *WithPtrInto) {
	*out = *in
	if in.P != nil {
		p := *in.P
		out.P = &p
	}
}

// DeepCopy returns a copy of in.
func (in *WithPtrInto) DeepCopy() *WithPtrInto {
	if in == nil {
		return nil
	}
	out := new(WithPtrInto)
	in.DeepCopyInto(out)
	return out
}

// WithValueCopy has DeepCopy and DeepCopyInto on its value.
type WithValueCopy struct {
	S []string
}

// DeepCopy returns a copy of in.
func (in WithValueCopy) DeepCopy() WithValueCopy {
	out := in
	if in.S != nil {
		out.S = make([]string, len(in.S))
		copy(out.S, in.S)
	}
	return out
}

// DeepCopyInto copies in into out.
func (in WithValueCopy) DeepCopyInto(out *WithValueCopy) {
	*out = in.DeepCopy()
}

// Labels is a named map.
type Labels map[string]string

// Prefix copies itself by hand; it holds, through Addr, an instantiated
// generic type, as cilium's ip.Prefix holds net/netip's Prefix and Addr a
// unique.Handle.
type Prefix struct {
	Addr
}

// DeepCopyInto copies in into out.
func (in *Prefix) DeepCopyInto(out *Prefix) { *out = *in }

// Addr holds an instantiated generic type of another package.
type Addr struct {
	z unique.Handle[string]
}

// Spec has DeepCopyInto only in generated code (generated.go): a member
// of this type is copied by assignment if all its members can be, and
// Prefix cannot.
type Spec struct {
	Prefix Prefix
}

// Value is an alias of a predeclared type: a map of Values is made as a
// map of strings.
type Value = string
