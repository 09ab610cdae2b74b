// Package v2beta1 sets its group's Go name with +groupGoName and turns
// listers off for the whole package.
//
// +groupName=things.example.org
// +groupGoName=ThirdParty
// +k8s:lister-gen=false
package v2beta1
