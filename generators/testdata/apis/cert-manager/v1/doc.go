// Package v1 lives in a directory that is not a Go identifier and in a group
// whose first DNS label has a hyphen: client-gen names it Certmanager.
//
// +groupName=cert-manager.example.io
package v1
