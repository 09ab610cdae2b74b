// +k8s:conversion-gen=example.com/conv/apis/core
// +k8s:deepcopy-gen=package

// Package v1 is a versioned package converted to and from core.
package v1
