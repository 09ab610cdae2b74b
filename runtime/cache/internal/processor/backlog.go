package processor

import (
	"fmt"
	"time"

	"k8s.io/klog/v2"
)

// Backlog watches one listener's backlog: it logs a warning when the
// backlog reaches the threshold (once per crossing) and feeds the handler's
// metrics. Its fields other than over are set before the listener is
// registered and read-only afterwards; over is guarded by the listener's mu.
type Backlog struct {
	Informer  string
	Threshold int // <= 0: no warning
	Metrics   HandlerMetrics
	// Logger returns the logger of the informer's Run (klog.Background()
	// before Run); it is called under the processor's or listener's lock.
	Logger func() klog.Logger
	over   bool
}

// note records the listener's current backlog n, of which initial are
// initial-list adds. The caller holds l.mu. The warning counts only the
// rest: handing a large initial list to a handler is normal, a pile-up of
// live events behind it is not.
func (o *Backlog) note(l string, n int, initial int64) {
	if o.Metrics != nil {
		o.Metrics.SetBacklog(n)
	}
	if o.Threshold <= 0 {
		return
	}
	if int64(n)-initial < int64(o.Threshold) {
		o.over = false
		return
	}
	if !o.over {
		o.over = true
		o.Logger().Info("Event handler is falling behind: its backlog passed the threshold",
			"informer", o.Informer, "handler", l, "backlog", n, "threshold", o.Threshold)
	}
}

// HandlerName is how a handler is named in logs and metrics: by its
// HandlerName method (runtime/cache's HandlerName interface) when it has
// one that returns a name, else by its Go type.
func HandlerName(h any) string {
	if n, ok := h.(interface{ HandlerName() string }); ok {
		if s := n.HandlerName(); s != "" {
			return s
		}
	}
	return fmt.Sprintf("%T", h)
}

// batchLatencyObserver is runtime/cache's BatchLatencyObserver, the
// optional interface of HandlerMetrics that takes a batch's timing whole.
type batchLatencyObserver interface {
	ObserveBatchLatency(calls int, total time.Duration)
}

// observeBatch records a batch of calls handler calls that started at
// start (the time since epoch then) and ended now.
func (l *Listener[T]) observeBatch(epoch time.Time, start time.Duration, calls int) {
	total := time.Since(epoch) - start
	if b, ok := l.hm.(batchLatencyObserver); ok {
		b.ObserveBatchLatency(calls, total)
		return
	}
	mean := total / time.Duration(calls)
	for range calls {
		l.hm.ObserveLatency(mean)
	}
}
