package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// TFJob is a namespaced type of the kubeflow.org group.
//
// +genclient
type TFJob struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
}

// TFJobList is a list of TFJobs.
type TFJobList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []TFJob `json:"items"`
}
