package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Widget has every verb and a status; its scale subresource answers with
// another package's type, and a binding subresource takes a type of this
// package. A hand-written widget_expansion.go in the clientset's typed
// directory declares WidgetExpansion, so the generator must not.
//
// +genclient
// +genclient:method=GetScale,verb=get,subresource=scale,result=k8s.io/api/autoscaling/v1.Scale
// +genclient:method=UpdateScale,verb=update,subresource=scale,input=k8s.io/api/autoscaling/v1.Scale,result=k8s.io/api/autoscaling/v1.Scale
// +genclient:method=ApplyScale,verb=apply,subresource=scale,input=k8s.io/api/autoscaling/v1.Scale,result=k8s.io/api/autoscaling/v1.Scale
// +genclient:method=CreateBinding,verb=create,subresource=binding,input=Binding,result=Binding
// +genclient:method=PatchLabels,verb=patch
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              WidgetSpec   `json:"spec"`
	Status            WidgetStatus `json:"status"`
}

// WidgetSpec is not a resource.
type WidgetSpec struct{}

// WidgetStatus is not a resource.
type WidgetStatus struct{}

// WidgetList is a list of Widgets.
type WidgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Widget `json:"items"`
}

// Binding is the input and result of Widget's binding subresource.
type Binding struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
}

// Gadget is cluster-scoped, and has a status that +genclient:noStatus
// keeps out of its client.
//
// +genclient
// +genclient:nonNamespaced
// +genclient:noStatus
type Gadget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Status            WidgetStatus `json:"status"`
}

// GadgetList is a list of Gadgets.
type GadgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Gadget `json:"items"`
}

// Report is read-only, with a status that get, list and watch do not use.
//
// +genclient
// +genclient:readonly
type Report struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Status            WidgetStatus `json:"status"`
}

// ReportList is a list of Reports.
type ReportList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Report `json:"items"`
}

// Job has no status field (so no UpdateStatus) and no patch or
// deleteCollection.
//
// +genclient
// +genclient:skipVerbs=patch,deleteCollection
type Job struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
}

// JobList is a list of Jobs.
type JobList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Job `json:"items"`
}

// TokenRequest can only be created: a client, no informer, no lister.
//
// +genclient
// +genclient:nonNamespaced
// +genclient:onlyVerbs=create
type TokenRequest struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
}

// Review has no verbs: a client with nothing but its expansion, and no
// extension methods either.
//
// +genclient
// +genclient:noVerbs
// +genclient:method=Submit,verb=create
type Review struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
}
