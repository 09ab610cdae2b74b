package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +genclient
// +genclient:nonNamespaced
// +genclient:onlyVerbs=get,list,watch,create,delete
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// MaintenanceWindow pauses reconciling of the Foos in the listed namespaces
// while it exists.
type MaintenanceWindow struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec MaintenanceWindowSpec `json:"spec"`
}

// MaintenanceWindowSpec says what the window covers.
type MaintenanceWindowSpec struct {
	// Namespaces the window pauses; empty means all.
	Namespaces []string `json:"namespaces,omitempty"`
	// Reason is shown in the status of paused Foos.
	Reason string `json:"reason,omitempty"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// MaintenanceWindowList is a list of MaintenanceWindows.
type MaintenanceWindowList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []MaintenanceWindow `json:"items"`
}
