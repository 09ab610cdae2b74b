package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Real is the struct the other types of the package are made from; it has
// no client of its own.
type Real struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Size              int `json:"size"`
}

// DeepCopyObject returns a copy of the Real.
func (in *Real) DeepCopyObject() runtime.Object {
	out := *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	return &out
}

// +genclient

// Sprocket is a type definition of Real: a distinct type with its fields.
type Sprocket Real

// DeepCopyObject returns a copy of the Sprocket.
func (in *Sprocket) DeepCopyObject() runtime.Object {
	out := *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	return &out
}

// +genclient

// Cog is another name for Real.
type Cog = Real

// +genclient
// +genclient:nonNamespaced

// Ñandu's name starts with a letter outside ASCII that has a lower case.
type Ñandu struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
}

// DeepCopyObject returns a copy of the Ñandu.
func (in *Ñandu) DeepCopyObject() runtime.Object {
	out := *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	return &out
}

// +genclient
// +genclient:noVerbs

// Unlisted has a client without verbs: no informer, no lister.
type Unlisted struct {
	metav1.TypeMeta `json:",inline"`
}

// Gear has no client in this version; v2's Cog is another name for it.
type Gear struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
}

// DeepCopyObject returns a copy of the Gear.
func (in *Gear) DeepCopyObject() runtime.Object {
	out := *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	return &out
}

// Common is embedded by Wheel, which gets ObjectMeta through it.
type Common struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
}

// +genclient

// Wheel embeds ObjectMeta through Common.
type Wheel struct {
	Common `json:",inline"`
}

// DeepCopyObject returns a copy of the Wheel.
func (in *Wheel) DeepCopyObject() runtime.Object {
	out := *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	return &out
}

// Base is a generic object; Gizmo is one of its instances. Reading syntax
// cannot tell that Gizmo embeds ObjectMeta: informer-gen type-checks this
// package to find out.
type Base[T any] struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              T `json:"spec"`
}

// DeepCopyObject returns a copy of the Base.
func (in *Base[T]) DeepCopyObject() runtime.Object {
	out := *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	return &out
}

// GizmoSpec is what a Gizmo holds.
type GizmoSpec struct {
	Teeth int `json:"teeth"`
}

// +genclient

// Gizmo is an instance of the generic Base.
type Gizmo = Base[GizmoSpec]
