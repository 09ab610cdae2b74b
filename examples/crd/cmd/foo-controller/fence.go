package main

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"k8s.io/client-go/tools/leaderelection/resourcelock"
)

// leaseFence keeps a leader from reconciling once its Lease may have passed
// to another replica. client-go's elector notices a lost Lease only when a
// renewal fails or sees another holder; a leader that was paused (SIGSTOP,
// a long GC, a hung connection) past its lease duration would meanwhile go
// on reconciling beside the new leader. The fence instead trusts the Lease
// only until renewDeadline after the renewal the server last accepted: a
// successor takes over no earlier than leaseDuration after that renewal,
// so a reconcile that starts inside the fence has leaseDuration minus
// renewDeadline to finish before anyone else may start.
type leaseFence struct {
	identity      string
	renewDeadline time.Duration
	now           func() time.Time
	// renewedAt is the RenewTime (Unix nanoseconds) of the last of this
	// replica's records the server accepted; 0 before the first.
	renewedAt atomic.Int64
}

// errFenced is Check's error: the last accepted renewal is too old.
type errFenced struct{ since time.Duration }

func (e errFenced) Error() string {
	return fmt.Sprintf("leader election: the last accepted lease renewal was %v ago, past the renew deadline; not reconciling until it is renewed", e.since.Round(time.Millisecond))
}

// Check returns nil while this replica's Lease was renewed within the
// renew deadline, else an error saying how long ago it was.
func (f *leaseFence) Check() error {
	at := f.renewedAt.Load()
	if at == 0 {
		return errFenced{since: -1}
	}
	if since := f.now().Sub(time.Unix(0, at)); since > f.renewDeadline {
		return errFenced{since: since}
	}
	return nil
}

// wrap returns lock recording the renewals of this replica it writes.
func (f *leaseFence) wrap(lock resourcelock.Interface) resourcelock.Interface {
	return &fencedLock{Interface: lock, fence: f}
}

// fencedLock is a resourcelock.Interface that tells its fence about every
// record of the fence's identity the server accepted.
type fencedLock struct {
	resourcelock.Interface
	fence *leaseFence
}

func (l *fencedLock) Create(ctx context.Context, ler resourcelock.LeaderElectionRecord) error {
	err := l.Interface.Create(ctx, ler)
	l.accepted(ler, err)
	return err
}

func (l *fencedLock) Update(ctx context.Context, ler resourcelock.LeaderElectionRecord) error {
	err := l.Interface.Update(ctx, ler)
	l.accepted(ler, err)
	return err
}

func (l *fencedLock) accepted(ler resourcelock.LeaderElectionRecord, err error) {
	if err != nil {
		return
	}
	if ler.HolderIdentity != l.fence.identity {
		// Releasing the Lease (an empty holder) ends the fence at once.
		l.fence.renewedAt.Store(0)
		return
	}
	l.fence.renewedAt.Store(ler.RenewTime.UnixNano())
}
