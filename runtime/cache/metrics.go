package cache

import (
	"time"

	"github.com/typedinformer/typedinformer/runtime/cache/internal/reflector"
)

// DetailedInformerMetricsProvider creates the project's detailed metrics of
// each informer it is given to (SharedIndexInformerOptions.Metrics,
// informers.WithInformerMetrics): lists, watches, relists, errors, store
// size, queue depth and per-handler backlog and latency. It is called once
// per informer, when the informer is built or when the provider is set,
// with the informer's name; implementations must be safe for concurrent
// use. A nil provider means no metrics and no cost. client-go's narrower
// interface of the same purpose is InformerMetricsProvider; an informer may
// have both.
type DetailedInformerMetricsProvider interface {
	// NewInformerMetrics returns the metrics of the informer called name.
	NewInformerMetrics(name string) InformerMetrics
}

// InformerMetrics receives one informer's metrics. The reflector's goroutine
// calls the list/watch methods; the goroutine applying deltas calls
// SetObjects and SetQueueDepth after every batch. All methods must be safe
// for concurrent use and must not block or call back into the informer.
type InformerMetrics interface {
	// IncLists counts a list request that succeeded (a watch-list stream
	// that delivered its initial events counts as a list).
	IncLists()
	// IncWatches counts a watch request the server accepted.
	IncWatches()
	// IncRelistsAfterExpired counts a list made because the resourceVersion
	// the informer held had expired (410 Gone / "too old resource version").
	IncRelistsAfterExpired()
	// IncWatchRestarts counts a watch that ended and is restarted, with the
	// reason (see ErrorReason; "closed" for a watch the server ended
	// normally, e.g. at its timeout).
	IncWatchRestarts(reason string)
	// IncErrors counts a list or watch error reported through LastError
	// and the watch error handler, with its reason (see ErrorReason).
	IncErrors(reason string)
	// SetObjects is the number of objects in the store.
	SetObjects(n int)
	// SetQueueDepth is the number of keys waiting in the DeltaFIFO.
	SetQueueDepth(n int)
	// ObserveEvent records a watch event (bookmarks included) received at
	// the given time, carrying resourceVersion (the informer's last synced
	// resourceVersion from then on). A list records its resourceVersion
	// the same way. On the real clock a watch event's time is read from a
	// clock that advances every 100 ms (a clock read per event would cost
	// more than the rest of the metrics), so it is up to that much early;
	// a list's time is exact. That clock is the informer's own: its
	// goroutine runs only while the informer's Run runs with metrics.
	ObserveEvent(at time.Time, resourceVersion string)
	// NewHandlerMetrics returns the metrics of one event handler, named as
	// in the logs (HandlerName, or the handler's Go type).
	NewHandlerMetrics(handler string) HandlerMetrics
}

// HandlerMetrics receives one event handler's metrics, from the informer's
// delivery goroutines. Methods must be safe for concurrent use.
type HandlerMetrics interface {
	// SetBacklog is the number of notifications handed to the handler and
	// not yet delivered (including the batch it is working through); 0
	// once it is removed.
	SetBacklog(n int)
	// ObserveLatency records how long one handler call took. Listeners
	// time whole batches of calls (see BatchLatencyObserver); without that
	// interface they report each call of a batch at the batch's mean.
	ObserveLatency(d time.Duration)
}

// HandlerName is an optional interface of ResourceEventHandlers: a handler
// that implements it is named by it in logs and metrics instead of by its Go
// type (e.g. a controller names its handler after itself).
type HandlerName interface {
	// HandlerName returns a short, stable name.
	HandlerName() string
}

// DefaultHandlerBacklogThreshold is the handler backlog (notifications
// queued for one handler) above which the informer logs a warning, when
// SharedIndexInformerOptions.HandlerBacklogThreshold is 0.
const DefaultHandlerBacklogThreshold = 10000

// ErrorReason classifies a list or watch error into a short metric label:
// "expired", "forbidden", "unauthorized", "not_found", "too_many_requests",
// "connection_refused", "timeout", "very_short_watch", "wrong_type",
// "internal", "unavailable" or "other" ("none" for nil).
func ErrorReason(err error) string { return reflector.ErrorReason(err) }

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
