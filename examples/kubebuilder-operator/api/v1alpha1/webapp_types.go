/*
Copyright 2026 The typedinformer Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Condition types a Webapp's status reports.
const (
	// TypeAvailable is True when the Webapp's Deployment has as many
	// available replicas as the Webapp asks for.
	TypeAvailable = "Available"
	// TypeDegraded is True while the Webapp is being deleted or when its
	// objects could not be brought to their desired state.
	TypeDegraded = "Degraded"
)

// WebappSpec is the desired state of a Webapp: a Deployment of Replicas pods
// running Image and listening on Port, and a Service in front of them.
type WebappSpec struct {
	// Image is the container image the pods run.
	// +kubebuilder:validation:MinLength=1
	// +required
	Image string `json:"image"`

	// Replicas is the number of pods.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=10
	// +kubebuilder:default=1
	// +optional
	Replicas *int32 `json:"replicas,omitempty"`

	// Port is the container port, which the Service exposes as well.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	// +kubebuilder:default=8080
	// +optional
	Port int32 `json:"port,omitempty"`
}

// WebappStatus is the observed state of a Webapp.
type WebappStatus struct {
	// Conditions are the Webapp's Available and Degraded conditions.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// Pods are the names of the pods in the Webapp's namespace that carry
	// its instance label, sorted.
	// +optional
	Pods []string `json:"pods,omitempty"`
}

// Webapp is a web application: a Deployment and a Service the operator
// keeps as its Spec says.
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Image",type=string,JSONPath=`.spec.image`
// +kubebuilder:printcolumn:name="Replicas",type=integer,JSONPath=`.spec.replicas`
// +kubebuilder:printcolumn:name="Available",type=string,JSONPath=`.status.conditions[?(@.type=="Available")].status`
type Webapp struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   WebappSpec   `json:"spec"`
	Status WebappStatus `json:"status,omitempty"`
}

// WebappList is a list of Webapps.
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
type WebappList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Webapp `json:"items"`
}
