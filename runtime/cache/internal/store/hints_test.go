package store

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func hintPods(ns string, n int) []*corev1.Pod {
	out := make([]*corev1.Pod, n)
	for i := range out {
		out[i] = &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprint("p", i), ResourceVersion: "1"}}
	}
	return out
}

// A list announced to an empty store sizes each namespace's storage once,
// for all of its items, and changes no content until the items are stored.
func TestIndexerReserveForSizesBucketsWithoutChangingContent(t *testing.T) {
	s := New[*corev1.Pod](Indexers[*corev1.Pod]{"node": byNodeName})
	a, b := hintPods("a", 300), hintPods("b", 5)
	// Interleaved, as a list need not be grouped by namespace.
	var list []*corev1.Pod
	for _, part := range [][]*corev1.Pod{a[:100], b[:2], a[100:], b[2:]} {
		list = append(list, part...)
	}
	s.ReserveFor(list)
	if got := s.List(); len(got) != 0 {
		t.Fatalf("the store holds %d objects after reserveFor, want none", len(got))
	}
	if got := s.ListIndexFuncValues(NamespaceIndex); len(got) != 0 {
		t.Fatalf("namespaces %v after reserveFor, want none", got)
	}
	for _, p := range list {
		if err := s.Add(p); err != nil {
			t.Fatal(err)
		}
	}
	for ns, want := range map[string]int{"a": 300, "b": 5} {
		bk := s.buckets[ns]
		if cap(bk.objs) != want || len(bk.objs) != want {
			t.Errorf("namespace %s: %d objects in room for %d, want %d in room for %d", ns, len(bk.objs), cap(bk.objs), want, want)
		}
		if got := len(bk.names.slots); got != nameTableSize(want) {
			t.Errorf("namespace %s: name table of %d slots, want %d", ns, got, nameTableSize(want))
		}
	}
	if s.sizeHints != nil {
		t.Errorf("hints %v left after every hinted namespace was created", s.sizeHints)
	}
	if err := s.checkInvariants(); err != nil {
		t.Fatal(err)
	}
}

// A store holding objects takes no hint: on a relist most items update
// objects it holds. Replace forgets hints not taken.
func TestIndexerReserveForIgnoredByNonEmptyStoreAndForgottenByReplace(t *testing.T) {
	s := New[*corev1.Pod](nil)
	if err := s.Add(hintPods("a", 1)[0]); err != nil {
		t.Fatal(err)
	}
	s.ReserveFor(hintPods("b", 100))
	if s.sizeHints != nil {
		t.Fatalf("a non-empty store took hints %v", s.sizeHints)
	}
	empty := New[*corev1.Pod](nil)
	empty.ReserveFor(hintPods("b", 100))
	if empty.sizeHints["b"] != 100 {
		t.Fatalf("hints %v, want b:100", empty.sizeHints)
	}
	if err := empty.Replace(hintPods("c", 2), "1"); err != nil {
		t.Fatal(err)
	}
	if empty.sizeHints != nil {
		t.Fatalf("hints %v survived Replace", empty.sizeHints)
	}
}
