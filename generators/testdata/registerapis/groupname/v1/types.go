package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Widget is an object.
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              WidgetSpec `json:"spec"`
}

// WidgetList is a list of Widgets.
type WidgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Widget `json:"items"`
}

// WidgetSpec has no TypeMeta and is not registered.
type WidgetSpec struct {
	Size int `json:"size"`
}

// gadget is unexported and still registered.
type gadget struct {
	metav1.TypeMeta `json:",inline"`
}

// Pointer embeds a pointer to TypeMeta.
type Pointer struct {
	*metav1.TypeMeta `json:",inline"`
}

// Copy is defined as Widget.
type Copy Widget

// Same is an alias of Widget and not registered on its own.
type Same = Widget
