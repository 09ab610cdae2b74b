package v3beta1

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// +genclient

// Pod is another name for k8s.io/api's Pod.
type Pod = corev1.Pod

// +genclient
// +genclient:nonNamespaced

// Node is defined as k8s.io/api's Node.
type Node corev1.Node

// DeepCopyObject returns a copy of the Node.
func (in *Node) DeepCopyObject() runtime.Object {
	out := Node(*(*corev1.Node)(in).DeepCopy())
	return &out
}
