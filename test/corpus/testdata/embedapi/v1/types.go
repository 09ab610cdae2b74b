package v1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +genclient

// Runner runs steps.
type Runner struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              RunnerSpec `json:"spec"`
}

// RunnerSpec lists the steps.
type RunnerSpec struct {
	Steps []Step `json:"steps,omitempty"`
}

// Step is a container and how long it may run.
type Step struct {
	corev1.Container `json:",inline"`
	Timeout          *metav1.Duration `json:"timeout,omitempty"`
}
