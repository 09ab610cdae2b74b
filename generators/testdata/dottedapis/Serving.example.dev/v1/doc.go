// Package v1 is in a directory with upper-case letters: upstream
// informer-gen keeps them (package Serving), lister-gen lower-cases the
// directory (listers/serving.example.dev/v1).
//
// +groupName=serving.example.dev
package v1
