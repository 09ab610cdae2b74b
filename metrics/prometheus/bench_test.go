package prometheus

import (
	"context"
	"fmt"
	goruntime "runtime"
	"sync/atomic"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/typedinformer/typedinformer/internal/testutil"
	"github.com/typedinformer/typedinformer/runtime/cache"
)

type countHandler struct{ n atomic.Int64 }

func (h *countHandler) OnAdd(*corev1.Pod, bool)    { h.n.Add(1) }
func (h *countHandler) OnUpdate(_, _ *corev1.Pod)  { h.n.Add(1) }
func (h *countHandler) OnDelete(*corev1.Pod, bool) { h.n.Add(1) }
func (h *countHandler) waitFor(n int64) {
	for h.n.Load() < n {
		goruntime.Gosched()
	}
}

// BenchmarkUpdateThroughput pushes b.N watch updates over 1k keys through an
// informer with one handler, without metrics and with this adapter on a
// registry; ns/op is per event. The bar: on within 10% of off.
func BenchmarkUpdateThroughput(b *testing.B) {
	const keys = 1000
	for _, on := range []bool{false, true} {
		b.Run(fmt.Sprintf("adapter=%v", on), func(b *testing.B) {
			list := &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "1"}, Items: make([]corev1.Pod, keys)}
			for i := range list.Items {
				list.Items[i] = corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: fmt.Sprint("p", i), ResourceVersion: "1"}}
			}
			updates := testutil.PodGenerations(list)
			opts := cache.SharedIndexInformerOptions[*corev1.Pod]{Name: "pods", HandlerBacklogThreshold: -1}
			if on {
				m, err := New(prometheus.NewRegistry())
				if err != nil {
					b.Fatal(err)
				}
				opts.Metrics = m.Informers()
			}
			w := watch.NewFakeWithChanSize(1024, false)
			inf := cache.NewSharedIndexInformerWithOptions[*corev1.Pod](&testutil.StaticLW{Items: list, Events: w}, opts)
			h := &countHandler{}
			if _, err := inf.AddEventHandler(h); err != nil {
				b.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan struct{})
			go func() { inf.Run(ctx); close(done) }()
			h.waitFor(keys)
			testutil.TimeUpdates(b, w, updates, func(n int) { h.waitFor(int64(keys + n)) })
			cancel()
			<-done
		})
	}
}
