package core

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Widget is a top-level object.
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec WidgetSpec `json:"spec"`
}

// WidgetSpec is defaulted by SetDefaults_WidgetSpec.
type WidgetSpec struct {
	Size  int32  `json:"size"`
	Color string `json:"color"`
}

// Part has a base defaulter that covers its members.
type Part struct {
	Name  string `json:"name"`
	Inner Inner  `json:"inner"`
}

// Inner has a defaulter that Part's covering defaulter already calls.
type Inner struct {
	Value string `json:"value"`
}
