// Package crd is an example CRD repository built on typedinformer: API types
// under apis/ with their deepcopy functions and registration, and the clientset, apply
// configurations, informers and listers under pkg/generated, all written by
// typedinformer's informer-gen; the built-in types' informers from the
// project's kube module; and a controller under cmd/foo-controller.
//
// Regenerate everything with `go generate` from this directory (or
// hack/update-codegen.sh); check it with hack/verify-codegen.sh.
package crd

//go:generate ./hack/update-codegen.sh
