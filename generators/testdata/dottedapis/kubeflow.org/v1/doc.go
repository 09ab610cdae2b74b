// Package v1 is laid out as Kubeflow's training operator lays out its API
// (pkg/apis/kubeflow.org/v1).
//
// +groupName=kubeflow.org
package v1
