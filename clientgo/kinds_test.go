package clientgo_test

import (
	"context"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	toolscache "k8s.io/client-go/tools/cache"

	"github.com/typedinformer/typedinformer/clientgo"
	"github.com/typedinformer/typedinformer/runtime/lean"
)

var podGVK = schema.GroupVersionKind{Version: "v1", Kind: "Pod"}

func unstructuredPod(ns, name, rv string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(podGVK)
	u.SetNamespace(ns)
	u.SetName(name)
	u.SetResourceVersion(rv)
	return u
}

func metadataPod(ns, name, rv string) *metav1.PartialObjectMetadata {
	m := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, ResourceVersion: rv}}
	m.SetGroupVersionKind(podGVK)
	return m
}

// kindRecorder records the Go type, key and resourceVersion of whatever
// the handler gets.
func kindRecorder(t *transcript) toolscache.ResourceEventHandler {
	d := func(obj any) string {
		if ts, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
			return fmt.Sprintf("tombstone %s %T", ts.Key, ts.Obj)
		}
		o := obj.(metav1.Object)
		return fmt.Sprintf("%T %s/%s rv=%s", obj, o.GetNamespace(), o.GetName(), o.GetResourceVersion())
	}
	return toolscache.ResourceEventHandlerDetailedFuncs{
		AddFunc:    func(obj any, initial bool) { t.add("add %s initial=%v", d(obj), initial) },
		UpdateFunc: func(o, n any) { t.add("update %s -> %s", d(o), d(n)) },
		DeleteFunc: func(obj any) { t.add("delete %s", d(obj)) },
	}
}

// TestUnstructuredAndMetadataMatchClientGo: the informer serves
// *unstructured.Unstructured and *metav1.PartialObjectMetadata as
// client-go's does (controller-runtime uses both).
func TestUnstructuredAndMetadataMatchClientGo(t *testing.T) {
	uList := &unstructured.UnstructuredList{Object: map[string]any{"metadata": map[string]any{"resourceVersion": "10"}}}
	uList.Items = []unstructured.Unstructured{*unstructuredPod("a", "u1", "1"), *unstructuredPod("a", "u2", "2")}
	mList := &metav1.PartialObjectMetadataList{ListMeta: metav1.ListMeta{ResourceVersion: "10"},
		Items: []metav1.PartialObjectMetadata{*metadataPod("a", "m1", "1"), *metadataPod("a", "m2", "2")}}
	tests := []struct {
		name    string
		example runtime.Object
		list    runtime.Object
		events  func(w *watch.RaceFreeFakeWatcher)
	}{
		{"unstructured", unstructuredPod("", "", ""), uList, func(w *watch.RaceFreeFakeWatcher) {
			w.Add(unstructuredPod("a", "u3", "11"))
			w.Modify(unstructuredPod("a", "u1", "12"))
			w.Delete(unstructuredPod("a", "u2", "13"))
		}},
		{"metadata-only", metadataPod("", "", ""), mList, func(w *watch.RaceFreeFakeWatcher) {
			w.Add(metadataPod("a", "m3", "11"))
			w.Modify(metadataPod("a", "m1", "12"))
			w.Delete(metadataPod("a", "m2", "13"))
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := map[string]map[string][]string{}
			for _, im := range impls {
				lw := &scriptedLW{lists: []runtime.Object{tc.list}, watches: make(chan *watch.RaceFreeFakeWatcher, 4)}
				inf := im.new(lw, tc.example, 0, toolscache.Indexers{toolscache.NamespaceIndex: toolscache.MetaNamespaceIndexFunc})
				tr := &transcript{}
				if _, err := inf.AddEventHandler(kindRecorder(tr)); err != nil {
					t.Fatal(err)
				}
				ctx, cancel := context.WithCancel(t.Context())
				done := make(chan struct{})
				go func() { defer close(done); inf.RunWithContext(ctx) }()
				tc.events(<-lw.watches)
				tr.waitLen(t, 5)
				byNS, err := inf.GetIndexer().ByIndex(toolscache.NamespaceIndex, "a")
				cancel()
				<-done
				got[im.name] = map[string][]string{"handler": tr.snapshot(), "byNamespace": {fmt.Sprint(len(byNS), err)}}
			}
			compare(t, got)
		})
	}
}

// TestLeanOption: WithLean reaches the runtime's lean transform, after
// the transform set with SetTransform.
func TestLeanOption(t *testing.T) {
	p := pod("a", "p1", "1", "1")
	p.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "kubectl", Operation: metav1.ManagedFieldsOperationApply}}
	lw := &scriptedLW{lists: []runtime.Object{podList("1", p)}, watches: make(chan *watch.RaceFreeFakeWatcher, 4)}
	inf := clientgo.NewInformerFunc(clientgo.WithLean(lean.Default()))(lw, &corev1.Pod{}, 0, nil)
	if err := inf.SetTransform(func(obj any) (any, error) {
		o := obj.(*corev1.Pod)
		if len(o.ManagedFields) == 0 {
			return nil, fmt.Errorf("the lean transform ran before SetTransform's")
		}
		o.Annotations = map[string]string{"transformed": "yes"}
		return o, nil
	}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { defer close(done); inf.RunWithContext(ctx) }()
	defer func() { cancel(); <-done }()
	<-inf.HasSyncedChecker().Done()
	obj, ok, err := inf.GetStore().GetByKey("a/p1")
	if err != nil || !ok {
		t.Fatalf("GetByKey: %v %v", ok, err)
	}
	got := obj.(*corev1.Pod)
	if len(got.ManagedFields) != 0 || got.Annotations["transformed"] != "yes" {
		t.Errorf("cached pod: managedFields %v, annotations %v; want none and transformed=yes", got.ManagedFields, got.Annotations)
	}
	if err := inf.SetTransform(nil); err == nil {
		t.Error("SetTransform after Run: no error")
	}
}
