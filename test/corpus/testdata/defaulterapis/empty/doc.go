// Package empty is tagged but has nothing to default.
//
// +k8s:defaulter-gen=TypeMeta
package empty
