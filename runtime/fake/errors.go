package fake

import (
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ErrExpired is matched (errors.Is) by every 410 Expired error the server
// returns from List or Watch: a resourceVersion or continue token older than
// the server's compacted history. The same errors also satisfy
// apierrors.IsResourceExpired, like a real API server's.
var ErrExpired = errors.New("fake: resource version expired")

// expiredError is a 410 Expired status error that also matches ErrExpired.
type expiredError struct {
	*apierrors.StatusError
}

// Is reports whether target is ErrExpired.
func (e *expiredError) Is(target error) bool { return target == ErrExpired }

// Unwrap returns the status error.
func (e *expiredError) Unwrap() error { return e.StatusError }

func newExpired(format string, args ...any) error {
	return &expiredError{apierrors.NewResourceExpired(fmt.Sprintf(format, args...))}
}

// tooOldWatchStatus is the Status a watch from a compacted resourceVersion
// receives as an ERROR event, worded like etcd's.
func tooOldWatchStatus(requested, compacted uint64) *metav1.Status {
	s := apierrors.NewResourceExpired(fmt.Sprintf("too old resource version: %d (%d)", requested, compacted)).Status()
	return &s
}

// newTooLarge is what a real API server answers when asked for a
// resourceVersion it has not reached: 504 with a ResourceVersionTooLarge
// cause.
func newTooLarge(requested, current uint64) error {
	err := apierrors.NewTimeoutError(fmt.Sprintf("Too large resource version: %d, current: %d", requested, current), 1)
	err.ErrStatus.Details.Causes = []metav1.StatusCause{{
		Type:    metav1.CauseTypeResourceVersionTooLarge,
		Message: "Too large resource version",
	}}
	return err
}
