package v2

import "k8s.io/apimachinery/pkg/runtime"

// Hand-written copies: enough for the runtime.Object interface the
// generated informers and listers need.

// DeepCopyObject returns a copy of the CiliumNetworkPolicy.
func (in *CiliumNetworkPolicy) DeepCopyObject() runtime.Object {
	out := *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	return &out
}

// DeepCopyObject returns a copy of the CiliumNetworkPolicyList.
func (in *CiliumNetworkPolicyList) DeepCopyObject() runtime.Object {
	out := *in
	in.ListMeta.DeepCopyInto(&out.ListMeta)
	out.Items = append(out.Items[:0:0], in.Items...)
	return &out
}

// DeepCopyObject returns a copy of the CiliumNode.
func (in *CiliumNode) DeepCopyObject() runtime.Object {
	out := *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	return &out
}

// DeepCopyObject returns a copy of the CiliumNodeList.
func (in *CiliumNodeList) DeepCopyObject() runtime.Object {
	out := *in
	in.ListMeta.DeepCopyInto(&out.ListMeta)
	out.Items = append(out.Items[:0:0], in.Items...)
	return &out
}
