// Package v1 registers its types in a register.go of its own.
//
// +groupName=handwritten.example.com
package v1
