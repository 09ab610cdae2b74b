// Package v1 names its group with +groupName; every type embedding TypeMeta
// is registered, whatever its name, and only those.
//
// +groupName=widgets.example.com
package v1
