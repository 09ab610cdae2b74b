package v1

import "k8s.io/apimachinery/pkg/runtime"

// Hand-written copies: enough for the runtime.Object interface the
// generated informers and listers need.

// DeepCopyObject returns a copy of the Widget.
func (in *Widget) DeepCopyObject() runtime.Object {
	out := *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	return &out
}

// DeepCopyObject returns a copy of the Gadget.
func (in *Gadget) DeepCopyObject() runtime.Object {
	out := *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	return &out
}

// DeepCopyObject returns a copy of the Policy.
func (in *Policy) DeepCopyObject() runtime.Object {
	out := *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	return &out
}

// DeepCopyObject returns a copy of the NodeMetrics.
func (in *NodeMetrics) DeepCopyObject() runtime.Object {
	out := *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	return &out
}

// DeepCopyObject returns a copy of the ServiceMesh.
func (in *ServiceMesh) DeepCopyObject() runtime.Object {
	out := *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	return &out
}

// DeepCopyObject returns a copy of the Report.
func (in *Report) DeepCopyObject() runtime.Object {
	out := *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	return &out
}

// DeepCopyObject returns a copy of the Review.
func (in *Review) DeepCopyObject() runtime.Object {
	out := *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	return &out
}

// DeepCopyObject returns a copy of the Secret.
func (in *Secret) DeepCopyObject() runtime.Object {
	out := *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	return &out
}

// DeepCopyObject returns a copy of the Hidden.
func (in *Hidden) DeepCopyObject() runtime.Object {
	out := *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	return &out
}

// DeepCopyObject returns a copy of the Thing.
func (in *Thing) DeepCopyObject() runtime.Object {
	out := *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	return &out
}

// DeepCopyObject returns a copy of the Endpoints.
func (in *Endpoints) DeepCopyObject() runtime.Object {
	out := *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	return &out
}

// DeepCopyObject returns a copy of the WidgetList.
func (in *WidgetList) DeepCopyObject() runtime.Object {
	out := *in
	in.ListMeta.DeepCopyInto(&out.ListMeta)
	out.Items = append(out.Items[:0:0], in.Items...)
	return &out
}

// DeepCopyObject returns a copy of the GadgetList.
func (in *GadgetList) DeepCopyObject() runtime.Object {
	out := *in
	in.ListMeta.DeepCopyInto(&out.ListMeta)
	out.Items = append(out.Items[:0:0], in.Items...)
	return &out
}

// DeepCopyObject returns a copy of the PolicyList.
func (in *PolicyList) DeepCopyObject() runtime.Object {
	out := *in
	in.ListMeta.DeepCopyInto(&out.ListMeta)
	out.Items = append(out.Items[:0:0], in.Items...)
	return &out
}

// DeepCopyObject returns a copy of the NodeMetricsList.
func (in *NodeMetricsList) DeepCopyObject() runtime.Object {
	out := *in
	in.ListMeta.DeepCopyInto(&out.ListMeta)
	out.Items = append(out.Items[:0:0], in.Items...)
	return &out
}

// DeepCopyObject returns a copy of the ReportList.
func (in *ReportList) DeepCopyObject() runtime.Object {
	out := *in
	in.ListMeta.DeepCopyInto(&out.ListMeta)
	out.Items = append(out.Items[:0:0], in.Items...)
	return &out
}

// DeepCopyObject returns a copy of the SecretList.
func (in *SecretList) DeepCopyObject() runtime.Object {
	out := *in
	in.ListMeta.DeepCopyInto(&out.ListMeta)
	out.Items = append(out.Items[:0:0], in.Items...)
	return &out
}

// DeepCopyObject returns a copy of the ThingList.
func (in *ThingList) DeepCopyObject() runtime.Object {
	out := *in
	in.ListMeta.DeepCopyInto(&out.ListMeta)
	out.Items = append(out.Items[:0:0], in.Items...)
	return &out
}

// DeepCopyObject returns a copy of the EndpointsList.
func (in *EndpointsList) DeepCopyObject() runtime.Object {
	out := *in
	in.ListMeta.DeepCopyInto(&out.ListMeta)
	out.Items = append(out.Items[:0:0], in.Items...)
	return &out
}
