// Package v1 has +groupName outside a doc.go, which register-gen does not
// read.
//
// +groupName=nodoc.example.com
package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Thing is an object.
type Thing struct {
	metav1.TypeMeta `json:",inline"`
}
