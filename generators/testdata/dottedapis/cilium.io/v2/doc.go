// Package v2 is in a directory named after its group, as Cilium lays out
// its API (apis/cilium.io/v2): upstream writes its informers to cilium.io/
// as package cilium.
//
// +groupName=cilium.io
package v2
