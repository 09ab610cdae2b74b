package cache

import "time"

// The reflector's metric hooks. Each is a no-op when the informer has no
// metrics (r.metrics == nil), which is the default, so that the list/watch
// code pays one nil check per call site.

// noteList records a list (or watch-list) that stored its result at rv;
// relist says whether it was made because the held resourceVersion expired.
func (r *reflector[T]) noteList(relist bool, rv string) {
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
func (r *reflector[T]) noteWatch() {
	if r.metrics != nil {
		r.metrics.IncWatches()
	}
}

// noteWatchEnd records the end of a watch that is restarted (err nil: the
// server closed it normally).
func (r *reflector[T]) noteWatchEnd(err error) {
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
func (r *reflector[T]) noteError(err error) {
	if r.metrics != nil {
		r.metrics.IncErrors(ErrorReason(err))
	}
}

// noteEvent records a watch event carrying rv.
func (r *reflector[T]) noteEvent(rv string) {
	if r.metrics != nil {
		r.metrics.ObserveEvent(r.eventTime(), rv)
	}
}

// eventTime returns the time of a watch event for the metrics. With the
// real clock it is that of the coarse clock run started (r.events): up to
// eventClockTick behind the event, and one atomic load instead of a clock
// read per event. Other clocks (tests) are read as they are.
func (r *reflector[T]) eventTime() time.Time {
	if c := r.events; c != nil {
		return c.now()
	}
	return r.clock.Now()
}

// isRelist reports whether the next list is made because the held
// resourceVersion expired.
func (r *reflector[T]) isRelist() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.rvUnavailable
}
