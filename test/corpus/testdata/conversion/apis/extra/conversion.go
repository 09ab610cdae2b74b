// Package extra holds conversions found through --extra-peer-dirs.
package extra

import (
	"k8s.io/apimachinery/pkg/conversion"

	"example.com/conv/apis/core"
	v1 "example.com/conv/apis/core/v1"
)

// Convert_v1_Stamp_To_core_Stamp converts a stamp.
func Convert_v1_Stamp_To_core_Stamp(in *v1.Stamp, out *core.Stamp, s conversion.Scope) error {
	out.Value = "v1:" + in.Value
	return nil
}

// Convert_core_Stamp_To_v1_Stamp is a plain copy.
// +k8s:conversion-fn=copy-only
func Convert_core_Stamp_To_v1_Stamp(in *core.Stamp, out *v1.Stamp, s conversion.Scope) error {
	out.Value = in.Value
	return nil
}

// Convert_v1_Gadget_To_core_Gadget converts a gadget.
func Convert_v1_Gadget_To_core_Gadget(in *v1.Gadget, out *core.Gadget, s conversion.Scope) error {
	out.Size = in.Size
	out.Color = in.Colour
	return nil
}
