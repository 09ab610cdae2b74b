package cache

import (
	"context"
	"fmt"
	"time"
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
	// HasSyncedChecker is HasSynced as a DoneChecker, to wait for without
	// polling (WaitFor): its channel is closed exactly when HasSynced is
	// true. Like HasSynced it says nothing about any handler; use the
	// registration's HasSyncedChecker for that.
	HasSyncedChecker() DoneChecker
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
// objects in list order, then watch events in stream order. A relist (after
// a 410 Gone, a restarted list or watch-list, or a scope change) is applied
// to the store as a whole first; then its handlers get the deletions it
// implied (tombstones: those of keys with changes still queued first, in the
// order of their first change, then the store's other keys in key order),
// then its objects in list order, as client-go v0.37 (AtomicFIFO) does. So a
// key's notifications arrive in the order of its changes, and a later change
// of one key never overtakes an earlier change of another. Different handlers
// are not synchronised with each other: one may be ahead of another.
//
// Exactly once. Each change the store applies reaches each handler
// registered at the time exactly once: OnAdd for a key new to the store,
// OnUpdate(old, new) for a key it held (old is the object it held), OnDelete
// for a removed key. A watch deletion of a key the store does not hold
// leaves the store as it is and still reaches every handler as OnDelete with
// the event's object (no tombstone), as in client-go. The one exception is
// an unchanged update, below.
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

// ResourceEventHandlerRegistration is the handle AddEventHandler returns.
type ResourceEventHandlerRegistration interface {
	// HasSynced reports whether the informer has synced and this handler
	// has been handed every object of the initial list.
	HasSynced() bool
	// HasSyncedChecker is HasSynced as a DoneChecker: its channel is
	// closed exactly when HasSynced is true, so it waits for the informer
	// and for this handler's return from every initial add. After
	// RemoveEventHandler it keeps the state HasSynced keeps.
	HasSyncedChecker() DoneChecker
}

// NewSharedIndexInformer returns an informer for objects of type T served by
// lw, with a default handler resync period and extra index functions (the
// NamespaceIndex is always present).
func NewSharedIndexInformer[T Object](lw ListerWatcher, resyncPeriod time.Duration, indexers Indexers[T]) SharedIndexInformer[T] {
	return NewSharedIndexInformerWithOptions[T](lw, SharedIndexInformerOptions[T]{ResyncPeriod: resyncPeriod, Indexers: indexers})
}

// NewSharedIndexInformerWithOptions returns an informer for objects of type T
// served by lw, configured by opts.
func NewSharedIndexInformerWithOptions[T Object](lw ListerWatcher, opts SharedIndexInformerOptions[T]) SharedIndexInformer[T] {
	return newSharedIndexInformer[T](lw, opts)
}

// TypedSharedIndexInformer is client-go v0.37's typed informer interface: a
// SharedIndexInformer that also takes TypedResourceEventHandlers (whose
// OnDelete gets a DeletedObject) and TypedIndexers. The informers of this
// package are typed throughout, so the Typed methods add client-go's names
// and the DeletedObject shape, not type safety; no cast happens anywhere.
// The informers NewSharedIndexInformer returns implement it.
type TypedSharedIndexInformer[T Object] interface {
	SharedIndexInformer[T]
	// AddTypedEventHandler registers handler: with no options as
	// AddEventHandler does, with one as AddEventHandlerWithOptions does.
	// More than one HandlerOptions is an error. The registration is
	// removed with RemoveEventHandler like any other.
	AddTypedEventHandler(handler TypedResourceEventHandler[T], options ...HandlerOptions) (ResourceEventHandlerRegistration, error)
	// AddTypedIndexers is AddIndexers.
	AddTypedIndexers(indexers TypedIndexers[T]) error
	// GetTypedIndexer is GetIndexer with client-go's typed method names.
	GetTypedIndexer() TypedIndexer[T]
}

// NewTypedSharedIndexInformer returns informer as a
// TypedSharedIndexInformer: informer itself when it already is one (as the
// informers of this package are), else a view that adds the Typed methods
// and forwards everything else to it.
func NewTypedSharedIndexInformer[T Object](informer SharedIndexInformer[T]) TypedSharedIndexInformer[T] {
	if t, ok := informer.(TypedSharedIndexInformer[T]); ok {
		return t
	}
	return typedSharedIndexInformer[T]{informer}
}

// typedSharedIndexInformer adds the Typed methods to a SharedIndexInformer.
type typedSharedIndexInformer[T Object] struct {
	SharedIndexInformer[T]
}

func (s typedSharedIndexInformer[T]) AddTypedEventHandler(handler TypedResourceEventHandler[T], options ...HandlerOptions) (ResourceEventHandlerRegistration, error) {
	return addTypedEventHandler(s.SharedIndexInformer, handler, options)
}

func (s typedSharedIndexInformer[T]) AddTypedIndexers(indexers TypedIndexers[T]) error {
	return s.AddIndexers(indexers)
}

func (s typedSharedIndexInformer[T]) GetTypedIndexer() TypedIndexer[T] {
	return NewTypedIndexer(s.GetIndexer())
}

// addTypedEventHandler is AddTypedEventHandler for any SharedInformer.
func addTypedEventHandler[T Object](inf SharedInformer[T], handler TypedResourceEventHandler[T], options []HandlerOptions) (ResourceEventHandlerRegistration, error) {
	if handler == nil {
		return nil, fmt.Errorf("informer %s: nil event handler", inf.Name())
	}
	var o HandlerOptions
	switch len(options) {
	case 0:
	case 1:
		o = options[0]
	default:
		return nil, fmt.Errorf("informer %s: at most one HandlerOptions may be passed, got %d", inf.Name(), len(options))
	}
	return inf.AddEventHandlerWithOptions(typedHandler[T]{handler}, o)
}
