package reflector

import (
	"errors"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	utilnet "k8s.io/apimachinery/pkg/util/net"
)

// The reflector's metric hooks. Each is a no-op when the informer has no
// metrics (r.metrics == nil), which is the default, so that the list/watch
// code pays one nil check per call site.

// noteList records a list (or watch-list) that stored its result at rv;
// relist says whether it was made because the held resourceVersion expired.
func (r *Reflector[T]) noteList(relist bool, rv string) {
	m := r.metrics
	if m == nil {
		return
	}
	m.IncLists()
	if relist {
		m.IncRelistsAfterExpired()
	}
	m.ObserveEvent(r.clock.Now(), rv)
}

// noteWatch records a watch request the server accepted.
func (r *Reflector[T]) noteWatch() {
	if r.metrics != nil {
		r.metrics.IncWatches()
	}
}

// noteWatchEnd records the end of a watch that is restarted (err nil: the
// server closed it normally).
func (r *Reflector[T]) noteWatchEnd(err error) {
	if r.metrics == nil {
		return
	}
	reason := "closed"
	if err != nil {
		reason = ErrorReason(err)
	}
	r.metrics.IncWatchRestarts(reason)
}

// noteError records a reported list or watch error.
func (r *Reflector[T]) noteError(err error) {
	if r.metrics != nil {
		r.metrics.IncErrors(ErrorReason(err))
	}
}

// noteEvent records a watch event carrying rv.
func (r *Reflector[T]) noteEvent(rv string) {
	if r.metrics != nil {
		r.metrics.ObserveEvent(r.eventTime(), rv)
	}
}

// eventTime returns the time of a watch event for the metrics. With the
// real clock it is that of the coarse clock run started (r.events): up to
// eventClockTick behind the event, and one atomic load instead of a clock
// read per event. Other clocks (tests) are read as they are.
func (r *Reflector[T]) eventTime() time.Time {
	if c := r.events; c != nil {
		return c.now()
	}
	return r.clock.Now()
}

// isRelist reports whether the next list is made because the held
// resourceVersion expired.
func (r *Reflector[T]) isRelist() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.rvUnavailable
}

// ErrorReason classifies a list or watch error into a short metric label
// (runtime/cache.ErrorReason):
// "expired", "forbidden", "unauthorized", "not_found", "too_many_requests",
// "connection_refused", "timeout", "very_short_watch", "wrong_type",
// "internal", "unavailable" or "other".
func ErrorReason(err error) string {
	switch {
	case err == nil:
		return "none"
	case isExpired(err):
		return "expired"
	case apierrors.IsForbidden(err):
		return "forbidden"
	case apierrors.IsUnauthorized(err):
		return "unauthorized"
	case apierrors.IsNotFound(err):
		return "not_found"
	case apierrors.IsTooManyRequests(err):
		return "too_many_requests"
	case utilnet.IsConnectionRefused(err):
		return "connection_refused"
	case apierrors.IsTimeout(err) || apierrors.IsServerTimeout(err):
		return "timeout"
	case errors.Is(err, ErrVeryShortWatch):
		return "very_short_watch"
	case errors.Is(err, ErrWrongType):
		return "wrong_type"
	case apierrors.IsServiceUnavailable(err):
		return "unavailable"
	case apierrors.IsInternalError(err):
		return "internal"
	}
	return "other"
}
