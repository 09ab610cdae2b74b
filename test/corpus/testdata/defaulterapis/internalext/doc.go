// Package internalext holds the defaulters of ext's types.
//
// +k8s:defaulter-gen=TypeMeta
// +k8s:defaulter-gen-input=example.com/defaulterapis/ext
package internalext
