package ext

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"example.com/defaulterapis/core"
)

// DefaultPort is the port a Gadget listens on by default.
const DefaultPort = 8080

// Mode is a string type with a default of its own.
// +default="fast"
type Mode string

// ModePtr points to a Mode.
type ModePtr *Mode

// Gadget is a top-level object.
type Gadget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec GadgetSpec `json:"spec"`
}

// GadgetSpec has every member shape.
type GadgetSpec struct {
	// +default=3
	Replicas int32 `json:"replicas"`
	// +default=0
	Zero int32 `json:"zero"`
	// +default="blue"
	Color string `json:"color"`
	// +default="x"
	Name *string `json:"name,omitempty"`
	// +default=ref(DefaultPort)
	Port int `json:"port"`
	// +default=ref(DefaultPort)
	PortPtr *int64 `json:"portPtr,omitempty"`
	// +default={"size": 2}
	Widget *core.WidgetSpec `json:"widget,omitempty"`
	// +default={"a": "b"}
	Labels map[string]string `json:"labels,omitempty"`
	Mode   *Mode             `json:"mode,omitempty"`
	Modes  []Mode            `json:"modes,omitempty"`
	Ptr    ModePtr           `json:"ptr,omitempty"`

	Part     core.Part            `json:"part"`
	Parts    []core.Part          `json:"parts,omitempty"`
	PartPtrs []*core.Part         `json:"partPtrs,omitempty"`
	PartMap  map[string]core.Part `json:"partMap,omitempty"`
	// +default={"name": "p"}
	PartMapDefault map[string]core.Part `json:"partMapDefault,omitempty"`
	Widgets        WidgetList           `json:"widgets,omitempty"`
	Tree           *Node                `json:"tree,omitempty"`
	Array          [2]core.Inner        `json:"array"`
	Extra          Extra                `json:"extra"`
	Opt            *Optional            `json:"opt,omitempty"`
	Hand           HandWritten          `json:"hand"`
	Quiet          Quiet                `json:"quiet"`
}

// WidgetList is a named slice.
type WidgetList []core.WidgetSpec

// Node is recursive.
type Node struct {
	Children []Node `json:"children,omitempty"`
	Next     *Node  `json:"next,omitempty"`
	// +default="leaf"
	Label string `json:"label"`
}

// Extra has a base and an additional defaulter.
type Extra struct {
	A string `json:"a"`
}

// Optional opts in without TypeMeta.

// +k8s:defaulter-gen=true

// Optional is defaulted on its own.
type Optional struct {
	Inner core.Inner `json:"inner"`
}

// Quiet has TypeMeta but opts out.

// +k8s:defaulter-gen=false

// Quiet gets no object defaulter.
type Quiet struct {
	metav1.TypeMeta `json:",inline"`
	Inner           core.Inner `json:"inner"`
}

// HandWritten has an object defaulter written by hand.
type HandWritten struct {
	metav1.TypeMeta `json:",inline"`
	Inner           core.Inner `json:"inner"`
}

// GadgetList lists Gadgets.
type GadgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Gadget `json:"items"`
}

// Plain has TypeMeta but nothing to default.
type Plain struct {
	metav1.TypeMeta `json:",inline"`
	Name            string `json:"name"`
}

// private types get no defaulter.
type private struct {
	metav1.TypeMeta `json:",inline"`
	Inner           core.Inner `json:"inner"`
}
