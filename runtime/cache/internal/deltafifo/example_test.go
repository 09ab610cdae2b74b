package deltafifo_test

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/typedinformer/typedinformer/runtime/cache"
	"github.com/typedinformer/typedinformer/runtime/cache/internal/deltafifo"
)

// A Queue queues every change in arrival order, across keys; a relist
// (Replace) queues tombstones for the deletes it implies, then its items in
// list order. The known objects here are a runtime/cache store, as in an
// informer.
func ExampleQueue() {
	store := cache.NewStore[*corev1.Pod]()
	store.Add(examplePod("ns", "old"))
	f := deltafifo.New[*corev1.Pod](store)

	a, b := examplePod("ns", "a"), examplePod("ns", "b")
	f.Add(a)
	f.Add(b)
	f.Update(a)
	f.Replace([]*corev1.Pod{a, b}, "10") // "old" is gone from the server

	for f.Len() > 0 {
		f.Pop(func(d deltafifo.Delta[*corev1.Pod], initial bool) error {
			fmt.Printf("%s %s finalStateUnknown=%t\n", d.Key(), d.Type, d.FinalStateUnknown)
			return nil
		})
	}
	// Output:
	// ns/a Added finalStateUnknown=false
	// ns/b Added finalStateUnknown=false
	// ns/a Updated finalStateUnknown=false
	// ns/old Deleted finalStateUnknown=true
	// ns/a Replaced finalStateUnknown=false
	// ns/b Replaced finalStateUnknown=false
}

func examplePod(ns, name string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
}
