package crcache

import (
	"fmt"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	samplesv1alpha1 "github.com/typedinformer/typedinformer/examples/crd/apis/samples/v1alpha1"
)

// copyReader is a reader over a client-go indexer holding objs (all of one
// type), with the copier of that type.
func copyReader(t *testing.T, objs ...runtime.Object) *reader {
	t.Helper()
	idx := toolscache.NewIndexer(toolscache.MetaNamespaceKeyFunc, toolscache.Indexers{toolscache.NamespaceIndex: toolscache.MetaNamespaceIndexFunc})
	for _, o := range objs {
		if err := idx.Add(o); err != nil {
			t.Fatal(err)
		}
	}
	return &reader{
		indexer: idx,
		gvk:     corev1.SchemeGroupVersion.WithKind("Pod"),
		scope:   meta.RESTScopeNameNamespace,
		copier:  newCopier(reflect.TypeOf(objs[0])),
	}
}

// TestReadsCopyOnce: Get and List return what DeepCopyObject returns, with
// the GVK set, sharing no memory with the cache, for typed objects (by the
// copy plan), PartialObjectMetadata and a custom resource.
func TestReadsCopyOnce(t *testing.T) {
	const n = 6
	cases := []struct {
		name    string
		newObj  func(i int) client.Object
		newList func() client.ObjectList
		planned bool
	}{
		{"Pod", func(i int) client.Object {
			p := &corev1.Pod{}
			filler(int64(i)).Fill(p)
			return p
		}, func() client.ObjectList { return &corev1.PodList{} }, true},
		{"PartialObjectMetadata", func(i int) client.Object {
			p := &metav1.PartialObjectMetadata{}
			filler(int64(i)).Fill(p)
			return p
		}, func() client.ObjectList { return &metav1.PartialObjectMetadataList{} }, true},
		{"Foo", func(i int) client.Object {
			p := &samplesv1alpha1.Foo{}
			filler(int64(i)).Fill(p)
			return p
		}, func() client.ObjectList { return &samplesv1alpha1.FooList{} }, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var objs []runtime.Object
			for i := range n {
				o := c.newObj(i)
				o.SetNamespace("ns")
				o.SetName(fmt.Sprintf("o-%d", i))
				objs = append(objs, o)
			}
			r := copyReader(t, objs...)
			if got := r.copier.plan != nil; got != c.planned {
				t.Fatalf("planned %v, want %v", got, c.planned)
			}
			want := func(o runtime.Object) runtime.Object {
				w := o.DeepCopyObject()
				w.GetObjectKind().SetGroupVersionKind(r.gvk)
				return w
			}
			for _, o := range objs {
				obj := o.(client.Object)
				out := c.newObj(99) // overwritten whole
				if err := r.Get(t.Context(), client.ObjectKeyFromObject(obj), out); err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(out, want(o)) {
					t.Fatalf("Get %s differs from DeepCopyObject's", obj.GetName())
				}
				if s := sharedMemory(reflect.ValueOf(out), reflect.ValueOf(o)); s != "" {
					t.Fatalf("Get %s shares %s", obj.GetName(), s)
				}
			}
			list := c.newList()
			if err := r.List(t.Context(), list, client.InNamespace("ns")); err != nil {
				t.Fatal(err)
			}
			items, err := meta.ExtractList(list)
			if err != nil {
				t.Fatal(err)
			}
			if len(items) != n {
				t.Fatalf("List: %d items, want %d", len(items), n)
			}
			for _, item := range items {
				key := client.ObjectKeyFromObject(item.(client.Object)).String()
				cached, _, _ := r.indexer.GetByKey(key)
				if !reflect.DeepEqual(item, want(cached.(runtime.Object))) {
					t.Fatalf("List item %s differs from DeepCopyObject's", key)
				}
			}
			if s := sharedMemory(reflect.ValueOf(list), reflect.ValueOf(objs)); s != "" {
				t.Fatalf("List shares %s", s)
			}
			// Slices carved from one slab end where the next begins.
			if p := roomBeyondLen(reflect.ValueOf(list), "list"); p != "" {
				t.Fatalf("List: %s has room past its length: an append would write into another slice", p)
			}
			// UnsafeDisableDeepCopy returns the cached objects themselves.
			list = c.newList()
			if err := r.List(t.Context(), list, client.InNamespace("ns"), client.UnsafeDisableDeepCopy); err != nil {
				t.Fatal(err)
			}
			if s := sharedMemory(reflect.ValueOf(list), reflect.ValueOf(objs)); s == "" {
				t.Fatal("List with UnsafeDisableDeepCopy copied")
			}
		})
	}
}

// TestListAllocations: a List of Pods costs at most half the allocations of
// one DeepCopyObject per Pod.
func TestListAllocations(t *testing.T) {
	var objs []runtime.Object
	for i := range 50 {
		p := &corev1.Pod{}
		filler(int64(i)).NilChance(0.5).NumElements(1, 2).Fill(p)
		p.Namespace, p.Name = "ns", fmt.Sprintf("p-%d", i)
		objs = append(objs, p)
	}
	r := copyReader(t, objs...)
	deepCopy := testing.AllocsPerRun(5, func() {
		for _, o := range objs {
			_ = o.DeepCopyObject()
		}
	})
	list := testing.AllocsPerRun(5, func() {
		if err := r.List(t.Context(), &corev1.PodList{}, client.InNamespace("ns"), client.UnsafeDisableDeepCopy); err != nil {
			t.Fatal(err)
		}
	})
	copied := testing.AllocsPerRun(5, func() {
		if err := r.List(t.Context(), &corev1.PodList{}, client.InNamespace("ns"), &client.ListOptions{UnsafeDisableDeepCopy: ptr.To(false)}); err != nil {
			t.Fatal(err)
		}
	})
	t.Logf("%d Pods: DeepCopyObject %.0f allocations, List %.0f (%.0f without copies)", len(objs), deepCopy, copied, list)
	if copied-list > deepCopy/2 {
		t.Fatalf("List copies cost %.0f allocations, DeepCopyObject %.0f", copied-list, deepCopy)
	}
}

// roomBeyondLen names a slice v reaches whose capacity exceeds its length,
// or is "".
func roomBeyondLen(v reflect.Value, path string) string {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			return roomBeyondLen(v.Elem(), path)
		}
	case reflect.Slice:
		if v.Cap() > v.Len() {
			return path
		}
		for i := range v.Len() {
			if p := roomBeyondLen(v.Index(i), fmt.Sprintf("%s[%d]", path, i)); p != "" {
				return p
			}
		}
	case reflect.Map:
		for it := v.MapRange(); it.Next(); {
			if p := roomBeyondLen(it.Value(), fmt.Sprintf("%s[%v]", path, it.Key())); p != "" {
				return p
			}
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				if p := roomBeyondLen(v.Field(i), path+"."+v.Type().Field(i).Name); p != "" {
					return p
				}
			}
		}
	}
	return ""
}
