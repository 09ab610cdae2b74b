package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Ignored would get an informer if its package did not opt out.
//
// +genclient
type Ignored struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
}
