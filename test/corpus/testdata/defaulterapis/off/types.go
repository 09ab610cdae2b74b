package off

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Thing has TypeMeta.
type Thing struct {
	metav1.TypeMeta `json:",inline"`
	// +default="x"
	Name string `json:"name"`
}
