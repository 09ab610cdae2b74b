package v1

import "k8s.io/apimachinery/pkg/runtime"

// Hand-written copies: enough for the runtime.Object interface the
// generated informers and listers need.

// DeepCopyObject returns a copy of the Policy.
func (in *Policy) DeepCopyObject() runtime.Object {
	out := *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	return &out
}

// DeepCopyObject returns a copy of the PolicyList.
func (in *PolicyList) DeepCopyObject() runtime.Object {
	out := *in
	in.ListMeta.DeepCopyInto(&out.ListMeta)
	out.Items = append(out.Items[:0:0], in.Items...)
	return &out
}
