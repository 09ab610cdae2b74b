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

// namedSyncer and erroringSyncer are optional: WaitForSync uses them to
// say which syncer did not sync and why.
type namedSyncer interface{ Name() string }
type erroringSyncer interface{ LastError() error }

// SyncerFunc adapts a plain function to a Syncer, with a name for errors.
type SyncerFunc struct {
	// Label names the syncer in WaitForSync errors.
	Label string
	// Func reports whether the syncer has synced.
	Func func() bool
}

// HasSynced calls Func.
func (s SyncerFunc) HasSynced() bool { return s.Func() }

// Name returns Label.
func (s SyncerFunc) Name() string { return s.Label }

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

// WaitForSync blocks until every syncer has synced (nil) or ctx ends
// (a *NotSyncedError naming each syncer that had not, with its last list or
// watch error). It never returns a bare false: a timeout against a missing
// CRD or a Forbidden list says so.
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
			return nil
		}
		select {
		case <-ctx.Done():
			left = pending()
			if len(left) == 0 {
				return nil
			}
			err := &NotSyncedError{Cause: context.Cause(ctx)}
			for _, i := range left {
				p := PendingSync{Name: fmt.Sprintf("syncer #%d", i)}
				if n, ok := syncers[i].(namedSyncer); ok && n.Name() != "" {
					p.Name = n.Name()
				}
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

// errAlreadyStarted is returned by setters that must be called before Run.
var errAlreadyStarted = errors.New("informer has already started")
