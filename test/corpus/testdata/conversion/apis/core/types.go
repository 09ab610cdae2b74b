package core

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Phase is a string type: converted by a type conversion.
type Phase string

// Labels is a map type.
type Labels map[string]string

type Widget struct {
	metav1.TypeMeta
	metav1.ObjectMeta

	Spec   WidgetSpec
	Status WidgetStatus
}

type WidgetList struct {
	metav1.TypeMeta
	metav1.ListMeta

	Items []Widget
}

type WidgetSpec struct {
	Replicas   int64
	Phase      Phase
	Labels     Labels
	Ports      []Port
	ByName     map[string]Port
	Parent     *Port
	Timeout    metav1.Duration
	Created    *metav1.Time
	Names      []string
	Ignored    string
	Tree       *Node
	Dimensions Dimensions
	Internal   string
	Weights    map[string]int32
	Counts     []int32
}

type WidgetStatus struct {
	Ready      bool
	Conditions []Condition
}

type Condition struct {
	Type    string
	Message string
}

// Port differs from v1.Port in one member's type.
type Port struct {
	Name   string
	Number int64
}

// Node is recursive.
type Node struct {
	Name     string
	Children []Node
	Next     *Node
}

type Dimensions struct {
	Width, Height int32
}

// Gadget has hand-written conversions: from v1 in the extra peer package, to v1 in v1.
type Gadget struct {
	Size  int32
	Color string
}

type Gizmo struct {
	Parts []Gadget
	Main  Gadget
	Opt   *Gadget
	ByKey map[string]Gadget
}

// Stamp converts by functions in the extra peer package.
type Stamp struct {
	Value string
}

type Sprocket struct {
	Stamp  Stamp
	Stamps []Stamp
}

type private struct {
	A string
}

type Skipped struct {
	A string
}

// Thing is converted from api/corev2's.
type Thing struct {
	Name  string
	Phase Phase
	Ports []Port
}

// Selection's peer v1.Selection is opted out, and read from query
// parameters.
type Selection struct {
	Name string
}
