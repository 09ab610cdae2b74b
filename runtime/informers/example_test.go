package informers_test

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/typedinformer/typedinformer/runtime/cache"
	"github.com/typedinformer/typedinformer/runtime/informers"
	"github.com/typedinformer/typedinformer/runtime/listers"
)

// Generated factories call InformerFor with a constructor over the user's
// clientset; here the constructor serves pods from memory.
func ExampleInformerFor() {
	src := newPodSource(newPod("shop", "web"), newPod("shop", "db"), newPod("lab", "test"))
	factory := informers.NewFactory(10*time.Minute, informers.WithNamespaces("shop", "lab"))

	pods := informers.InformerFor(factory, true, src.newInformer)
	lister := listers.New(pods.GetIndexer(), schema.GroupResource{Resource: "pods"})

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	factory.Start(ctx)
	defer factory.Shutdown()
	if _, err := factory.WaitForCacheSync(ctx); err != nil {
		fmt.Println(err)
		return
	}
	shop, _ := lister.Namespace("shop").List(labels.Everything())
	all, _ := lister.List(labels.Everything())
	fmt.Println(len(shop), len(all))
	// Output: 2 3
}

// RemoveInformer stops one informer while the rest of the factory runs on.
func ExampleFactory_RemoveInformer() {
	src := newPodSource(newPod("shop", "web"))
	factory := informers.NewFactory(0)
	pods := informers.InformerFor(factory, true, src.newInformer)
	factory.Start(context.Background())
	defer factory.Shutdown()
	_ = cache.WaitForSync(context.Background(), pods)

	err := factory.RemoveInformer(&corev1.Pod{})
	fmt.Println(err, pods.IsStopped())
	// Output: <nil> true
}
