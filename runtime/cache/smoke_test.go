package cache

import (
	"context"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

func TestSmokeInformerSyncsAndWatches(t *testing.T) {
	fw := watch.NewFake()
	lw := &ListWatch{
		ListFunc: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			return &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "10"}, Items: []corev1.Pod{
				{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "p1", ResourceVersion: "5"}},
			}}, nil
		},
		WatchFunc: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) { return fw, nil },
	}
	inf := NewSharedIndexInformer[*corev1.Pod](lw, 0, nil)
	var mu sync.Mutex
	var events []string
	inf.AddEventHandler(ResourceEventHandlerDetailedFuncs[*corev1.Pod]{
		AddFunc: func(p *corev1.Pod, initial bool) {
			mu.Lock()
			events = append(events, "add "+p.Name)
			mu.Unlock()
		},
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { inf.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done }) // also when the test fails early
	sctx, scancel := context.WithTimeout(ctx, 5*time.Second)
	defer scancel()
	if err := WaitForSync(sctx, inf); err != nil {
		t.Fatal(err)
	}
	fw.Add(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "p2", ResourceVersion: "11"}})
	deadline := time.Now().Add(5 * time.Second)
	for inf.GetStore().Len() != 2 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if inf.GetStore().Len() != 2 {
		t.Fatalf("store has %d", inf.GetStore().Len())
	}
	cancel()
	<-done
	t.Log(events)
}
