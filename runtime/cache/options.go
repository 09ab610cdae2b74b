package cache

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/typedinformer/typedinformer/runtime/sharding"
)

// HandlerOptions are the per-handler options of AddEventHandlerWithOptions
// and TypedSharedIndexInformer.AddTypedEventHandler, with client-go's
// fields.
type HandlerOptions struct {
	// Logger, when set, is the logger this handler's panics are reported
	// with, instead of the one from Run's context.
	Logger *klog.Logger
	// ResyncPeriod, when set, is the handler's resync period (0 = never;
	// values below the informer's minimum are raised to it), instead of
	// the informer's default.
	ResyncPeriod *time.Duration
}

// TransformFunc rewrites an object before the informer stores it and hands it
// to handlers. It may return its argument modified in place (the informer owns
// it) and must be idempotent: it can be applied to an object twice. It may
// replace or drop the object's managedFields documents but not write into
// their bytes: a decoder may hand equal documents of one response over as one
// (runtime/wire does).
type TransformFunc[T Object] func(obj T) (T, error)

// WatchErrorHandler is called with every list and watch error, after the
// error is recorded (see AnyInformer.LastError) and before backing off.
type WatchErrorHandler func(ctx context.Context, err error)

// SharedIndexInformerOptions configures NewSharedIndexInformerWithOptions.
type SharedIndexInformerOptions[T Object] struct {
	// ResyncPeriod is the default resync period of handlers added with
	// AddEventHandler. 0 disables resync.
	ResyncPeriod time.Duration
	// Indexers are index functions beyond the built-in NamespaceIndex.
	Indexers Indexers[T]
	// AnyIndexers are more index functions, for callers whose own options
	// are not generic (a generated InformerOptions): it must hold an
	// Indexers[T], whose functions are added to Indexers (a name in both is
	// an error). Anything else makes the informer fail to start, reporting
	// the mismatch through LastError and SyncError. Nil means none.
	AnyIndexers AnyIndexers
	// Resource is the resource the ListerWatcher serves. It names the
	// informer in errors when Name is empty.
	Resource schema.GroupVersionResource
	// Name names the informer in logs, errors and metrics. Default: the
	// Resource as "resource.group" ("resource" for the core group), else
	// the Go type of T.
	Name string
	// Reflector tunes list/watch behaviour; each unset field takes the
	// default documented on it.
	Reflector ReflectorOptions
	// Identifier is the informer's identity in metrics, client-go's field:
	// an InformerName's WithResource. The zero value means none.
	// InformerMetricsProvider's metrics are published only while
	// Identifier.Reserved() is true.
	Identifier InformerNameAndResource
	// InformerMetricsProvider, client-go's field, when not nil and
	// Identifier is reserved, receives client-go's informer metrics for
	// Identifier: queued items, processing latency and store resource
	// version (see InformerMetricsProvider). Default: none, at no cost.
	InformerMetricsProvider InformerMetricsProvider
	// Metrics, when not nil, receives the informer's detailed metrics (see
	// InformerMetrics). Default: none, at no cost.
	Metrics DetailedInformerMetricsProvider
	// HandlerBacklogThreshold is the number of live notifications (initial
	// list adds not counted) queued for one handler at which the informer
	// logs a warning naming the handler and its backlog, once per crossing
	// (again only after the backlog fell below it). Default (0)
	// DefaultHandlerBacklogThreshold; negative disables.
	HandlerBacklogThreshold int
	// ShardScope, when not nil, makes the informer cache only the objects
	// whose hashed field (Scope.Field) lies in the scope's ranges, which
	// may change while it runs:
	//
	//   - Every list and watch carries ListOptions.ShardSelector =
	//     sharding.Selector(field, ranges), so a server with KEP-5866
	//     sharding (v1.36+, ShardedListAndWatch gate) sends only those
	//     objects. A scope with no ranges lists nothing and holds nothing
	//     (an empty selector would mean everything); the informer still
	//     syncs.
	//   - The informer also drops every received object outside the
	//     ranges itself (one FNV-1a hash per object). When a list's
	//     ListMeta.ShardInfo does not echo the selector (older server,
	//     gate off, or k8s.io/apimachinery before v0.36 at build time,
	//     which cannot send it) that filtering is what shards the cache,
	//     and the informer logs so once. See ShardStatus.
	//   - Sharded informers list (paginated) instead of using watch-list
	//     streaming, because only a list response carries ShardInfo.
	//   - When the ranges change the informer ends its watch and lists
	//     again with the new selector, without restarting: objects that
	//     entered the ranges arrive as OnAdd(obj, false); objects still
	//     in range are replaced like any relist (OnUpdate; one whose
	//     resourceVersion did not change reaches only syncing handlers,
	//     see SharedIndexInformer); objects that left
	//     are removed from the store and handlers are told as described
	//     on ScopeExitHandler (by default OnDelete(obj, true)). HasSynced
	//     never turns false again.
	ShardScope *sharding.Scope
	// LabelSelector and FieldSelector, when not "", are ANDed into the
	// ListOptions of every list and watch of the informer, before its
	// ListerWatcher sees them (a generated informer's TweakListOptionsFunc
	// runs after). SelectableInformer.SetSelectors changes them while the
	// informer runs. A selector that does not parse makes the informer
	// unable to run; LastError names it.
	LabelSelector, FieldSelector string
	// SkipUnchangedUpdates changes which handlers get an update whose old
	// and new objects have the same resourceVersion (a relist that found
	// the object unchanged, a periodic resync, or every update from a
	// server that sets no resourceVersion, as client-go's fake clientsets
	// do). By default (false) handlers start "syncing" as in client-go and
	// get such updates until the first resync check; see "Unchanged
	// updates" on SharedIndexInformer. When true, handlers start
	// not syncing: a handler gets such an update only between a resync
	// check at which its own resync period was due and the next check, so
	// a handler with resync period 0 never gets one. Updates that change
	// the resourceVersion reach every handler either way.
	SkipUnchangedUpdates bool
}

// withDefaults returns o with every unset field given its documented
// default, Reflector's included. It is the only place those defaults are
// applied.
func (o SharedIndexInformerOptions[T]) withDefaults() SharedIndexInformerOptions[T] {
	o.Reflector = o.Reflector.withDefaults()
	if o.HandlerBacklogThreshold == 0 {
		o.HandlerBacklogThreshold = DefaultHandlerBacklogThreshold
	}
	if o.Name == "" {
		o.Name = defaultInformerName[T](o.Resource)
	}
	return o
}

// defaultInformerName is SharedIndexInformerOptions.Name's default.
func defaultInformerName[T Object](r schema.GroupVersionResource) string {
	switch {
	case r.Resource != "" && r.Group != "":
		return r.Resource + "." + r.Group
	case r.Resource != "":
		return r.Resource
	}
	return fmt.Sprintf("%T", *new(T))
}

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
	// documents (FieldsV1 bytes, or for unstructured objects the maps of
	// each entry's fieldsV1) its own. By default an object's documents
	// that equal ones the same informer already received for another object
	// (the same manager owning the same fields of Pods of one template)
	// point at those instead, which holds most managedFields bytes
	// once: a lookup per document per event (for maps, a hash of the
	// document and a comparison with the one found), and the documents of
	// different objects alias. Cached objects are read-only and DeepCopy
	// copies the documents, so this is invisible to code that keeps that
	// contract. The table of documents is the informer's own (nothing is
	// shared between informers), lives while its Run runs, and is bounded
	// (two generations of 16384 documents each, of at most 64 KiB or 16384
	// values, holding documents of objects that may have left the cache).
	// With sharing disabled, the reflector copies each typed object's
	// documents, since a ListerWatcher may hand equal ones over as one
	// (runtime/wire holds equal documents of one response once).
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
