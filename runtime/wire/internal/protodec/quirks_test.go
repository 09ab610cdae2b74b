package protodec_test

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/typedinformer/typedinformer/runtime/wire/internal/jsondec"
	"github.com/typedinformer/typedinformer/runtime/wire/internal/protodec"
)

// TestGeneratedQuirks decodes hand-made messages that reach the corners
// of the generated code (entries and packed values read past their own
// length, tags with bits above 32, groups, fields seen twice) and
// requires what the generated Unmarshal gives.
func TestGeneratedQuirks(t *testing.T) {
	configMap := reflect.TypeFor[corev1.ConfigMap]()         // data=2 map[string]string, binaryData=3 map[string][]byte, immutable=4 *bool
	security := reflect.TypeFor[corev1.PodSecurityContext]() // supplementalGroups=4 []int64, runAsUser=2 *int64
	for _, tc := range []struct {
		name string
		typ  reflect.Type
		data []byte
	}{
		{"map entry", configMap, []byte{0x12, 0x06, 0x0a, 0x01, 'k', 0x12, 0x01, 'v'}},
		{"map entry without a value", configMap, []byte{0x12, 0x03, 0x0a, 0x01, 'k'}},
		{"empty map entry", configMap, []byte{0x12, 0x00}},
		{"bytes map entry without a value", configMap, []byte{0x1a, 0x03, 0x0a, 0x01, 'k'}},
		{"bytes map entry with an empty value", configMap, []byte{0x1a, 0x05, 0x0a, 0x01, 'k', 0x12, 0x00}},
		{"map key past its entry", configMap, []byte{0x12, 0x02, 0x0a, 0x03, 'k', 'e', 'y'}},
		{"map key past its message", configMap, []byte{0x12, 0x02, 0x0a, 0x05, 'k'}},
		{"map entry key with the wrong wire type", configMap, []byte{0x12, 0x03, 0x08, 0x01, 'k'}},
		{"map entry with an unknown field", configMap, []byte{0x12, 0x05, 0x18, 0x07, 0x0a, 0x01, 'k'}},
		{"map entry with an unknown field past it", configMap, []byte{0x12, 0x02, 0x1a, 0x05, 1, 2, 3, 4, 5}},
		{"map entry with an end group", configMap, []byte{0x12, 0x01, 0x0c}},
		{"map field with the wrong wire type", configMap, []byte{0x10, 0x01}},
		{"map entry replaced", configMap, []byte{0x12, 0x06, 0x0a, 0x01, 'k', 0x12, 0x01, 'a', 0x12, 0x06, 0x0a, 0x01, 'k', 0x12, 0x01, 'b'}},
		{"optional bool", configMap, []byte{0x20, 0x02}},
		{"optional bool of ten bytes", configMap, []byte{0x20, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x02}},
		{"varint of eleven bytes", configMap, []byte{0x20, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01}},
		{"tag with bits above 32", configMap, []byte{0xa0, 0x80, 0x80, 0x80, 0x10, 0x01}},
		{"tag of field zero", configMap, []byte{0x00, 0x01}},
		{"end group", configMap, []byte{0x0c}},
		{"unknown group", configMap, []byte{0x53, 0x08, 0x01, 0x54, 0x20, 0x01}},
		{"unknown group never ended", configMap, []byte{0x53, 0x08, 0x01}},
		{"unknown fixed64 past the end", configMap, []byte{0x51, 1, 2, 3}},
		{"unknown fixed32", configMap, []byte{0x55, 1, 2, 3, 4}},
		{"unknown wire type 7", configMap, []byte{0x57}},
		{"negative length", configMap, []byte{0x0a, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}},
		{"length past the end", configMap, []byte{0x0a, 0x05, 0x0a}},
		{"metadata twice merges", configMap, []byte{0x0a, 0x03, 0x0a, 0x01, 'a', 0x0a, 0x03, 0x1a, 0x01, 'b'}},
		{"packed", security, []byte{0x22, 0x03, 0x01, 0x96, 0x01}},
		{"packed then unpacked", security, []byte{0x22, 0x01, 0x01, 0x20, 0x02}},
		{"packed value past its length", security, []byte{0x22, 0x01, 0x96, 0x01}},
		{"empty packed", security, []byte{0x22, 0x00}},
		{"repeated with the wrong wire type", security, []byte{0x25, 1, 2, 3, 4}},
		{"negative int64", security, []byte{0x10, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}},
		{"scalar with the wrong wire type", security, []byte{0x12, 0x00}},
		{"empty managedFields document", reflect.TypeFor[metav1.FieldsV1](), []byte{0x0a, 0x00}},
		{"managedFields document twice", reflect.TypeFor[metav1.FieldsV1](), []byte{0x0a, 0x01, '{', 0x0a, 0x00}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := protodec.New(tc.typ)
			if err != nil {
				t.Fatal(err)
			}
			compare(t, d, d.NewState(jsondec.NewStrings(16)), tc.typ, tc.data, tc.name)
		})
	}
}

// TestQuantitiesKept decodes the same requests into many containers with
// one State: each Quantity is what Unmarshal gives, and changing one
// changes no other (a kept Quantity is copied, and only when it holds no
// pointer).
func TestQuantitiesKept(t *testing.T) {
	typ := reflect.TypeFor[corev1.ResourceRequirements]()
	d, err := protodec.New(typ)
	if err != nil {
		t.Fatal(err)
	}
	st := d.NewState(jsondec.NewStrings(16))
	for _, q := range []string{"100m", "128Mi", "1.5", "100000000000000000000000", "1e100", "0.000000000001"} {
		in := corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(q)}}
		data, err := in.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		var got []*corev1.ResourceRequirements
		for range 3 {
			compare(t, d, st, typ, data, q)
			v := &corev1.ResourceRequirements{}
			if err := d.Unmarshal(data, v, st); err != nil {
				t.Fatal(err)
			}
			got = append(got, v)
		}
		want := got[1].Requests[corev1.ResourceCPU].DeepCopy()
		changed := got[0].Requests[corev1.ResourceCPU]
		changed.Add(resource.MustParse("1"))
		got[0].Requests[corev1.ResourceCPU] = changed
		if c := got[1].Requests[corev1.ResourceCPU]; c.Cmp(want) != 0 {
			t.Errorf("%s: changing one decoded Quantity changed another to %s", q, c.String())
		}
	}
}

// TestDocsHeldOnce decodes Pods with one State: equal managedFields
// documents share bytes (through the State's Strings), different ones do
// not, and each Pod is what Unmarshal gives; without a Strings nothing is
// shared. (Empty documents, which newer apimachinery does not encode, are
// in TestGeneratedQuirks.)
func TestDocsHeldOnce(t *testing.T) {
	typ := reflect.TypeFor[corev1.Pod]()
	d, err := protodec.New(typ)
	if err != nil {
		t.Fatal(err)
	}
	pod := func(docs ...string) []byte {
		p := corev1.Pod{}
		for _, doc := range docs {
			p.ManagedFields = append(p.ManagedFields, metav1.ManagedFieldsEntry{Manager: "m", FieldsV1: &metav1.FieldsV1{Raw: []byte(doc)}})
		}
		data, err := p.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	decode := func(st *protodec.State, data []byte) *corev1.Pod {
		t.Helper()
		compare(t, d, st, typ, data, "pod")
		v := &corev1.Pod{}
		if err := d.Unmarshal(data, v, st); err != nil {
			t.Fatal(err)
		}
		return v
	}
	raw := func(p *corev1.Pod, i int) []byte { return p.ManagedFields[i].FieldsV1.Raw }
	const ctrl, kubelet = `{"f:metadata":{}}`, `{"f:status":{}}`
	st := d.NewState(jsondec.NewStrings(16))
	data := pod(ctrl, kubelet)
	a := decode(st, data)
	b := decode(st, pod(ctrl, `{"f:spec":{}}`))
	if &raw(a, 0)[0] != &raw(b, 0)[0] {
		t.Error("an equal document is not shared")
	}
	if &raw(a, 1)[0] == &raw(b, 1)[0] {
		t.Error("different documents share bytes")
	}
	clear(data)
	if string(raw(a, 0)) != ctrl || string(raw(a, 1)) != kubelet {
		t.Error("a document aliases the message it was decoded from")
	}
	alone := d.NewState(nil)
	if c, e := decode(alone, pod(ctrl)), decode(alone, pod(ctrl)); &raw(c, 0)[0] == &raw(e, 0)[0] {
		t.Error("documents decoded without a Strings share bytes")
	}
}
