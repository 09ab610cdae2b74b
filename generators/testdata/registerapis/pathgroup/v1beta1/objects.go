package v1beta1

import "k8s.io/apimachinery/pkg/runtime"

// DeepCopyObject returns a shallow copy; enough for a scheme.
func (in *Thing) DeepCopyObject() runtime.Object {
	c := *in
	return &c
}
