// +k8s:conversion-gen=example.com/conv/apis/core
// +k8s:conversion-gen-external-types=example.com/conv/api/corev2

// Package v2 converts the types of api/corev2.
package v2
