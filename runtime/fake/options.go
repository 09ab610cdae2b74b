package fake

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/clock"
)

// defaultHistory is how many changes a Server keeps for watches and
// exact-resourceVersion lists unless WithHistory says otherwise.
const defaultHistory = 10000

// serverConfig is what ServerOptions set.
type serverConfig struct {
	resource    schema.GroupResource
	history     int
	clock       clock.WithDelayedExecution
	noWatchList bool
}

// ServerOption configures NewServer.
type ServerOption func(*serverConfig)

// WithResource names the resource the server serves; it appears in
// NotFound, AlreadyExists, Conflict and Forbidden errors. The default is the
// lower-cased plural of the object's Go type name with no group (e.g.
// "pods" for *corev1.Pod).
func WithResource(gr schema.GroupResource) ServerOption {
	return func(c *serverConfig) {
		c.resource = gr
	}
}

// WithHistory sets how many changes (creates, updates, deletes) the server
// remembers. Once more have happened, the oldest are forgotten as if etcd
// had compacted them: watches and exact lists from a resourceVersion before
// the oldest remembered change fail with 410 Expired. n < 1 means the
// default (10000).
func WithHistory(n int) ServerOption {
	return func(c *serverConfig) {
		if n < 1 {
			n = defaultHistory
		}
		c.history = n
	}
}

// WithClock replaces the real clock used for SetListDelay and for closing
// watches after their TimeoutSeconds (k8s.io/utils/clock/testing.FakeClock
// in tests).
func WithClock(c clock.WithDelayedExecution) ServerOption {
	return func(cfg *serverConfig) {
		if c != nil {
			cfg.clock = c
		}
	}
}

// WithoutWatchList makes the server behave like one whose WatchList feature
// is off: a watch that sets SendInitialEvents fails with 422 Invalid, so
// that clients fall back to list+watch.
func WithoutWatchList() ServerOption {
	return func(c *serverConfig) { c.noWatchList = true }
}
