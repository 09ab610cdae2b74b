package cache

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
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

// SyncedWithErrorsError is returned by WaitForSync when every syncer
// has synced but some report a SyncError: their caches hold objects an index
// function failed on, or miss events a transform rejected.
type SyncedWithErrorsError struct {
	// Failed holds one entry per syncer with a SyncError (in LastError).
	Failed []PendingSync
}

// Error names every syncer and its error.
func (e *SyncedWithErrorsError) Error() string {
	var b strings.Builder
	b.WriteString("caches synced with errors: ")
	for i, p := range e.Failed {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "%s (%v)", p.Name, p.LastError)
	}
	return b.String()
}

// Unwrap returns every syncer's error.
func (e *SyncedWithErrorsError) Unwrap() []error {
	errs := make([]error, 0, len(e.Failed))
	for _, p := range e.Failed {
		errs = append(errs, p.LastError)
	}
	return errs
}

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

// SyncerFunc is the former name of NamedSyncer, which is a struct, not a
// function type.
//
// Deprecated: use NamedSyncer.
type SyncerFunc = NamedSyncer

// NotSyncedError is returned by WaitForSync when ctx ends before every
// syncer has synced. It lists each syncer that had not, with its last list
// or watch error when it has one.
type NotSyncedError struct {
	// Cause is ctx's cause (context.DeadlineExceeded, context.Canceled or a
	// custom cause).
	Cause error
	// Pending holds one entry per syncer that had not synced.
	Pending []PendingSync
}

// PendingSync describes one syncer that had not synced.
type PendingSync struct {
	Name      string
	LastError error
}

// Error names every pending syncer and its last error.
func (e *NotSyncedError) Error() string {
	var b strings.Builder
	b.WriteString("caches not synced: ")
	for i, p := range e.Pending {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(p.Name)
		if p.LastError != nil {
			b.WriteString(" (last error: ")
			b.WriteString(p.LastError.Error())
			if apierrors.IsNotFound(p.LastError) {
				// The server's own message ("could not find the requested
				// resource") does not say which resource or why.
				b.WriteString("; the server does not serve this resource: is its CRD installed and its group/version right?")
			}
			b.WriteString(")")
		} else {
			b.WriteString(" (no error reported yet)")
		}
	}
	if e.Cause != nil {
		fmt.Fprintf(&b, ": %v", e.Cause)
	}
	return b.String()
}

// Unwrap returns the context cause and every pending syncer's last error, so
// that errors.Is(err, context.DeadlineExceeded) and apierrors.IsForbidden
// (through errors.As) work on the result.
func (e *NotSyncedError) Unwrap() []error {
	errs := make([]error, 0, len(e.Pending)+1)
	if e.Cause != nil {
		errs = append(errs, e.Cause)
	}
	for _, p := range e.Pending {
		if p.LastError != nil {
			errs = append(errs, p.LastError)
		}
	}
	return errs
}

// syncPollInterval is how often WaitForSync polls HasSynced.
const syncPollInterval = 50 * time.Millisecond

// WaitForSync blocks until every syncer has synced or ctx ends (a
// *NotSyncedError naming each syncer that had not, with its last list or
// watch error). It never returns a bare false: a timeout against a missing
// CRD or a Forbidden list says so. Once all have synced it returns nil,
// unless some syncer reports a SyncError (an informer whose cache holds
// objects an index function failed on, or lacks events its transform
// rejected): then a *SyncedWithErrorsError naming them.
func WaitForSync(ctx context.Context, syncers ...Syncer) error {
	pending := func() []int {
		var idx []int
		for i, s := range syncers {
			if !s.HasSynced() {
				idx = append(idx, i)
			}
		}
		return idx
	}
	t := time.NewTicker(syncPollInterval)
	defer t.Stop()
	for {
		left := pending()
		if len(left) == 0 {
			return syncErrors(syncers)
		}
		select {
		case <-ctx.Done():
			left = pending()
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
		case <-t.C:
		}
	}
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

// errAlreadyStarted is returned by setters that must be called before Run.
var errAlreadyStarted = errors.New("informer has already started")
