package crcache_test

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/typedinformer/typedinformer/crcache"
)

// TestInformersFollowTheServer: typed and metadata-only informers of our
// cache deliver a created, updated and deleted object to their handlers in
// order, and reads follow.
func TestInformersFollowTheServer(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cfg := adminConfig()
	sch := testScheme(t)
	writer, err := client.New(cfg, client.Options{Scheme: sch})
	if err != nil {
		t.Fatal(err)
	}
	if err := writer.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "follow"}}); err != nil {
		t.Fatal(err)
	}
	c, err := crcache.New(cfg, cache.Options{Scheme: sch, DefaultNamespaces: map[string]cache.Config{"follow": {}}})
	if err != nil {
		t.Fatal(err)
	}
	pom := &metav1.PartialObjectMetadata{}
	pom.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("ConfigMap"))
	events := map[string]chan string{"typed": make(chan string, 10), "metadata": make(chan string, 10)}
	for name, obj := range map[string]client.Object{"typed": &corev1.ConfigMap{}, "metadata": pom} {
		inf, err := c.GetInformer(ctx, obj, cache.BlockUntilSynced(false))
		if err != nil {
			t.Fatal(err)
		}
		ch := events[name]
		if _, err := inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
			AddFunc:    func(o any) { ch <- "add " + o.(client.Object).GetName() },
			UpdateFunc: func(_, o any) { ch <- "update " + o.(client.Object).GetLabels()["v"] },
			DeleteFunc: func(o any) {
				if d, ok := o.(toolscache.DeletedFinalStateUnknown); ok {
					o = d.Obj
				}
				ch <- "delete " + o.(client.Object).GetName()
			},
		}); err != nil {
			t.Fatal(err)
		}
	}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- c.Start(runCtx) }()
	defer func() {
		stop()
		if err := <-done; err != nil {
			t.Errorf("Start: %v", err)
		}
	}()
	if !c.WaitForCacheSync(ctx) {
		t.Fatal("not synced")
	}
	inf, _ := c.GetInformer(ctx, &corev1.ConfigMap{})
	select {
	case <-inf.HasSyncedChecker().Done():
	case <-ctx.Done():
		t.Fatal("HasSyncedChecker never done")
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "follow", Name: "x", Labels: map[string]string{"v": "1"}}}
	if err := writer.Create(ctx, cm); err != nil {
		t.Fatal(err)
	}
	cm.Labels["v"] = "2"
	if err := writer.Update(ctx, cm); err != nil {
		t.Fatal(err)
	}
	if err := writer.Delete(ctx, cm); err != nil {
		t.Fatal(err)
	}
	for name, ch := range events {
		for _, want := range []string{"add x", "update 2", "delete x"} {
			select {
			case got := <-ch:
				if got != want {
					t.Errorf("%s: event %q, want %q", name, got, want)
				}
			case <-ctx.Done():
				t.Fatalf("%s: no %q event", name, want)
			}
		}
	}
	if err := c.Get(ctx, client.ObjectKeyFromObject(cm), &corev1.ConfigMap{}); !apierrors.IsNotFound(err) {
		t.Errorf("Get after the delete event: %v, want NotFound", err)
	}
	if err := c.Get(ctx, client.ObjectKey{Namespace: "elsewhere", Name: "x"}, &corev1.ConfigMap{}); err == nil {
		t.Error("Get from a namespace the cache does not hold succeeded")
	}
}
