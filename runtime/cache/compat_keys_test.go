package cache_test

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/typedinformer/typedinformer/runtime/cache"
)

// The key helpers give client-go's keys: "ns/name", or "name" without a
// namespace; an ExplicitKey passes through; a value without metadata is an
// error.
func TestCompatKeyFuncs(t *testing.T) {
	namespaced := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web"}}
	cluster := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}}
	for _, tc := range []struct {
		obj  any
		want string
	}{
		{namespaced, "shop/web"},
		{cluster, "n1"},
		{cache.ExplicitKey("any/thing"), "any/thing"},
	} {
		for name, f := range map[string]func(any) (string, error){
			"MetaNamespaceKeyFunc":                 cache.MetaNamespaceKeyFunc,
			"DeletionHandlingMetaNamespaceKeyFunc": cache.DeletionHandlingMetaNamespaceKeyFunc,
		} {
			if got, err := f(tc.obj); err != nil || got != tc.want {
				t.Errorf("%s(%T) = %q, %v; want %q", name, tc.obj, got, err, tc.want)
			}
		}
	}
	if _, err := cache.MetaNamespaceKeyFunc("not an object"); err == nil {
		t.Error("MetaNamespaceKeyFunc(string) succeeded; want an error")
	}
	if _, err := cache.ObjectToName(42); err == nil || !strings.Contains(err.Error(), "metadata") {
		t.Errorf("ObjectToName(42) error = %v; want one saying the object has no metadata", err)
	}

	n, err := cache.ObjectToName(namespaced)
	if err != nil || n != cache.NewObjectName("shop", "web") || n != cache.MetaObjectToName(namespaced) {
		t.Fatalf("ObjectToName = %+v, %v", n, err)
	}
	if ns, name := n.Parts(); ns != "shop" || name != "web" || n.String() != "shop/web" {
		t.Errorf("Parts/String = %q %q %q", ns, name, n.String())
	}
	if cache.NewObjectName("", "n1").String() != "n1" {
		t.Errorf("cluster-scoped String = %q, want n1", cache.NewObjectName("", "n1").String())
	}
	nn := types.NamespacedName{Namespace: "shop", Name: "web"}
	if n.AsNamespacedName() != nn || cache.NamespacedNameAsObjectName(nn) != n {
		t.Error("NamespacedName round trip changed the name")
	}
	if d, err := cache.DeletionHandlingObjectToName(cache.ExplicitKey("shop/web")); err != nil || d != n {
		t.Errorf("DeletionHandlingObjectToName(ExplicitKey) = %+v, %v", d, err)
	}
	// A tombstone, as a value or a pointer, answers with its key.
	for _, tomb := range []any{cache.DeletedFinalStateUnknown{Key: "shop/web"}, &cache.DeletedFinalStateUnknown{Key: "shop/web"}} {
		if d, err := cache.DeletionHandlingObjectToName(tomb); err != nil || d != n {
			t.Errorf("DeletionHandlingObjectToName(%T) = %+v, %v", tomb, d, err)
		}
		if k, err := cache.DeletionHandlingMetaNamespaceKeyFunc(tomb); err != nil || k != "shop/web" {
			t.Errorf("DeletionHandlingMetaNamespaceKeyFunc(%T) = %q, %v", tomb, k, err)
		}
	}
}

// SplitMetaNamespaceKey and ParseObjectName follow client-go: zero or one
// slash split, more is an error naming the key.
func TestCompatSplitMetaNamespaceKey(t *testing.T) {
	for _, tc := range []struct{ key, ns, name string }{
		{"web", "", "web"},
		{"shop/web", "shop", "web"},
		{"shop/", "shop", ""},
		{"/web", "", "web"},
		{"", "", ""},
	} {
		ns, name, err := cache.SplitMetaNamespaceKey(tc.key)
		if err != nil || ns != tc.ns || name != tc.name {
			t.Errorf("SplitMetaNamespaceKey(%q) = %q, %q, %v; want %q, %q", tc.key, ns, name, err, tc.ns, tc.name)
		}
		if n, err := cache.ParseObjectName(tc.key); err != nil || n != cache.NewObjectName(tc.ns, tc.name) {
			t.Errorf("ParseObjectName(%q) = %+v, %v", tc.key, n, err)
		}
	}
	if _, _, err := cache.SplitMetaNamespaceKey("a/b/c"); err == nil || !strings.Contains(err.Error(), `"a/b/c"`) {
		t.Errorf("SplitMetaNamespaceKey(a/b/c) error = %v; want one naming the key", err)
	}
	if _, err := cache.ParseObjectName("a/b/c"); err == nil {
		t.Error("ParseObjectName(a/b/c) succeeded")
	}
}

// MetaNamespaceIndexFunc fills NamespaceIndex in a typed Indexers map.
func TestCompatMetaNamespaceIndexFunc(t *testing.T) {
	idx := cache.NewIndexer(cache.Indexers[*corev1.Pod]{"ns": cache.MetaNamespaceIndexFunc[*corev1.Pod]})
	for _, p := range []*corev1.Pod{
		{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "1"}},
		{ObjectMeta: metav1.ObjectMeta{Namespace: "b", Name: "2"}},
	} {
		if err := idx.Add(p); err != nil {
			t.Fatal(err)
		}
	}
	got, err := idx.ByIndex("ns", "b")
	if err != nil || len(got) != 1 || got[0].Name != "2" {
		t.Fatalf("ByIndex(ns, b) = %v, %v; want the pod b/2", got, err)
	}
}
