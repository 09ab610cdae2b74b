// Package v1alpha1 is a second version of example.com, so that the group
// interface has two versions.
//
// +groupName=example.com
package v1alpha1
