package wire_test

import (
	"context"
	"fmt"
	"io"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/typedinformer/typedinformer/runtime/cache"
	"github.com/typedinformer/typedinformer/runtime/wire"
)

// An informer over a wire.ListWatch lists item by item. The Fetch here
// answers from a string; with client-go it GETs through a clientset's REST
// client (see Fetch).
func ExampleNewListWatch() {
	fetch := func(_ context.Context, opts metav1.ListOptions, accept string) (io.ReadCloser, string, error) {
		if opts.Watch {
			return io.NopCloser(strings.NewReader("")), "", nil
		}
		return io.NopCloser(strings.NewReader(`{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"5"},
			"items":[{"metadata":{"name":"a","namespace":"ns","resourceVersion":"4"}}]}`)), "application/json", nil
	}
	lw, err := wire.NewListWatch[corev1.Pod](fetch, wire.Options{ContentType: wire.ContentTypeJSON})
	if err != nil {
		panic(err)
	}
	var lister cache.ItemLister[*corev1.Pod] = lw // what the reflector uses instead of List
	lm, err := lister.ListItems(context.Background(), metav1.ListOptions{ResourceVersion: "0"}, func(p *corev1.Pod) error {
		fmt.Println("item", p.Namespace+"/"+p.Name)
		return nil
	})
	if err != nil {
		panic(err)
	}
	fmt.Println("resourceVersion", lm.ResourceVersion)
	// Output:
	// item ns/a
	// resourceVersion 5
}
