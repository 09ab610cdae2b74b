// Package v1 exercises every +genclient form for the clientset goldens.
//
// +groupName=widgets.example.com
package v1
