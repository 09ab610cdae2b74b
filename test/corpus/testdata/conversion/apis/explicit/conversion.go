package explicit

import (
	"k8s.io/apimachinery/pkg/conversion"
	"k8s.io/apimachinery/pkg/runtime"

	"example.com/conv/apis/core"
)

var localSchemeBuilder = runtime.NewSchemeBuilder()

// Flag is converted to and from core.Phase by hand.
type Flag struct{ On bool }

// Convert_explicit_Flag_To_core_Condition converts by hand.
func Convert_explicit_Flag_To_core_Condition(in *Flag, out *core.Condition, s conversion.Scope) error {
	out.Type = "Flag"
	return nil
}

// Convert_core_Condition_To_explicit_Flag converts by hand.
func Convert_core_Condition_To_explicit_Flag(in *core.Condition, out *Flag, s conversion.Scope) error {
	out.On = in.Type == "Flag"
	return nil
}
