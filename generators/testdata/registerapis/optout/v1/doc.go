// Package v1 has +groupName but opts out of register-gen.
//
// +groupName=optout.example.com
// +k8s:register-gen=false
package v1
