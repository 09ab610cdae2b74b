// Package core holds types whose defaulters other packages call.
//
// +k8s:defaulter-gen=TypeMeta
package core
