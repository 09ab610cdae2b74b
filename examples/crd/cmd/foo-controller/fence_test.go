package main

import (
	"context"
	"errors"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
)

// stubLock accepts or rejects writes as told.
type stubLock struct {
	resourcelock.Interface
	err error
}

func (s *stubLock) Create(context.Context, resourcelock.LeaderElectionRecord) error { return s.err }
func (s *stubLock) Update(context.Context, resourcelock.LeaderElectionRecord) error { return s.err }

func TestLeaseFence(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	now := t0
	f := &leaseFence{identity: "me", renewDeadline: 3 * time.Second, now: func() time.Time { return now }}
	stub := &stubLock{}
	lock := f.wrap(stub)
	rec := func(holder string, at time.Time) resourcelock.LeaderElectionRecord {
		return resourcelock.LeaderElectionRecord{HolderIdentity: holder, RenewTime: metav1.NewTime(at)}
	}
	steps := []struct {
		name    string
		write   func() error
		advance time.Duration
		fenced  bool
	}{
		{name: "never acquired", fenced: true},
		{name: "acquired", write: func() error { return lock.Create(context.Background(), rec("me", now)) }},
		{name: "inside the deadline", advance: 3 * time.Second},
		{name: "past the deadline (paused)", advance: time.Millisecond, fenced: true},
		{name: "a rejected renewal keeps the fence", write: func() error {
			stub.err = errors.New("conflict")
			defer func() { stub.err = nil }()
			return lock.Update(context.Background(), rec("me", now))
		}, fenced: true},
		{name: "an accepted renewal lifts it", write: func() error { return lock.Update(context.Background(), rec("me", now)) }},
		{name: "released", write: func() error { return lock.Update(context.Background(), rec("", now)) }, fenced: true},
	}
	for _, s := range steps {
		now = now.Add(s.advance)
		if s.write != nil {
			_ = s.write()
		}
		err := f.Check()
		if fenced := err != nil; fenced != s.fenced {
			t.Fatalf("%s: Check() = %v, want fenced %v", s.name, err, s.fenced)
		}
	}
}
