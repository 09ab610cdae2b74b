package cache_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/typedinformer/typedinformer/runtime/cache"
	"github.com/typedinformer/typedinformer/runtime/fake"
)

// pullMetrics reads the store gauges itself (cache.StoreGaugeReader) and
// counts the pushes it should no longer get.
type pullMetrics struct {
	*recMetrics
	funcs  atomic.Pointer[[2]func() int]
	pushes atomic.Int32
}

func (p *pullMetrics) NewInformerMetrics(string) cache.InformerMetrics { return p }
func (p *pullMetrics) SetObjects(int)                                  { p.pushes.Add(1) }
func (p *pullMetrics) SetQueueDepth(int)                               { p.pushes.Add(1) }
func (p *pullMetrics) ReadStoreGauges(objects, depth func() int) {
	p.funcs.Store(&[2]func() int{objects, depth})
}

// TestStoreGaugesReadAtScrape: metrics implementing StoreGaugeReader get
// functions that report the store's size and the queue's depth as they
// are, and no SetObjects/SetQueueDepth calls.
func TestStoreGaugesReadAtScrape(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv := fake.NewServer[*corev1.Pod]()
	for i := range 3 {
		create(t, srv, newPod("ns", fmt.Sprintf("p%d", i)))
	}
	m := &pullMetrics{recMetrics: newRecMetrics()}
	inf := cache.NewSharedIndexInformerWithOptions[*corev1.Pod](srv.ListerWatcher(""), cache.SharedIndexInformerOptions[*corev1.Pod]{
		Name: "pods", Metrics: m, Reflector: fastReflector(),
	})
	done := make(chan struct{})
	go func() { defer close(done); inf.Run(ctx) }()
	defer func() { cancel(); <-done }()
	eventually(t, "the gauges handed over and the list stored", func() bool {
		f := m.funcs.Load()
		return f != nil && f[0]() == 3 && f[1]() == 0
	})
	create(t, srv, newPod("ns", "p3"))
	eventually(t, "the new object counted", func() bool { return m.funcs.Load()[0]() == 4 })
	if n := m.pushes.Load(); n != 0 {
		t.Fatalf("%d SetObjects/SetQueueDepth calls to a StoreGaugeReader, want 0", n)
	}
}
