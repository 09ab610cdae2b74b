// Package v1's only TypeMeta is a named field with a json tag: the package
// is external and gets a file registering no type.
//
// +groupName=named.example.com
package v1
