package v1

import "k8s.io/apimachinery/pkg/runtime"

// DeepCopyObject returns a shallow copy; enough for a scheme.
func (in *Widget) DeepCopyObject() runtime.Object {
	c := *in
	return &c
}

// DeepCopyObject returns a shallow copy; enough for a scheme.
func (in *WidgetList) DeepCopyObject() runtime.Object {
	c := *in
	return &c
}

// DeepCopyObject returns a shallow copy; enough for a scheme.
func (in *gadget) DeepCopyObject() runtime.Object {
	c := *in
	return &c
}

// DeepCopyObject returns a shallow copy; enough for a scheme.
func (in *Pointer) DeepCopyObject() runtime.Object {
	c := *in
	return &c
}

// DeepCopyObject returns a shallow copy; enough for a scheme.
func (in *Copy) DeepCopyObject() runtime.Object {
	c := *in
	return &c
}
