package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// SchemeGroupVersion is the group-version of this package.
var SchemeGroupVersion = metav1.SchemeGroupVersion

// Endpoints keeps its plural (a default exception).
//
// +genclient
type Endpoints struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
}

// EndpointsList is a list of Endpoints.
type EndpointsList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Endpoints `json:"items"`
}
