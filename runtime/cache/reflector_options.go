package cache

import (
	"time"

	"k8s.io/utils/clock"
)

// ReflectorOptions tunes how an informer lists and watches. The zero value
// gives the defaults documented on each field.
type ReflectorOptions struct {
	// PageSize is the Limit of each page of a consistent (paginated) list.
	// Default 500. Lists from resourceVersion "0" are served from the API
	// server's watch cache and are not paginated by it.
	PageSize int64
	// MinWatchTimeout is the lower bound of the randomised server-side watch
	// timeout; each watch asks for a value in [MinWatchTimeout,
	// 2*MinWatchTimeout). Default 5 minutes.
	MinWatchTimeout time.Duration
	// InitialBackoff, MaxBackoff: retry delays after a failed list or watch
	// grow from InitialBackoff (default 800 ms) by doubling, with jitter, up
	// to MaxBackoff (default 30 s).
	InitialBackoff time.Duration
	MaxBackoff     time.Duration
	// BackoffResetAfter is how long list/watch must stay healthy before the
	// delay falls back to InitialBackoff. Default 2 minutes.
	BackoffResetAfter time.Duration
	// UseWatchList asks the server to stream the initial state as watch
	// events (sendInitialEvents) instead of a list, falling back to
	// list+watch when the server refuses.
	UseWatchList bool
	// Clock replaces the real clock in tests (k8s.io/utils/clock/testing);
	// nil means the real clock.
	Clock clock.Clock
}
