package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Thing holds a TypeMeta it does not embed.
type Thing struct {
	TypeMeta metav1.TypeMeta `json:"typeMeta"`
}
