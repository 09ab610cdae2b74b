// Package v1 opts out of both informers and listers: nothing is generated
// for it, although it has +genclient types and no group name.
//
// +k8s:informer-gen=false
// +k8s:lister-gen=false
package v1
