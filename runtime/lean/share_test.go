package lean_test

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/typedinformer/typedinformer/runtime/lean"
)

func sameMap(a, b map[string]string) bool {
	return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}

func TestSharePodSpecSharesEqualPartsOnlyAndKeepsContent(t *testing.T) {
	in := lean.NewInterner(0, 0)
	tr := lean.SharePodSpec(in)
	p1, p2, p3 := richPod("p1", "node-1"), richPod("p2", "node-2"), richPod("p3", "node-1")
	p3.Spec.Containers[0].Env[0].Value = "staging" // same names and images, other content
	p3.Labels["app"] = "other"
	want1, want3 := p1.DeepCopy(), p3.DeepCopy()
	a, _ := tr(p1)
	b, _ := tr(p2)
	c, _ := tr(p3)
	if !reflect.DeepEqual(a, want1) || !reflect.DeepEqual(c, want3) {
		t.Fatal("sharing changed an object's content")
	}
	if &a.Spec.Containers[0] != &b.Spec.Containers[0] || &a.Spec.Volumes[0] != &b.Spec.Volumes[0] || &a.Spec.Tolerations[0] != &b.Spec.Tolerations[0] {
		t.Error("equal containers, volumes or tolerations are not shared")
	}
	if !sameMap(a.Labels, b.Labels) || !sameMap(a.Annotations, b.Annotations) || !sameMap(a.Spec.NodeSelector, b.Spec.NodeSelector) {
		t.Error("equal label, annotation or node selector maps are not shared")
	}
	if &c.Spec.Containers[0] == &a.Spec.Containers[0] || c.Spec.Containers[0].Env[0].Value != "staging" {
		t.Error("containers that differ in content were shared")
	}
	if sameMap(c.Labels, a.Labels) || c.Labels["app"] != "other" {
		t.Error("different label maps were shared")
	}
}

func TestShareMapsGenericType(t *testing.T) {
	tr := lean.ShareMaps[*corev1.ConfigMap](lean.NewInterner(0, 0))
	mk := func() *corev1.ConfigMap {
		cm := &corev1.ConfigMap{}
		cm.Labels = map[string]string{"a": "1", "b": "2"}
		return cm
	}
	x, _ := tr(mk())
	y, _ := tr(mk())
	if !sameMap(x.Labels, y.Labels) {
		t.Fatal("equal label maps not shared")
	}
}
