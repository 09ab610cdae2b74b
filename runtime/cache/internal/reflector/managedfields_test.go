package reflector

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

const testFieldsDoc = `{"f:metadata":{"f:labels":{".":{},"f:app":{}}}}`

func fieldsPod(name string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: name, ManagedFields: []metav1.ManagedFieldsEntry{
		{Manager: "kcm", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1", FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(testFieldsDoc)}},
	}}}
}

func unstructuredPod(t *testing.T, name string) *unstructured.Unstructured {
	t.Helper()
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(fieldsPod(name))
	if err != nil {
		t.Fatal(err)
	}
	u := &unstructured.Unstructured{Object: m}
	u.SetAPIVersion("v1")
	u.SetKind("Pod")
	return u
}

// TestFieldsCacheSharesEqualDocuments checks that the managedFields cache
// shares equal documents of typed objects (their bytes) and of
// unstructured objects (their fieldsV1 maps), leaving every object equal
// to what it was, and shares nothing between different documents.
func TestFieldsCacheSharesEqualDocuments(t *testing.T) {
	otherDoc := func(o metav1.Object) metav1.Object {
		u := o.(*unstructured.Unstructured)
		mf := u.Object["metadata"].(map[string]any)["managedFields"].([]any)
		mf[0].(map[string]any)["fieldsV1"] = map[string]any{"f:spec": map[string]any{}}
		return u
	}
	tests := []struct {
		name   string
		objs   func(t *testing.T) []metav1.Object
		typed  int // documents the cache remembers
		trees  int
		shared bool // the first two objects' documents are one
	}{
		{"typed Pods with equal documents", func(*testing.T) []metav1.Object {
			return []metav1.Object{fieldsPod("p1"), fieldsPod("p2")}
		}, 1, 0, true},
		{"unstructured Pods with equal documents", func(t *testing.T) []metav1.Object {
			return []metav1.Object{unstructuredPod(t, "p1"), unstructuredPod(t, "p2"), unstructuredPod(t, "p3")}
		}, 0, 1, true},
		{"unstructured Pods with different documents", func(t *testing.T) []metav1.Object {
			return []metav1.Object{unstructuredPod(t, "p1"), otherDoc(unstructuredPod(t, "p2"))}
		}, 0, 2, false},
		{"unstructured objects without managedFields", func(*testing.T) []metav1.Object {
			return []metav1.Object{
				&unstructured.Unstructured{Object: map[string]any{"metadata": map[string]any{"name": "a"}}},
				&unstructured.Unstructured{Object: map[string]any{"metadata": map[string]any{"managedFields": "not a list"}}},
				&unstructured.Unstructured{Object: map[string]any{"metadata": map[string]any{"managedFields": []any{"not an entry", map[string]any{"fieldsV1": "not a map"}}}}},
			}
		}, 0, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c fieldsCache
			objs := tt.objs(t)
			var before []any
			for _, o := range objs {
				before = append(before, o.(runtime.Object).DeepCopyObject())
			}
			for _, o := range objs {
				c.shareManagedFields(o)
			}
			if got := c.docs.Len(); got != tt.typed {
				t.Errorf("the cache holds %d byte documents, want %d", got, tt.typed)
			}
			if got := c.trees.Len(); got != tt.trees {
				t.Errorf("the cache holds %d unstructured documents, want %d", got, tt.trees)
			}
			for i, o := range objs {
				if !reflect.DeepEqual(o, before[i]) {
					t.Fatalf("object %d changed: %#v", i, o)
				}
			}
			if len(objs) < 2 || tt.typed+tt.trees == 0 {
				return
			}
			var one bool
			if tt.typed > 0 {
				a, b := objs[0].GetManagedFields()[0].FieldsV1.Raw, objs[1].GetManagedFields()[0].FieldsV1.Raw
				one = &a[0] == &b[0]
			} else {
				doc := func(o metav1.Object) map[string]any {
					mf := o.(*unstructured.Unstructured).Object["metadata"].(map[string]any)["managedFields"].([]any)
					return mf[0].(map[string]any)["fieldsV1"].(map[string]any)
				}
				one = sameMap(doc(objs[0]), doc(objs[1]))
			}
			if one != tt.shared {
				t.Fatalf("the first two objects share their document: %v, want %v", one, tt.shared)
			}
		})
	}
}
