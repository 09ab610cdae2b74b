// Package v3beta1 takes its types from another module (k8s.io/api).
//
// +groupName=shop.example.com
package v3beta1
