package cache

import (
	"time"

	"k8s.io/utils/clock"
)

// Defaults of ReflectorOptions, applied to fields that are zero or negative.
const (
	DefaultPageSize          = 500
	DefaultMinWatchTimeout   = 5 * time.Minute
	DefaultInitialBackoff    = 800 * time.Millisecond
	DefaultMaxBackoff        = 30 * time.Second
	DefaultBackoffResetAfter = 2 * time.Minute
)

// ReflectorOptions tunes how an informer lists and watches. The zero value
// gives the defaults documented on each field; a zero or negative number or
// duration means its default.
type ReflectorOptions struct {
	// PageSize is the Limit of each page of a consistent (paginated) list.
	// Default DefaultPageSize (500). Lists from resourceVersion "0" are
	// served from the API server's watch cache and are not paginated by it.
	PageSize int64
	// MinWatchTimeout is the lower bound of the randomised server-side watch
	// timeout; each watch asks for a value in [MinWatchTimeout,
	// 2*MinWatchTimeout). Default DefaultMinWatchTimeout (5 minutes).
	MinWatchTimeout time.Duration
	// InitialBackoff, MaxBackoff: retry delays after a failed list or watch
	// grow from InitialBackoff (default DefaultInitialBackoff, 800 ms) by
	// doubling, with jitter, up to MaxBackoff (default DefaultMaxBackoff,
	// 30 s).
	InitialBackoff time.Duration
	MaxBackoff     time.Duration
	// BackoffResetAfter is how long list/watch must stay healthy before the
	// delay falls back to InitialBackoff. Default DefaultBackoffResetAfter
	// (2 minutes).
	BackoffResetAfter time.Duration
	// DisableWatchList turns off watch-list streaming. By default (as in
	// client-go v0.37) each full sync first asks the server to stream the
	// state as watch events ending with an initial-events-end bookmark
	// (sendInitialEvents, KEP-3157): no list response is built or held in
	// memory on either side. When the server refuses or the stream fails
	// before the bookmark, that sync falls back to a paginated list and the
	// next one tries streaming again. It is also off when the environment
	// variable KUBE_FEATURE_WatchListClient is "false" (client-go's switch),
	// when the ListerWatcher has an IsWatchListSemanticsUnSupported method
	// returning true (client-go's fake clientsets have one), and from the
	// first time a watch-list request is answered by one of apimachinery's
	// fake watchers (what client-go's fake clientsets return; they never
	// send the bookmark). An informer with a ShardScope never streams: only
	// a list response carries the ListMeta.ShardInfo it checks.
	DisableWatchList bool
	// DisableManagedFieldsSharing keeps every object's managedFields
	// documents (FieldsV1 bytes) its own. By default an object's documents
	// that equal ones the same informer already received for another object
	// (the same manager owning the same fields of Pods of one template)
	// point at those bytes instead, which holds most managedFields bytes
	// once: a lookup per document per event, and the documents of different
	// objects alias. Cached objects are read-only and DeepCopy copies the
	// bytes, so this is invisible to code that keeps that contract. The
	// table of documents is the informer's own (nothing is shared between
	// informers), lives while its Run runs, and is bounded (two generations
	// of 16384 documents of at most 64 KiB, holding bytes of objects that
	// may have left the cache).
	DisableManagedFieldsSharing bool
	// Clock replaces the real clock in tests (k8s.io/utils/clock/testing);
	// nil means the real clock. The informer's resync timer and handler
	// resync bookkeeping use it too.
	Clock clock.Clock
}

// withDefaults returns o with every unset field given its documented
// default. It is the only place those defaults are applied.
func (o ReflectorOptions) withDefaults() ReflectorOptions {
	if o.PageSize <= 0 {
		o.PageSize = DefaultPageSize
	}
	if o.MinWatchTimeout <= 0 {
		o.MinWatchTimeout = DefaultMinWatchTimeout
	}
	if o.InitialBackoff <= 0 {
		o.InitialBackoff = DefaultInitialBackoff
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = DefaultMaxBackoff
	}
	if o.BackoffResetAfter <= 0 {
		o.BackoffResetAfter = DefaultBackoffResetAfter
	}
	if o.Clock == nil {
		o.Clock = clock.RealClock{}
	}
	return o
}
