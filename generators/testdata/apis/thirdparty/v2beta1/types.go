package v2beta1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Bucket gets an informer without a Lister(): listers are off for the package.
//
// +genclient
// +genclient:nonNamespaced
type Bucket struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
}

// BucketList is a list of Buckets.
type BucketList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Bucket `json:"items"`
}
