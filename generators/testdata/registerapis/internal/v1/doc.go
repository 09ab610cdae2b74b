// Package v1 holds internal types: TypeMeta without a json tag.
//
// +groupName=internal.example.com
package v1
