package cache_test

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/typedinformer/typedinformer/runtime/cache"
	"github.com/typedinformer/typedinformer/runtime/fake"
)

func examplePod(ns, name, node string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec:       corev1.PodSpec{NodeName: node},
	}
}

// An informer keeps a typed cache of pods in step with the API server and
// calls typed handlers: no interface{} and no tombstone type switch.
func ExampleNewSharedIndexInformer() {
	srv := fake.NewServer[*corev1.Pod]() // stands in for a clientset
	srv.Create(examplePod("default", "web-1", "node-a"))
	srv.Create(examplePod("default", "web-2", "node-b"))

	inf := cache.NewSharedIndexInformer[*corev1.Pod](srv.ListerWatcher(""), 0, cache.Indexers[*corev1.Pod]{
		"node": func(p *corev1.Pod) ([]string, error) { return []string{p.Spec.NodeName}, nil },
	})
	calls := make(chan string, 10)
	reg, _ := inf.AddEventHandler(cache.ResourceEventHandlerDetailedFuncs[*corev1.Pod]{
		AddFunc: func(p *corev1.Pod, initial bool) {
			calls <- fmt.Sprintf("add %s (initial list: %t)", p.Name, initial)
		},
		UpdateFunc: func(old, p *corev1.Pod) {
			calls <- fmt.Sprintf("update %s: %s -> %s", p.Name, old.Spec.NodeName, p.Spec.NodeName)
		},
		DeleteFunc: func(p *corev1.Pod, finalStateUnknown bool) {
			calls <- fmt.Sprintf("delete %s (missed: %t)", p.Name, finalStateUnknown)
		},
	})

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { inf.Run(ctx); close(done) }()
	if err := cache.WaitForSync(ctx, inf, reg); err != nil {
		panic(err)
	}
	fmt.Println(<-calls)
	fmt.Println(<-calls)

	p, _ := srv.Get("default", "web-2")
	p.Spec.NodeName = "node-a"
	srv.Update(p)
	fmt.Println(<-calls)
	srv.Delete("default", "web-1")
	fmt.Println(<-calls)

	onA, _ := inf.GetIndexer().ByIndex("node", "node-a")
	fmt.Println("on node-a:", len(onA), onA[0].Name)
	cancel()
	<-done
	// Output:
	// add web-1 (initial list: true)
	// add web-2 (initial list: true)
	// update web-2: node-b -> node-a
	// delete web-1 (missed: false)
	// on node-a: 1 web-2
}

// An Indexer finds objects by any value an index function computes, and by
// namespace with the built-in NamespaceIndex.
func ExampleIndexer() {
	idx := cache.NewIndexer[*corev1.Pod](cache.Indexers[*corev1.Pod]{
		"node": func(p *corev1.Pod) ([]string, error) { return []string{p.Spec.NodeName}, nil },
	})
	idx.Add(examplePod("shop", "cart", "node-a"))
	idx.Add(examplePod("shop", "checkout", "node-b"))
	idx.Add(examplePod("blog", "web", "node-a"))

	onA, _ := idx.ByIndex("node", "node-a")
	names := make([]string, 0, len(onA))
	for _, p := range onA {
		names = append(names, p.Namespace+"/"+p.Name)
	}
	sort.Strings(names)
	fmt.Println("node-a:", names)

	keys, _ := idx.IndexKeys(cache.NamespaceIndex, "shop")
	sort.Strings(keys)
	fmt.Println("shop:", keys)
	fmt.Println("nodes:", idx.ListIndexFuncValues("node"))

	_, err := idx.ByIndex("zone", "x")
	fmt.Println(err)
	// Output:
	// node-a: [blog/web shop/cart]
	// shop: [shop/cart shop/checkout]
	// nodes: [node-a node-b]
	// index "zone" does not exist
}

// WaitForSync says which informer did not sync and why, here a list
// that RBAC forbids.
func ExampleWaitForSync() {
	pods := schema.GroupResource{Resource: "pods"}
	srv := fake.NewServer[*corev1.Pod](fake.WithResource(pods))
	srv.FailLists(apierrors.NewForbidden(pods, "", errors.New(`User "ci" cannot list resource "pods"`)))
	srv.FailWatches(apierrors.NewForbidden(pods, "", errors.New(`User "ci" cannot watch resource "pods"`)))
	inf := cache.NewSharedIndexInformerWithOptions[*corev1.Pod](srv.ListerWatcher(""), cache.SharedIndexInformerOptions[*corev1.Pod]{
		Resource: pods.WithVersion("v1"),
	})
	inf.SetWatchErrorHandler(func(context.Context, error) {}) // quiet: the example prints it

	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	done := make(chan struct{})
	go func() { inf.Run(ctx); close(done) }()
	err := cache.WaitForSync(ctx, inf)
	<-done
	fmt.Println(err)
	fmt.Println("forbidden:", apierrors.IsForbidden(err), "timed out:", errors.Is(err, context.DeadlineExceeded))
	// Output:
	// caches not synced: pods (last error: list pods: pods is forbidden: User "ci" cannot list resource "pods"): context deadline exceeded
	// forbidden: true timed out: true
}

// A ListWatch adapts a typed clientset's List and Watch to an informer; the
// closures can tweak the options, here to select by label.
func ExampleListWatch() {
	srv := fake.NewServer[*corev1.Pod]()
	for _, tier := range []string{"web", "db", "web"} {
		p := examplePod("shop", "", "")
		p.GenerateName = tier + "-"
		p.Labels = map[string]string{"tier": tier}
		srv.Create(p)
	}
	client := srv.ListerWatcher("shop") // e.g. clientset.CoreV1().Pods("shop")

	lw := &cache.ListWatch{
		ListFunc: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			opts.LabelSelector = "tier=web"
			return client.List(ctx, opts)
		},
		WatchFunc: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			opts.LabelSelector = "tier=web"
			return client.Watch(ctx, opts)
		},
	}
	inf := cache.NewSharedIndexInformer[*corev1.Pod](lw, 0, nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { inf.Run(ctx); close(done) }()
	if err := cache.WaitForSync(ctx, inf); err != nil {
		panic(err)
	}
	keys := inf.GetStore().ListKeys()
	sort.Strings(keys)
	fmt.Println(keys)
	cancel()
	<-done
	// Output:
	// [shop/web-1 shop/web-3]
}
