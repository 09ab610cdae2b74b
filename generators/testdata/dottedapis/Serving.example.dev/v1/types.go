package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Service is a namespaced type of the serving.example.dev group.
//
// +genclient
type Service struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
}

// ServiceList is a list of Services.
type ServiceList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Service `json:"items"`
}
