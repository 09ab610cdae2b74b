package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Certificate is a namespaced type of the cert-manager.example.io group.
//
// +genclient
type Certificate struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
}

// CertificateList is a list of Certificates.
type CertificateList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Certificate `json:"items"`
}
