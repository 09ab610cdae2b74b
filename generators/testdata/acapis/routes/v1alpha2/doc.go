// Package v1alpha2 refers to v1's structs, directly and through aliases
// declared in a file without json tags, and defines a type as v1's.
//
// +groupName=routes.example.com
package v1alpha2
