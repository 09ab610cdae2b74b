// Package corev2 declares the types apis/core/v2 converts.
package corev2

type Thing struct {
	Name  string
	Phase string
	Ports []Port
}

type Port struct {
	Name   string
	Number int64
}
