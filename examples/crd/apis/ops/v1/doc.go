// Package v1 holds version v1 of the ops.typedinformer.dev API: maintenance
// windows during which the example controller leaves ConfigMaps alone.
//
// +k8s:deepcopy-gen=package
// +groupName=ops.typedinformer.dev
package v1
