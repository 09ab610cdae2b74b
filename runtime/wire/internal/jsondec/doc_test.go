package jsondec

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kjson "sigs.k8s.io/json"
)

// podWithDocs is a Pod whose managedFields hold docs, in order (a nil
// document: no FieldsV1).
func podWithDocs(name string, docs ...[]byte) []byte {
	p := corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name}}
	for i, d := range docs {
		e := metav1.ManagedFieldsEntry{Manager: fmt.Sprint("m", i), FieldsType: "FieldsV1"}
		if d != nil {
			e.FieldsV1 = &metav1.FieldsV1{Raw: d}
		}
		p.ManagedFields = append(p.ManagedFields, e)
	}
	b, err := json.Marshal(p)
	if err != nil {
		panic(err)
	}
	return b
}

// TestDocsAreHeldOncePerStrings decodes Pods through one Strings and
// checks which managedFields documents share bytes: equal ones do, within
// the bounds; different ones, and those decoded without a Strings, do not;
// every value is what sigs.k8s.io/json gives.
func TestDocsAreHeldOncePerStrings(t *testing.T) {
	ctrl := []byte(`{"f:metadata":{"f:labels":{".":{},"f:app":{}}}}`)
	kubelet := []byte(`{"f:status":{"f:podIP":{}}}`)
	big := []byte(`{"f:spec":"` + strings.Repeat("x", maxSharedDoc) + `"}`)
	d := New(reflect.TypeFor[corev1.Pod]())
	decode := func(data []byte, strs *Strings) *corev1.Pod {
		t.Helper()
		var got, want corev1.Pod
		if _, err := d.DecodeValue(data, &got, strs); err != nil {
			t.Fatal(err)
		}
		if err := kjson.UnmarshalCaseSensitivePreserveInts(data, &want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(&got, &want) {
			t.Fatalf("decoded %+v, sigs.k8s.io/json gives %+v", got.ManagedFields, want.ManagedFields)
		}
		return &got
	}
	raw := func(p *corev1.Pod, i int) *byte { return &p.ManagedFields[i].FieldsV1.Raw[0] }

	strs := NewStrings(16)
	a := decode(podWithDocs("a", ctrl, kubelet, big), strs)
	b := decode(podWithDocs("b", ctrl, []byte(`{"f:status":{"f:phase":{}}}`), big), strs)
	if raw(a, 0) != raw(b, 0) {
		t.Error("an equal document of one body is not shared")
	}
	if raw(a, 1) == raw(b, 1) {
		t.Error("different documents share bytes")
	}
	if raw(a, 2) == raw(b, 2) {
		t.Error("a document longer than maxSharedDoc was held")
	}
	data := podWithDocs("c", kubelet)
	c := decode(data, strs)
	for i := range data {
		data[i] = ' ' // the documents must not alias the body
	}
	if string(c.ManagedFields[0].FieldsV1.Raw) != string(kubelet) || string(a.ManagedFields[1].FieldsV1.Raw) != string(kubelet) {
		t.Fatal("a document aliases the body it was decoded from")
	}

	// Past maxDocBytes nothing more is held, and what was held still is.
	full := NewStrings(16)
	filler := func(i int) []byte {
		return []byte(`{"f:x":"` + strings.Repeat(string(rune('a'+i)), maxSharedDoc-10) + `"}`)
	}
	for i := range maxDocBytes / maxSharedDoc {
		decode(podWithDocs(fmt.Sprint("f", i), filler(i)), full)
	}
	late := []byte(`{"f:y":"` + strings.Repeat("z", 1000) + `"}`)
	k1 := decode(podWithDocs("k1", late), full)
	k2 := decode(podWithDocs("k2", late), full)
	if raw(k1, 0) == raw(k2, 0) {
		t.Error("a document was held past the byte bound")
	}
	f1 := decode(podWithDocs("f1", filler(3)), full)
	f2 := decode(podWithDocs("f2", filler(3)), full)
	if raw(f1, 0) != raw(f2, 0) {
		t.Error("a document held before the bound was reached is no longer shared")
	}

	n1 := decode(podWithDocs("n1", ctrl), nil)
	n2 := decode(podWithDocs("n2", ctrl), nil)
	if raw(n1, 0) == raw(n2, 0) {
		t.Error("documents decoded without a Strings share bytes")
	}
	// null, an absent FieldsV1 and an empty object keep their meaning.
	e := decode([]byte(`{"metadata":{"managedFields":[{"fieldsV1":null},{},{"fieldsV1":{}}]}}`), strs)
	if e.ManagedFields[0].FieldsV1 != nil || e.ManagedFields[1].FieldsV1 != nil || string(e.ManagedFields[2].FieldsV1.Raw) != "{}" {
		t.Fatalf("got %+v", e.ManagedFields)
	}
}
