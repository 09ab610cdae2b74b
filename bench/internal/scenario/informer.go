package scenario

import (
	"context"
	"fmt"
	"io"

	"github.com/go-logr/logr"
	"github.com/typedinformer/typedinformer/bench/internal/fixture"
	"github.com/typedinformer/typedinformer/runtime/cache"
	corev1 "k8s.io/api/core/v1"
	cgcache "k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
)

// handlerCounters is one registered handler: it counts adds and updates and
// does nothing else.
type handlerCounters struct {
	adds, updates *counter
}

// informerUnderTest is what a scenario needs from either side's informer.
type informerUnderTest interface {
	run(ctx context.Context)
	hasSynced() bool
}

type oursInformer struct {
	inf cache.SharedIndexInformer[*corev1.Pod]
}

func (o oursInformer) run(ctx context.Context) { o.inf.Run(ctx) }
func (o oursInformer) hasSynced() bool         { return o.inf.HasSynced() }

type clientGoInformer struct{ inf cgcache.SharedIndexInformer }

func (c clientGoInformer) run(ctx context.Context) { c.inf.RunWithContext(ctx) }
func (c clientGoInformer) hasSynced() bool         { return c.inf.HasSynced() }

// newInformer builds side's shared index informer over src with one no-op
// (counting) handler per element of hs and no resync. Both carry exactly one
// index, the namespace index: built in for ours, and the one client-go's
// generated informers register.
func newInformer(side Side, src *fixture.Source, hs []handlerCounters) (informerUnderTest, error) {
	return newInformerWith(side, src, hs, cache.ReflectorOptions{})
}

// newInformerWith is newInformer with reflector options for ours (client-go
// has no equivalent knobs and ignores them).
func newInformerWith(side Side, src *fixture.Source, hs []handlerCounters, ropts cache.ReflectorOptions) (informerUnderTest, error) {
	switch side {
	case Ours:
		inf := cache.NewSharedIndexInformerWithOptions[*corev1.Pod](src, cache.SharedIndexInformerOptions[*corev1.Pod]{Reflector: ropts})
		for _, h := range hs {
			if _, err := inf.AddEventHandler(cache.ResourceEventHandlerDetailedFuncs[*corev1.Pod]{
				AddFunc:    func(*corev1.Pod, bool) { h.adds.hit() },
				UpdateFunc: func(_, _ *corev1.Pod) { h.updates.hit() },
			}); err != nil {
				return nil, fmt.Errorf("ours: add handler: %w", err)
			}
		}
		return oursInformer{inf}, nil
	case ClientGo:
		inf := cgcache.NewSharedIndexInformer(src.ClientGo(), &corev1.Pod{}, 0,
			cgcache.Indexers{cgcache.NamespaceIndex: cgcache.MetaNamespaceIndexFunc})
		for _, h := range hs {
			if _, err := inf.AddEventHandler(cgcache.ResourceEventHandlerFuncs{
				AddFunc:    func(any) { h.adds.hit() },
				UpdateFunc: func(_, _ any) { h.updates.hit() },
			}); err != nil {
				return nil, fmt.Errorf("client-go: add handler: %w", err)
			}
		}
		return clientGoInformer{inf}, nil
	}
	return nil, fmt.Errorf("unknown side %q", side)
}

// QuietLogs silences klog, which both runtimes log through, so that log
// formatting never lands inside a measurement.
func QuietLogs() {
	klog.SetLogger(logr.Discard())
	klog.SetOutput(io.Discard)
	klog.LogToStderr(false)
}
