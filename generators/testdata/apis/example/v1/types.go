package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +genclient

// Widget is a namespaced type with every verb: informer and lister. A
// hand-written listers/example/v1/widget_expansion.go declares
// WidgetListerExpansion, so the generator must not.
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              WidgetSpec `json:"spec"`
}

// WidgetSpec has no tags and is not a resource.
type WidgetSpec struct {
	Size int `json:"size"`
}

// WidgetList is a list of Widgets.
type WidgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Widget `json:"items"`
}

// +genclient
// +genclient:nonNamespaced

// Gadget is cluster-scoped; its tags sit in the detached comment block above
// its doc comment, where client-gen also reads them.
type Gadget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
}

// GadgetList is a list of Gadgets.
type GadgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Gadget `json:"items"`
}

// Policy is read-only: get, list and watch; its plural is Policies.
//
// +genclient
// +genclient:readonly
type Policy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
}

// PolicyList is a list of Policies.
type PolicyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Policy `json:"items"`
}

// NodeMetrics is pluralised by client-gen's rules as NodeMetricses.
//
// +genclient
// +genclient:nonNamespaced
// +genclient:onlyVerbs=get,list,watch
type NodeMetrics struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
}

// NodeMetricsList is a list of NodeMetricses.
type NodeMetricsList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []NodeMetrics `json:"items"`
}

// ServiceMesh has no watch verb: a lister but no informer. Its plural is
// ServiceMeshes.
//
// +genclient
// +genclient:skipVerbs=watch,deleteCollection
type ServiceMesh struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
}

// Report has list and watch but no get: an informer without a Lister().
//
// +genclient
// +genclient:onlyVerbs=create,list,watch
type Report struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
}

// ReportList is a list of Reports.
type ReportList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Report `json:"items"`
}

// Review has a client without verbs: neither informer nor lister.
//
// +genclient
// +genclient:noVerbs
// +genclient:method=Submit,verb=create,subresource=submit,result=Review
type Review struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
}

// Secret opts out of lister generation: an informer without a Lister().
//
// +genclient
// +k8s:lister-gen=false
type Secret struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
}

// SecretList is a list of Secrets.
type SecretList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Secret `json:"items"`
}

// Hidden opts out of informer generation: a lister only.
//
// +genclient
// +genclient:nonNamespaced
// +k8s:informer-gen=false
type Hidden struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
}

// Thing is served under the REST resource "thingamajigs" (+resourceName);
// its Go names stay Thing/Things.
//
// +genclient
// +resourceName=thingamajigs
type Thing struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
}

// ThingList is a list of Things.
type ThingList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Thing `json:"items"`
}

// Endpoints is already plural: the default Endpoints:Endpoints exception
// keeps client-gen's Endpoints(ns), not Endpointses.
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
