package cache

import (
	"fmt"
	"time"

	"k8s.io/klog/v2"
)

// listenerObs watches one listener's backlog: it logs a warning when the
// backlog reaches the threshold (once per crossing) and feeds the handler's
// metrics. Its fields other than over are set before the listener is
// registered and read-only afterwards; over is guarded by the listener's mu.
type listenerObs struct {
	informer  string
	threshold int // <= 0: no warning
	metrics   HandlerMetrics
	// logger returns the logger of the informer's Run (klog.Background()
	// before Run); it is called under the processor's or listener's lock.
	logger func() klog.Logger
	over   bool
}

// note records the listener's current backlog n, of which initial are
// initial-list adds. The caller holds l.mu. The warning counts only the
// rest: handing a large initial list to a handler is normal, a pile-up of
// live events behind it is not.
func (o *listenerObs) note(l string, n int, initial int64) {
	if o.metrics != nil {
		o.metrics.SetBacklog(n)
	}
	if o.threshold <= 0 {
		return
	}
	if int64(n)-initial < int64(o.threshold) {
		o.over = false
		return
	}
	if !o.over {
		o.over = true
		o.logger().Info("Event handler is falling behind: its backlog passed the threshold",
			"informer", o.informer, "handler", l, "backlog", n, "threshold", o.threshold)
	}
}

// handlerName is how a handler is named in logs and metrics.
func handlerName(h any) string {
	if n, ok := h.(HandlerName); ok {
		if s := n.HandlerName(); s != "" {
			return s
		}
	}
	return fmt.Sprintf("%T", h)
}

// BatchLatencyObserver is an optional interface of HandlerMetrics. A
// listener hands its handler a batch of notifications back to back and
// times the batch, not each call: a clock read per call costs about as much
// as a cheap handler. ObserveBatchLatency records calls handler calls that
// took total together; implementations count them as calls observations of
// total/calls each, so that the count and the sum stay exact (a batch of one
// is one exact observation). HandlerMetrics without it get
// ObserveLatency(total/calls) calls times.
type BatchLatencyObserver interface {
	// ObserveBatchLatency records calls (>= 1) calls that took total.
	ObserveBatchLatency(calls int, total time.Duration)
}

// observeBatch records a batch of calls handler calls that started at
// start (the time since epoch then) and ended now.
func (l *listener[T]) observeBatch(epoch time.Time, start time.Duration, calls int) {
	total := time.Since(epoch) - start
	if b, ok := l.hm.(BatchLatencyObserver); ok {
		b.ObserveBatchLatency(calls, total)
		return
	}
	mean := total / time.Duration(calls)
	for range calls {
		l.hm.ObserveLatency(mean)
	}
}
