package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// Foo asks for a ConfigMap with the given data in the Foo's namespace. The
// controller owns the ConfigMap and reports what it did in status.
type Foo struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   FooSpec   `json:"spec"`
	Status FooStatus `json:"status,omitempty"`
}

// FooSpec is the desired state of a Foo.
type FooSpec struct {
	// ConfigMapName names the ConfigMap to manage; defaults to the Foo's name.
	ConfigMapName string `json:"configMapName,omitempty"`
	// Data is copied into the ConfigMap.
	Data map[string]string `json:"data,omitempty"`
	// ClassName names a FooClass whose defaults are merged under Data.
	ClassName string `json:"className,omitempty"`
}

// FooStatus is the observed state of a Foo.
type FooStatus struct {
	// ObservedGeneration is the generation the controller last acted on.
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// ConfigMapName is the ConfigMap the controller manages for this Foo.
	ConfigMapName string `json:"configMapName,omitempty"`
	// Phase is Ready once the ConfigMap matches the spec, else Pending or Failed.
	Phase string `json:"phase,omitempty"`
	// Message explains Phase.
	Message string `json:"message,omitempty"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// FooList is a list of Foos.
type FooList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Foo `json:"items"`
}

// +genclient
// +genclient:nonNamespaced
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// FooClass is a cluster-wide set of defaults that Foos can refer to.
type FooClass struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec FooClassSpec `json:"spec"`
}

// FooClassSpec holds a FooClass's defaults.
type FooClassSpec struct {
	// Defaults are merged under each referring Foo's data.
	Defaults map[string]string `json:"defaults,omitempty"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// FooClassList is a list of FooClasses.
type FooClassList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []FooClass `json:"items"`
}
