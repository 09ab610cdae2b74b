// Package v1 is a second group whose directory's first label is cilium: both
// group packages are named cilium, so the factory imports them under other
// names.
//
// +groupName=cilium.com
// +groupGoName=CiliumCom
package v1
