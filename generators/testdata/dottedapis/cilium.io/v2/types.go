package v2

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// CiliumNetworkPolicy is a namespaced type of the cilium.io group.
//
// +genclient
type CiliumNetworkPolicy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
}

// CiliumNetworkPolicyList is a list of CiliumNetworkPolicies.
type CiliumNetworkPolicyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []CiliumNetworkPolicy `json:"items"`
}

// CiliumNode is a cluster-scoped type of the cilium.io group.
//
// +genclient
// +genclient:nonNamespaced
type CiliumNode struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
}

// CiliumNodeList is a list of CiliumNodes.
type CiliumNodeList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []CiliumNode `json:"items"`
}
