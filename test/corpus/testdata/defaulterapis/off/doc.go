// Package off opts out.
//
// +k8s:defaulter-gen=false
package off
