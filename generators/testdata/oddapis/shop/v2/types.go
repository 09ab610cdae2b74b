package v2

import (
	"k8s.io/apimachinery/pkg/runtime"

	v1 "github.com/typedinformer/typedinformer/generators/testdata/oddapis/shop/v1"
)

// +genclient

// Sprocket is defined as v1's Sprocket, itself a definition of v1.Real.
type Sprocket v1.Sprocket

// DeepCopyObject returns a copy of the Sprocket.
func (in *Sprocket) DeepCopyObject() runtime.Object {
	out := *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	return &out
}

// +genclient

// Cog is another name for v1.Gear. (An alias of the very type another
// version serves would share that version's informer: the factory keeps one
// informer per Go type, as client-go's does.)
type Cog = v1.Gear
