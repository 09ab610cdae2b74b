package scenario

import (
	"fmt"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"

	"github.com/typedinformer/typedinformer/bench/internal/fixture"
	tiprom "github.com/typedinformer/typedinformer/metrics/prometheus"
	"github.com/typedinformer/typedinformer/runtime/cache"
)

// EventsMetrics is Events on our informer, with the Prometheus adapter
// (metrics/prometheus on a fresh registry) given as its metrics provider
// when adapter is true, and no metrics provider when false: the cost of
// the informer metrics on the event path. Handlers are named, as a
// controller's are, so each gets its own backlog and latency series.
func EventsMetrics(adapter bool, keys, handlers, total int) (EventsResult, error) {
	return events(Ours, keys, handlers, total, func(src *fixture.Source, hs []handlerCounters) (informerUnderTest, error) {
		opts := cache.SharedIndexInformerOptions[*corev1.Pod]{Name: "pods"}
		if adapter {
			m, err := tiprom.New(prometheus.NewRegistry())
			if err != nil {
				return nil, fmt.Errorf("ours: prometheus adapter: %w", err)
			}
			opts.Metrics = m.Informers()
		}
		inf := cache.NewSharedIndexInformerWithOptions[*corev1.Pod](src, opts)
		for i, h := range hs {
			if _, err := inf.AddEventHandler(namedHandler{
				name: fmt.Sprintf("handler-%d", i),
				ResourceEventHandlerDetailedFuncs: cache.ResourceEventHandlerDetailedFuncs[*corev1.Pod]{
					AddFunc:    func(*corev1.Pod, bool) { h.adds.hit() },
					UpdateFunc: func(_, _ *corev1.Pod) { h.updates.hit() },
				},
			}); err != nil {
				return nil, fmt.Errorf("ours: add handler: %w", err)
			}
		}
		return oursInformer{inf}, nil
	})
}

// namedHandler is a handler with a name for logs and metrics.
type namedHandler struct {
	name string
	cache.ResourceEventHandlerDetailedFuncs[*corev1.Pod]
}

// HandlerName implements cache.HandlerName.
func (h namedHandler) HandlerName() string { return h.name }

// cpuSeconds returns the process's user+system CPU time so far (0 if the
// system does not say).
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}
