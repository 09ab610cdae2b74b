package v1

import (
	"k8s.io/apimachinery/pkg/conversion"

	"example.com/conv/apis/core"
)

// Convert_core_Gadget_To_v1_Gadget is written by hand: Color and Colour
// are one member under two names.
func Convert_core_Gadget_To_v1_Gadget(in *core.Gadget, out *Gadget, s conversion.Scope) error {
	if err := autoConvert_core_Gadget_To_v1_Gadget(in, out, s); err != nil {
		return err
	}
	out.Colour = in.Color
	return nil
}
