package v1alpha2

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/typedinformer/typedinformer/generators/testdata/acapis/routes/v1"
)

// +genclient

// TCPRoute embeds v1's CommonRouteSpec through an alias.
type TCPRoute struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              TCPRouteSpec `json:"spec"`
}

// TCPRouteSpec reaches v1's structs through aliases.
type TCPRouteSpec struct {
	CommonRouteSpec `json:",inline"`
	Match           MatchResources  `json:"match"`
	Exclude         *MatchResources `json:"exclude,omitempty"`
	Hostnames       []Hostname      `json:"hostnames,omitempty"`
}

// +genclient

// UDPRoute embeds v1's CommonRouteSpec directly.
type UDPRoute struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              UDPRouteSpec `json:"spec"`
}

// UDPRouteSpec embeds and refers to v1's structs by their own names.
type UDPRouteSpec struct {
	v1.CommonRouteSpec `json:",inline"`
	Match              *v1.MatchResources `json:"match,omitempty"`
}

// +genclient

// Route is defined as v1's Route, whose Status member it has: its client
// gets UpdateStatus and ApplyStatus.
type Route v1.Route
