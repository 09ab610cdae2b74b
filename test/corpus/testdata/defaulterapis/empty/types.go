package empty

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Thing has TypeMeta and nothing to default.
type Thing struct {
	metav1.TypeMeta `json:",inline"`
	Name            string `json:"name"`
}
