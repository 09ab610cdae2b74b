package cache

import (
	"errors"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/typedinformer/typedinformer/runtime/cache/internal/reflector"
)

// ErrVeryShortWatch is wrapped by the error a reflector reports when a watch
// closed within a second without delivering anything: usually a server or
// proxy problem, so the reflector backs off and relists.
var ErrVeryShortWatch = reflector.ErrVeryShortWatch

// ErrWrongType is wrapped by the error reported for a watch event whose
// object is not of the informer's type; the event is dropped.
var ErrWrongType = reflector.ErrWrongType

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

// errAlreadyStarted is returned by setters that must be called before Run.
var errAlreadyStarted = errors.New("informer has already started")

// errStopped is returned when registering a handler on a stopped informer.
var errStopped = errors.New("informer has stopped")
