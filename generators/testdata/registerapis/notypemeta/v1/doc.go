// Package v1 has +groupName and no type with a TypeMeta member.
//
// +groupName=notypemeta.example.com
package v1
