// +k8s:deepcopy-gen=package

// Package kinds has every type deepcopy-gen copies, generated for the whole
// package.
package kinds
