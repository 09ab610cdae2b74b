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

// TestFieldsCacheKeepsNothingOfUnstructuredObjects checks that the
// managedFields cache remembers the documents of typed objects, sharing
// equal ones, and nothing of unstructured objects, which it leaves as they
// were (their managedFields are maps, not the bytes GetManagedFields
// converts them into).
func TestFieldsCacheKeepsNothingOfUnstructuredObjects(t *testing.T) {
	tests := []struct {
		name       string
		objs       func(t *testing.T) []metav1.Object
		remembered int
	}{
		{"typed Pods with equal documents", func(*testing.T) []metav1.Object {
			return []metav1.Object{fieldsPod("p1"), fieldsPod("p2")}
		}, 1},
		{"unstructured Pods with equal documents", func(t *testing.T) []metav1.Object {
			return []metav1.Object{unstructuredPod(t, "p1"), unstructuredPod(t, "p2")}
		}, 0},
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
			if got := c.docs.Len(); got != tt.remembered {
				t.Fatalf("the cache holds %d documents, want %d", got, tt.remembered)
			}
			for i, o := range objs {
				if !reflect.DeepEqual(o, before[i]) {
					t.Fatalf("object %d changed: %#v", i, o)
				}
			}
			if tt.remembered > 0 {
				a, b := objs[0].GetManagedFields()[0].FieldsV1.Raw, objs[1].GetManagedFields()[0].FieldsV1.Raw
				if &a[0] != &b[0] {
					t.Fatal("equal documents of typed objects are not shared")
				}
			}
		})
	}
}
