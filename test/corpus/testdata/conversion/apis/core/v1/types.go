package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

type Phase string

type Labels map[string]string

type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   WidgetSpec   `json:"spec,omitempty"`
	Status WidgetStatus `json:"status,omitempty"`
}

type WidgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Widget `json:"items"`
}

type WidgetSpec struct {
	Replicas int32           `json:"replicas"`
	Phase    Phase           `json:"phase"`
	Labels   Labels          `json:"labels"`
	Ports    []Port          `json:"ports"`
	ByName   map[string]Port `json:"byName"`
	Parent   *Port           `json:"parent"`
	Timeout  metav1.Duration `json:"timeout"`
	Created  *metav1.Time    `json:"created"`
	Names    []string        `json:"names"`
	// +k8s:conversion-gen=false
	Ignored    string           `json:"ignored"`
	Tree       *Node            `json:"tree"`
	Dimensions Dimensions       `json:"dimensions"`
	Internal   string           `json:"internal"`
	Weights    map[string]int32 `json:"weights"`
	Counts     []int32          `json:"counts"`
}

type WidgetStatus struct {
	Ready      bool        `json:"ready"`
	Conditions []Condition `json:"conditions"`
}

// Condition has a peer type and is read from query parameters too.
// +k8s:conversion-gen:explicit-from=net/url.Values
type Condition struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

type Port struct {
	Name   string `json:"name"`
	Number int32  `json:"number"`
}

type Node struct {
	Name     string `json:"name"`
	Children []Node `json:"children"`
	Next     *Node  `json:"next"`
}

type Dimensions struct {
	Width, Height int32
}

type Gadget struct {
	Size   int32  `json:"size"`
	Colour string `json:"colour"`
}

type Gizmo struct {
	Parts []Gadget          `json:"parts"`
	Main  Gadget            `json:"main"`
	Opt   *Gadget           `json:"opt"`
	ByKey map[string]Gadget `json:"byKey"`
}

type Stamp struct {
	Value string `json:"value"`
}

type Sprocket struct {
	Stamp  Stamp   `json:"stamp"`
	Stamps []Stamp `json:"stamps"`
}

type private struct {
	A string
}

// +k8s:conversion-gen=false
type Skipped struct {
	A string
}
