package cache

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/klog/v2"

	"github.com/typedinformer/typedinformer/runtime/sharding"
)

// AnyInformer is the part of a SharedIndexInformer that does not depend on
// its object type: what a factory needs to run, watch and report on a set of
// informers of different types.
type AnyInformer interface {
	// Run lists and watches until ctx is cancelled and every goroutine the
	// informer started has returned. Run may be called once.
	Run(ctx context.Context)
	// HasSynced reports whether the first complete list has been applied to
	// the store and handed to the processor.
	HasSynced() bool
	// IsStopped reports whether Run has returned.
	IsStopped() bool
	// LastSyncResourceVersion is the resourceVersion last observed from the
	// server (list, watch event or bookmark).
	LastSyncResourceVersion() string
	// LastError is the most recent list or watch error (nil once a list or
	// watch succeeded after it), else SyncError. WaitForSync reports
	// it for an informer that has not synced.
	LastError() error
	// SyncError reports what makes the cache differ from the server while
	// the informer runs: objects an index function failed on (stored, but
	// left out of that index) and objects whose latest watch event the
	// transform rejected (returned an error or nil, changed the key or
	// panicked; the event was dropped). It stays non-nil, naming the first
	// such object, until every one of them is fixed by a later event or
	// deleted. WaitForSync fails with it once the informer synced.
	SyncError() error
	// Name identifies the informer in logs and errors, e.g. "foos.example.com"
	// or "pods" (set with SharedIndexInformerOptions.Name or .Resource).
	Name() string
}

// SharedInformer keeps a cache of objects of type T up to date from a
// ListerWatcher and notifies any number of handlers of changes. The
// informers of this package keep the consistency contract written on
// SharedIndexInformer.
type SharedInformer[T Object] interface {
	AnyInformer
	// AddEventHandler registers handler with the informer's default resync
	// period. A handler added after the informer started first receives an
	// OnAdd(obj, true) for every object in the cache. The returned
	// registration's HasSynced turns true once the informer has synced and
	// the handler was handed every initial object.
	AddEventHandler(handler ResourceEventHandler[T]) (ResourceEventHandlerRegistration, error)
	// AddEventHandlerWithResyncPeriod is AddEventHandler with a resync
	// period of its own (0 = never; values below the informer's minimum are
	// raised to it).
	AddEventHandlerWithResyncPeriod(handler ResourceEventHandler[T], resyncPeriod time.Duration) (ResourceEventHandlerRegistration, error)
	// AddEventHandlerWithOptions is AddEventHandler with the resync period
	// and logger options gives (each nil field takes the informer's
	// default).
	AddEventHandlerWithOptions(handler ResourceEventHandler[T], options HandlerOptions) (ResourceEventHandlerRegistration, error)
	// RemoveEventHandler stops delivering to a registration: once it
	// returns, at most one further call reaches the handler (the one
	// already under way), notifications queued for it are dropped, and the
	// registration's HasSynced keeps the value it had. Removing an
	// already-removed registration, or one of another informer of the same
	// type, is not an error; a registration of another type is.
	RemoveEventHandler(reg ResourceEventHandlerRegistration) error
	// GetStore returns the informer's cache. It must be treated as read-only.
	GetStore() Store[T]
	// SetTransform sets a function applied to every object before it is
	// stored (e.g. to drop managedFields). It must be set before Run; nil
	// means none. A transform that fails (error, nil result, changed key or
	// panic) fails the list it is part of, or drops the watch event; the
	// error is reported through LastError, SyncError and the watch error
	// handler (or the log).
	SetTransform(f TransformFunc[T]) error
	// SetWatchErrorHandler sets a function called with every list or watch
	// error. It must be set before Run.
	SetWatchErrorHandler(handler WatchErrorHandler) error
}

// SharedIndexInformer is a SharedInformer whose cache is an Indexer.
//
// Consistency contract (client-go v0.37's with InOrderInformers, which users
// of its informers rely on; what this package adds is marked):
//
// Store first. A change is applied to the store before any handler is told
// of it: when a handler gets a notification, GetStore already reflects that
// change (and possibly later ones).
//
// Order. Every handler receives notifications in the order the informer
// received the changes from the server, across keys: the first list's
// objects in list order, then the deletions that list implied, then watch
// events in stream order; a relist's changes likewise. So a key's
// notifications arrive in the order of its changes, and a later change of
// one key never overtakes an earlier change of another. Different handlers
// are not synchronised with each other: one may be ahead of another.
//
// Exactly once. Each change the store applies reaches each handler
// registered at the time exactly once: OnAdd for a key new to the store,
// OnUpdate(old, new) for a key it held (old is the object it held), OnDelete
// for a removed key. A delete of a key the store does not hold notifies
// nobody. The one exception is an unchanged update, below.
//
// Unchanged updates (client-go's rule, which ports rely on). An update
// whose new object has the same resourceVersion as the object the store held
// is a resync notification, whatever brought it: a periodic resync, a relist
// that found the object unchanged, or any update from a server that sets no
// resourceVersion (client-go's fake clientsets leave it "" on every object).
// It reaches a handler only while that handler's syncing flag is set:
//
//   - every handler starts syncing, also one added after Run;
//   - each resync check sets every handler's flag to whether that handler
//     is due at that moment (its resync period is not 0 and has elapsed
//     since it was registered or last due), and the flag keeps that value until the next
//     check; removing a handler changes no other handler's flag;
//   - checks run every smallest resync period among the registered
//     handlers and the informer's default ResyncPeriod; once started they
//     never stop, also after the handlers with a period were removed.
//
// So with no resync period anywhere no check runs and every handler gets
// every unchanged update. A handler with period 0 beside one with a period
// gets them until the first check, then never again; one added later gets
// them until the next check. A handler with a period gets them from each
// check at which it is due until the next check, which with the checks
// running at its own period is always. Where this differs from client-go is
// only when checks run: client-go runs them only if the informer's default
// resync period is not 0, at a period fixed when Run starts (a handler's
// own period is set to 0 without that default, and raised to the check
// period when it is added after Run); here any handler's period makes
// checks run, at the smallest period registered.
// SharedIndexInformerOptions.SkipUnchangedUpdates makes handlers start not
// syncing.
//
// isInInitialList. Each object of the first list reaches each handler
// registered before it was applied exactly once as OnAdd(obj, true). A
// handler added after Run started first receives OnAdd(obj, true) once for
// every cached object (a snapshot taken between two changes), then every
// later change live; an object of the first list that was not yet cached
// then still arrives as OnAdd(obj, true). No other notification carries
// isInInitialList=true, not even a watch event that arrives while the first
// list is still being delivered.
//
// Removal. After RemoveEventHandler returns, the removed handler receives at
// most one more call: the one already under way when it was removed. Its
// queued notifications are dropped and its registration's HasSynced keeps
// the value it had.
//
// Scope exits (beyond client-go). An informer with a scope (shard ranges,
// see SharedIndexInformerOptions.ShardScope, or a factory's namespace set)
// removes the objects that left the scope when it changes; handlers are told
// in order with their other notifications, as OnScopeExit(obj) when they
// implement ScopeExitHandler, else OnDelete(obj, true).
//
// HasSynced. The informer's HasSynced turns true once every object of the
// first list has been applied to the store and handed to the handlers'
// queues, and never turns false again (relists and scope changes included).
// A registration's HasSynced turns true once, in addition, its handler has
// returned from every OnAdd(obj, true) it was handed. Wait for the
// registration, not the informer, before relying on what a handler built.
//
// Objects. The objects in the store and in notifications are shared by the
// store and every handler: they are read-only. A handler that needs to
// change one must DeepCopy it first. Only a TransformFunc, which runs before
// an object is stored, may modify its argument.
//
// Goroutines. Each registration has its own goroutine, started by Run (or at
// once when the handler is added to a running informer), which calls the
// handler one notification at a time; the handler is never called
// concurrently with itself, and different handlers run concurrently. A slow
// handler delays only itself (its queue grows; see
// SharedIndexInformerOptions.HandlerBacklogThreshold), not the store or the
// other handlers. A panicking call is recovered and logged, and the next
// notification follows. Handlers may call any method of the informer or its
// store. When Run's context ends, no call starts after the ones under way;
// notifications not yet delivered are dropped.
type SharedIndexInformer[T Object] interface {
	SharedInformer[T]
	// AddIndexers adds index functions to the cache, also after Run.
	AddIndexers(indexers Indexers[T]) error
	// GetIndexer returns the informer's cache. It must be treated as
	// read-only.
	GetIndexer() Indexer[T]
}

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

// ResourceEventHandlerRegistration is the handle AddEventHandler returns.
type ResourceEventHandlerRegistration interface {
	// HasSynced reports whether the informer has synced and this handler
	// has been handed every object of the initial list.
	HasSynced() bool
}

// TransformFunc rewrites an object before the informer stores it and hands it
// to handlers. It may return its argument modified in place (the informer owns
// it) and must be idempotent: it can be applied to an object twice.
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
