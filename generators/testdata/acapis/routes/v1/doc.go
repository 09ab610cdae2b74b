// Package v1 has the structs the other versions of the group reuse.
//
// +groupName=routes.example.com
package v1
