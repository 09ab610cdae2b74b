package cache

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"k8s.io/klog/v2"
)

// Syncer is anything whose initial sync can be waited for: an informer, a
// handler registration, or a controller's cache.
type Syncer interface {
	// HasSynced reports whether the initial sync is complete; it must be
	// cheap and safe to call from any goroutine.
	HasSynced() bool
}

// nameReporter and erroringSyncer are optional: WaitForSync uses them to
// say which syncer did not sync and why.
type nameReporter interface{ Name() string }

type erroringSyncer interface{ LastError() error }

type syncErrorer interface{ SyncError() error }

// syncerName names syncers[i] in errors.
func syncerName(s Syncer, i int) string {
	if n, ok := s.(nameReporter); ok && n.Name() != "" {
		return n.Name()
	}
	return fmt.Sprintf("syncer #%d", i)
}

// NamedSyncer adapts a plain function to a Syncer with a name, which
// WaitForSync errors show. (A bare function converts to InformerSynced, a
// Syncer without a name.)
type NamedSyncer struct {
	// Label names the syncer in WaitForSync errors.
	Label string
	// Func reports whether the syncer has synced.
	Func func() bool
}

// HasSynced calls Func.
func (s NamedSyncer) HasSynced() bool { return s.Func() }

// Name returns Label.
func (s NamedSyncer) Name() string { return s.Label }

// syncPollInterval is how often WaitForSync polls HasSynced when some
// syncer has no HasSyncedChecker.
const syncPollInterval = 50 * time.Millisecond

// WaitForSync blocks until every syncer has synced or ctx ends (a
// *NotSyncedError naming each syncer that had not, with its last list or
// watch error). It never returns a bare false: a timeout against a missing
// CRD or a Forbidden list says so. Once all have synced it returns nil,
// unless some syncer reports a SyncError (an informer whose cache holds
// objects an index function failed on, or lacks events its transform
// rejected): then a *SyncedWithErrorsError naming them.
//
// When every syncer has a HasSyncedChecker (the informers and handler
// registrations of this module do), WaitForSync waits on their channels and
// returns as soon as the last one closes; otherwise it polls HasSynced.
func WaitForSync(ctx context.Context, syncers ...Syncer) error {
	if checkers, ok := syncCheckers(syncers); ok {
		if WaitFor(ctx, "", checkers...) {
			return syncErrors(syncers)
		}
		return notSynced(ctx, syncers)
	}
	t := time.NewTicker(syncPollInterval)
	defer t.Stop()
	for {
		if len(pendingSyncs(syncers)) == 0 {
			return syncErrors(syncers)
		}
		select {
		case <-ctx.Done():
			return notSynced(ctx, syncers)
		case <-t.C:
		}
	}
}

// syncCheckers returns the HasSyncedChecker of every syncer, or false when
// some syncer has none.
func syncCheckers(syncers []Syncer) ([]DoneChecker, bool) {
	checkers := make([]DoneChecker, len(syncers))
	for i, s := range syncers {
		c, ok := s.(interface{ HasSyncedChecker() DoneChecker })
		if !ok {
			return nil, false
		}
		if checkers[i] = c.HasSyncedChecker(); checkers[i] == nil {
			return nil, false
		}
	}
	return checkers, true
}

// pendingSyncs returns the indexes of the syncers that have not synced.
func pendingSyncs(syncers []Syncer) []int {
	var idx []int
	for i, s := range syncers {
		if !s.HasSynced() {
			idx = append(idx, i)
		}
	}
	return idx
}

// notSynced is WaitForSync's result once ctx has ended: as when all synced
// if they all have meanwhile, else a *NotSyncedError naming the others.
func notSynced(ctx context.Context, syncers []Syncer) error {
	left := pendingSyncs(syncers)
	if len(left) == 0 {
		return syncErrors(syncers)
	}
	err := &NotSyncedError{Cause: context.Cause(ctx)}
	for _, i := range left {
		p := PendingSync{Name: syncerName(syncers[i], i)}
		if e, ok := syncers[i].(erroringSyncer); ok {
			p.LastError = e.LastError()
		}
		err.Pending = append(err.Pending, p)
	}
	return err
}

// syncErrors returns a *SyncedWithErrorsError for the syncers reporting a
// SyncError, or nil.
func syncErrors(syncers []Syncer) error {
	var out *SyncedWithErrorsError
	for i, s := range syncers {
		e, ok := s.(syncErrorer)
		if !ok {
			continue
		}
		if err := e.SyncError(); err != nil {
			if out == nil {
				out = &SyncedWithErrorsError{}
			}
			out.Failed = append(out.Failed, PendingSync{Name: syncerName(s, i), LastError: err})
		}
	}
	if out == nil {
		return nil
	}
	return out
}

// InformerSynced is client-go's shape of a sync check: a function that
// reports whether a cache has synced, typically an informer's HasSynced
// method value. A plain func() bool converts to it, so a test can pass an
// always-ready function. It is also a Syncer, so it can be given to
// WaitForSync; but a bare function cannot say why it has not synced, so
// prefer passing informers themselves to WaitForSync.
type InformerSynced func() bool

// HasSynced calls f.
func (f InformerSynced) HasSynced() bool { return f() }

// WaitForCacheSync is client-go's wait, with client-go's shape: it blocks
// until every cacheSync reports true (true) or stopCh is closed first
// (false), or at once (false, logged) when one of cacheSyncs is nil. Ported controllers pass ctx.Done() as stopCh. A nil stopCh waits
// forever. WaitForSync is the same wait with a context and an error that
// names what did not sync and why.
func WaitForCacheSync(stopCh <-chan struct{}, cacheSyncs ...InformerSynced) bool {
	if i := nilSync(cacheSyncs); i >= 0 {
		klog.Background().Error(nil, "WaitForCacheSync: cache sync function is nil", "index", i)
		return false
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if stopCh != nil {
		go func() {
			select {
			case <-stopCh:
				cancel()
			case <-ctx.Done():
			}
		}()
	}
	return WaitForSync(ctx, syncersOf(cacheSyncs)...) == nil
}

// WaitForNamedCacheSync is WaitForCacheSync with log lines naming
// controllerName: one before waiting, and one on success or failure.
func WaitForNamedCacheSync(controllerName string, stopCh <-chan struct{}, cacheSyncs ...InformerSynced) bool {
	logger := klog.Background().WithValues("controller", controllerName)
	logger.Info("Waiting for caches to sync")
	if !WaitForCacheSync(stopCh, cacheSyncs...) {
		logger.Error(nil, "Unable to sync caches")
		return false
	}
	logger.Info("Caches are synced")
	return true
}

// WaitForNamedCacheSyncWithContext is WaitForNamedCacheSync that waits
// until ctx is done and logs through ctx's logger.
func WaitForNamedCacheSyncWithContext(ctx context.Context, cacheSyncs ...InformerSynced) bool {
	logger := klog.FromContext(ctx)
	logger.Info("Waiting for caches to sync")
	if i := nilSync(cacheSyncs); i >= 0 {
		logger.Error(nil, "Unable to sync caches: cache sync function is nil", "index", i)
		return false
	}
	if err := WaitForSync(ctx, syncersOf(cacheSyncs)...); err != nil {
		logger.Error(err, "Unable to sync caches")
		return false
	}
	logger.Info("Caches are synced")
	return true
}

func syncersOf(fs []InformerSynced) []Syncer {
	s := make([]Syncer, len(fs))
	for i, f := range fs {
		s[i] = f
	}
	return s
}

// nilSync returns the index of the first nil function, or -1.
func nilSync(fs []InformerSynced) int {
	for i, f := range fs {
		if f == nil {
			return i
		}
	}
	return -1
}

// DoneChecker is client-go v0.37's handle on an activity that completes
// once, such as an informer's or a handler registration's initial sync
// (their HasSyncedChecker methods): unlike InformerSynced it can be waited
// for without polling, and it names what is waited for. IsDone tests it
// without blocking; WaitFor waits for several.
type DoneChecker interface {
	// Name describes what is waited for, for logs. It may be computed on
	// each call: call it outside hot paths.
	Name() string
	// Done returns a channel that is closed when the activity has
	// completed. It is never closed otherwise.
	Done() <-chan struct{}
}

// IsDone reports, without blocking, whether checker's activity has
// completed.
func IsDone(checker DoneChecker) bool {
	select {
	case <-checker.Done():
		return true
	default:
		return false
	}
}

// WaitFor blocks until every checker is done (true) or ctx ends first
// (false), with client-go v0.37's results and log lines. A checker already
// done when ctx ends counts as done, so a cancelled ctx gives true when
// everything had completed. With no checkers it returns true at once.
//
// When what is not empty, WaitFor logs through ctx's logger (klog.FromContext),
// at that logger's verbosity, attributing the lines to its caller: "Waiting"
// (for=what) before waiting, "Done waiting" (for, instance=the checker's
// Name) as each checker completes, and "Timed out waiting" (for, cause=
// context.Cause(ctx), instances=the sorted names of the checkers not done)
// when ctx ended first. Pass a quieter logger to log less:
// WaitFor(klog.NewContext(ctx, klog.FromContext(ctx).V(2)), ...).
//
// A nil checker cannot complete: WaitFor then logs an error naming its
// index and returns false at once (client-go panics).
func WaitFor(ctx context.Context, what string, checkers ...DoneChecker) bool {
	logger := klog.FromContext(ctx)
	for i, c := range checkers {
		if c == nil {
			logger.Error(nil, "WaitFor: checker is nil", "for", what, "index", i)
			return false
		}
	}
	if what != "" {
		helper, l := logger.WithCallStackHelper()
		helper()
		logger = l
		logger.Info("Waiting", "for", what)
	}
	// Wait on every pending checker and ctx at once, so that each "Done
	// waiting" is logged as soon as its checker completes, without a
	// goroutine per checker.
	pending := slices.Clone(checkers)
	cases := make([]reflect.SelectCase, 0, len(pending)+1)
	for len(pending) > 0 {
		cases = append(cases[:0], reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(ctx.Done())})
		for _, c := range pending {
			cases = append(cases, reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(c.Done())})
		}
		chosen, _, _ := reflect.Select(cases)
		if chosen == 0 {
			break
		}
		if what != "" {
			logger.Info("Done waiting", "for", what, "instance", pending[chosen-1].Name())
		}
		pending = slices.Delete(pending, chosen-1, chosen)
	}
	// ctx ended: a checker that completed meanwhile still counts (select
	// picks at random among ready cases).
	var left []string
	for _, c := range pending {
		if IsDone(c) {
			if what != "" {
				logger.Info("Done waiting", "for", what, "instance", c.Name())
			}
			continue
		}
		left = append(left, c.Name())
	}
	if len(left) == 0 {
		return true
	}
	if what != "" {
		slices.Sort(left)
		logger.Info("Timed out waiting", "for", what, "cause", context.Cause(ctx), "instances", left)
	}
	return false
}

// SyncResult is what a factory's WaitForCacheSyncWithContext returns, with
// client-go v0.37's fields: whether each started informer synced, and why
// waiting stopped early.
type SyncResult struct {
	// Err is nil when every informer synced. Otherwise it says why waiting
	// ended: here a *NotSyncedError naming each informer that did not sync
	// with its last list/watch error, or the factory's shutdown.
	Err error
	// Synced maps the Go type of each started informer to whether it
	// synced.
	Synced map[reflect.Type]bool
}

// AsError returns nil when every informer synced, else an error naming the
// types that did not, in sorted order, and wrapping Err.
func (r SyncResult) AsError() error {
	if r.Err == nil {
		return nil
	}
	var unsynced []string
	for typ, ok := range r.Synced {
		if !ok {
			unsynced = append(unsynced, typ.String())
		}
	}
	slices.Sort(unsynced)
	return fmt.Errorf("failed to sync all caches: %s: %w", strings.Join(unsynced, ", "), r.Err)
}
