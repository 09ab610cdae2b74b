package wire

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// mutableParts records where the maps and the slice arrays of the value v
// (inside the object named at) are, and fails on one already recorded:
// decoded objects must not alias anything that can be changed, between
// objects or inside one. An empty slice has no array to share.
func mutableParts(t *testing.T, seen map[uintptr]string, at string, v any) {
	t.Helper()
	switch v := v.(type) {
	case map[string]any:
		record(t, seen, at, reflect.ValueOf(v).Pointer(), v)
		for k, e := range v {
			mutableParts(t, seen, at+"."+k, e)
		}
	case []any:
		if cap(v) == 0 {
			return
		}
		record(t, seen, at, reflect.ValueOf(v).Pointer(), v)
		for i, e := range v {
			mutableParts(t, seen, fmt.Sprintf("%s[%d]", at, i), e)
		}
	}
}

func record(t *testing.T, seen map[uintptr]string, at string, p uintptr, v any) {
	t.Helper()
	if first, ok := seen[p]; ok {
		t.Fatalf("%s is the same %T as %s", at, v, first)
	}
	seen[p] = at
}

// TestUnstructuredObjectsShareNoMapOrSlice decodes production Pods (equal
// but for names, IPs and times, so that their strings are shared) from a
// list and from a watch stream, and requires every map and every slice
// of every object to be its own, with the objects as apimachinery decodes
// them.
func TestUnstructuredObjectsShareNoMapOrSlice(t *testing.T) {
	const n = 20
	l := &corev1.PodList{TypeMeta: metav1.TypeMeta{Kind: "PodList", APIVersion: "v1"}, ListMeta: metav1.ListMeta{ResourceVersion: "7"}}
	var stream []byte
	for i := range n {
		p := prodPod(i)
		p.Status.Conditions = append(p.Status.Conditions, corev1.PodCondition{Type: "Empty", Status: corev1.ConditionTrue})
		l.Items = append(l.Items, p)
		p.TypeMeta = metav1.TypeMeta{Kind: "Pod", APIVersion: "v1"}
		ev, err := json.Marshal(map[string]any{"type": "ADDED", "object": &p})
		if err != nil {
			t.Fatal(err)
		}
		stream = append(append(stream, ev...), '\n')
	}
	list, err := json.Marshal(l)
	if err != nil {
		t.Fatal(err)
	}
	var want unstructured.UnstructuredList
	if _, _, err := unstructured.UnstructuredJSONScheme.Decode(list, nil, &want); err != nil || len(want.Items) != n {
		t.Fatal(err, len(want.Items))
	}
	for _, tc := range []struct {
		name   string
		decode func(t *testing.T) []*unstructured.Unstructured
	}{
		{"list", func(t *testing.T) []*unstructured.Unstructured {
			var got []*unstructured.Unstructured
			if _, err := newUnstructured(t, list).ListItems(context.Background(), metav1.ListOptions{}, func(u *unstructured.Unstructured) error {
				got = append(got, u)
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			return got
		}},
		{"watch", func(t *testing.T) []*unstructured.Unstructured {
			w, err := newUnstructured(t, stream).Watch(context.Background(), metav1.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Stop()
			var got []*unstructured.Unstructured
			for e := range w.ResultChan() {
				u, ok := e.Object.(*unstructured.Unstructured)
				if !ok {
					t.Fatalf("%s event of %T", e.Type, e.Object)
				}
				got = append(got, u)
			}
			return got
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.decode(t)
			if len(got) != n {
				t.Fatalf("%d objects, want %d", len(got), n)
			}
			seen := map[uintptr]string{}
			for i, u := range got {
				mutableParts(t, seen, fmt.Sprintf("object %d", i), u.Object)
				if !reflect.DeepEqual(u.Object, want.Items[i].Object) {
					t.Fatalf("object %d is not what apimachinery decodes", i)
				}
			}
		})
	}
}
