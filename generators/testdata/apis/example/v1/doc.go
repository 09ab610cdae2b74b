// +k8s:deepcopy-gen=package

// Package v1 is the v1 version of the example.com API group: it exercises
// every tag informer-gen reads.
//
// +groupName=example.com
package v1
