// Package ext uses core's types and defaulters and every member shape.
//
// +k8s:defaulter-gen=TypeMeta
// +k8s:defaulter-gen=ListMeta
package ext
