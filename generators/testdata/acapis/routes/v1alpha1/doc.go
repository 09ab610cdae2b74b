// Package v1alpha1 has a +genclient line but no type: client-gen gives it
// an empty typed client.
//
// +groupName=routes.example.com
package v1alpha1
