package cache_test

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/typedinformer/typedinformer/runtime/cache"
)

// The one-argument Funcs forward every notification, drop the flags, and
// ignore nil functions; a tombstone reaches DeleteFunc as the typed last
// known object.
func TestResourceEventHandlerFuncsOneArgumentShapes(t *testing.T) {
	pod := func(name, rv string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: name, ResourceVersion: rv}}
	}
	var h cache.ResourceEventHandler[*corev1.Pod] = cache.ResourceEventHandlerFuncs[*corev1.Pod]{}
	h.OnAdd(pod("p", "1"), true)
	h.OnUpdate(pod("p", "1"), pod("p", "2"))
	h.OnDelete(pod("p", "2"), true)

	var got []string
	enqueue := func(p *corev1.Pod) { got = append(got, "enqueue "+p.Name+"@"+p.ResourceVersion) }
	h = cache.ResourceEventHandlerFuncs[*corev1.Pod]{
		AddFunc:    enqueue,
		UpdateFunc: func(o, n *corev1.Pod) { got = append(got, "update "+o.ResourceVersion+"->"+n.ResourceVersion) },
		DeleteFunc: func(p *corev1.Pod) { got = append(got, "delete "+p.Name+"@"+p.ResourceVersion) },
	}
	h.OnAdd(pod("p", "1"), true)
	h.OnAdd(pod("q", "1"), false)
	h.OnUpdate(pod("p", "1"), pod("p", "2"))
	h.OnDelete(pod("p", "2"), false)
	h.OnDelete(pod("q", "1"), true) // tombstone: last known state
	if want := "[enqueue p@1 enqueue q@1 update 1->2 delete p@2 delete q@1]"; fmt.Sprint(got) != want {
		t.Fatalf("calls = %q, want %s", got, want)
	}

	// Wrapped in client-go's filtering shape: an update that stops passing
	// the filter is a delete of the old object.
	got = nil
	f := cache.FilteringResourceEventHandler[*corev1.Pod]{
		FilterFunc: func(p *corev1.Pod) bool { return p.ResourceVersion != "9" },
		Handler:    h,
	}
	f.OnUpdate(pod("p", "1"), pod("p", "9"))
	f.OnUpdate(pod("p", "9"), pod("p", "3"))
	if want := "[delete p@1 enqueue p@3]"; fmt.Sprint(got) != want {
		t.Fatalf("filtered calls = %q, want %s", got, want)
	}
}
