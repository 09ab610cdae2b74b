// +k8s:conversion-gen=false

// Package explicit registers only its hand-written conversions.
package explicit
