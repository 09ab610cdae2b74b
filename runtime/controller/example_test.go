package controller_test

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/typedinformer/typedinformer/runtime/cache"
	"github.com/typedinformer/typedinformer/runtime/controller"
	"github.com/typedinformer/typedinformer/runtime/fake"
)

// A controller watching ConfigMaps served by the runtime's fake API server:
// each object is reconciled once it is in the informer's cache.
func Example() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	srv := fake.NewServer[*corev1.ConfigMap]()
	srv.Create(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "prices"}})
	informer := cache.NewSharedIndexInformer[*corev1.ConfigMap](srv.ListerWatcher(""), 0, nil)

	reconciled := make(chan controller.Request, 1)
	c, err := controller.New("configmaps", controller.ReconcilerFunc(func(ctx context.Context, req controller.Request) (controller.Result, error) {
		cm, exists, err := informer.GetIndexer().GetByKey(req.String())
		if err != nil {
			return controller.Result{}, err
		}
		if exists && cm.Data == nil {
			reconciled <- req
		}
		return controller.Result{}, nil
	}), controller.Options{MaxConcurrentReconciles: 2, CacheSyncTimeout: time.Minute})
	if err != nil {
		panic(err)
	}
	if err := controller.Watch(c, informer, controller.EnqueueRequestForObject[*corev1.ConfigMap](),
		controller.ResourceVersionChangedPredicate[*corev1.ConfigMap]()); err != nil {
		panic(err)
	}

	go informer.Run(ctx) // the caller starts informers (usually through a factory)
	done := make(chan error)
	go func() { done <- c.Start(ctx) }()

	fmt.Println("reconciled", <-reconciled)
	cancel()
	fmt.Println("stopped:", <-done)
	// Output:
	// reconciled shop/prices
	// stopped: <nil>
}
