// +k8s:register-gen=true

// Package v1beta1 asks for the file with +k8s:register-gen, in a comment of
// doc.go that is not the package's doc comment, and has no +groupName: the
// group is the path element before the version.
package v1beta1
