package fake_test

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/typedinformer/typedinformer/runtime/fake"
)

// A Server serves a ListerWatcher with real resourceVersion semantics:
// a list returns the state and its resourceVersion, a watch from that
// version streams what changed after it, and once history is compacted the
// same watch gets a 410 Expired ERROR event.
func Example() {
	ctx := context.Background()
	srv := fake.NewServer[*corev1.Pod](fake.WithResource(schema.GroupResource{Resource: "pods"}))
	p, _ := srv.Create(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"}})
	lw := srv.ListerWatcher("default")

	obj, _ := lw.List(ctx, metav1.ListOptions{ResourceVersion: "0"})
	list := obj.(*fake.List[*corev1.Pod])
	fmt.Println("listed", len(list.Items), "at", list.ResourceVersion)

	w, _ := lw.Watch(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion})
	p.Labels = map[string]string{"tier": "frontend"}
	srv.Update(p)
	ev := <-w.ResultChan()
	fmt.Println(ev.Type, ev.Object.(*corev1.Pod).Name, ev.Object.(*corev1.Pod).ResourceVersion)
	w.Stop()

	srv.Compact()
	w, _ = lw.Watch(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion})
	ev = <-w.ResultChan()
	fmt.Println(ev.Type, apierrors.IsResourceExpired(apierrors.FromObject(ev.Object)))

	srv.FailNextList(apierrors.NewForbidden(srv.Resource(), "", fmt.Errorf("RBAC")))
	_, err := lw.List(ctx, metav1.ListOptions{})
	fmt.Println(apierrors.IsForbidden(err))
	// Output:
	// listed 1 at 2
	// MODIFIED web 3
	// ERROR true
	// true
}
