// Package v1 declares its group, the core group "", with a GroupName
// constant instead of a +groupName tag, as k8s.io/api's apps and batch do.
package v1
