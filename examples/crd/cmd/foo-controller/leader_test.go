package main

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	kubefake "k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	runtimecontroller "github.com/typedinformer/typedinformer/runtime/controller"
)

// testLeaseName is the Lease the tests campaign for.
const testLeaseName = "foo-test"

// holder returns the Lease's holder identity ("" when released or absent).
func holder(t *testing.T, kube kubernetes.Interface) string {
	t.Helper()
	l, err := kube.CoordinationV1().Leases("default").Get(context.Background(), testLeaseName, metav1.GetOptions{})
	if err != nil {
		return ""
	}
	if l.Spec.HolderIdentity == nil {
		return ""
	}
	return *l.Spec.HolderIdentity
}

// waitClosed fails t unless ch is closed within d.
func waitClosed(t *testing.T, what string, ch <-chan struct{}, d time.Duration) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(d):
		t.Fatalf("%s: not within %v", what, d)
	}
}

// blockingController is a real runtime controller whose reconciler reports
// each call on started and then blocks until finish is closed; it records
// the Lease's holder at the moment each reconcile finishes.
type blockingController struct {
	c       *runtimecontroller.Controller
	started chan struct{}
	finish  chan struct{}

	mu            sync.Mutex
	holderAtEnd   []string
	reconcileDone chan struct{}
}

func newBlockingController(t *testing.T, kube kubernetes.Interface, gate <-chan struct{}) *blockingController {
	t.Helper()
	b := &blockingController{started: make(chan struct{}, 1), finish: make(chan struct{}), reconcileDone: make(chan struct{})}
	c, err := runtimecontroller.New("foo", runtimecontroller.ReconcilerFunc(func(ctx context.Context, req runtimecontroller.Request) (runtimecontroller.Result, error) {
		b.started <- struct{}{}
		<-b.finish
		b.mu.Lock()
		b.holderAtEnd = append(b.holderAtEnd, holder(t, kube))
		b.mu.Unlock()
		close(b.reconcileDone)
		return runtimecontroller.Result{}, nil
	}), runtimecontroller.Options{Gate: gate})
	if err != nil {
		t.Fatal(err)
	}
	b.c = c
	return b
}

// TestLeaderGracefulShutdown: only the leader reconciles; on shutdown the
// reconcile in flight finishes while the Lease is still held, then the
// Lease is released so that the waiting replica takes over without waiting
// out the (here one-minute) lease duration.
func TestLeaderGracefulShutdown(t *testing.T) {
	kube := kubefake.NewClientset()
	le := func(id string) *leaderElection {
		return &leaderElection{enabled: true, namespace: "default", id: testLeaseName, identity: id,
			leaseDuration: time.Minute, renewDeadline: 30 * time.Second, retryPeriod: 50 * time.Millisecond}
	}

	gateA := make(chan struct{})
	a := newBlockingController(t, kube, gateA)
	a.c.Queue().Add(runtimecontroller.Request{Namespace: "ns", Name: "x"})
	ctxA, stopA := context.WithCancel(context.Background())
	defer stopA()
	doneA := make(chan error, 1)
	go func() { doneA <- runElected(ctxA, le("a"), kube, gateA, nil, nil, a.c.Start) }()
	waitClosed(t, "a leads", gateA, 30*time.Second)
	select {
	case <-a.started:
	case <-time.After(30 * time.Second):
		t.Fatal("the leader did not reconcile")
	}

	// b campaigns while a leads: its gate stays shut and its queued
	// request is not reconciled.
	gateB := make(chan struct{})
	reconciledB := make(chan struct{}, 1)
	cb, err := runtimecontroller.New("foo", runtimecontroller.ReconcilerFunc(func(context.Context, runtimecontroller.Request) (runtimecontroller.Result, error) {
		reconciledB <- struct{}{}
		return runtimecontroller.Result{}, nil
	}), runtimecontroller.Options{Gate: gateB})
	if err != nil {
		t.Fatal(err)
	}
	cb.Queue().Add(runtimecontroller.Request{Namespace: "ns", Name: "y"})
	ctxB, stopB := context.WithCancel(context.Background())
	doneB := make(chan error, 1)
	go func() { doneB <- runElected(ctxB, le("b"), kube, gateB, nil, nil, cb.Start) }()

	stopA() // SIGTERM
	select {
	case err := <-doneA:
		t.Fatalf("runElected returned (%v) while a reconcile was in flight", err)
	case <-gateB:
		t.Fatal("b took over while a was still reconciling")
	default:
	}
	if h := holder(t, kube); h != "a" {
		t.Fatalf("lease holder while draining = %q, want a", h)
	}
	close(a.finish)
	if err := <-doneA; err != nil {
		t.Fatalf("graceful shutdown: %v", err)
	}
	<-a.reconcileDone
	if got := a.holderAtEnd; len(got) != 1 || got[0] != "a" {
		t.Fatalf("holder when the in-flight reconcile finished = %q, want [a] (released before draining?)", got)
	}
	waitClosed(t, "b takes over after a released the lease", gateB, 30*time.Second)
	select {
	case <-reconciledB:
	case <-time.After(30 * time.Second):
		t.Fatal("b did not reconcile after taking over")
	}
	if h := holder(t, kube); h != "b" {
		t.Fatalf("lease holder after takeover = %q, want b", h)
	}
	stopB()
	if err := <-doneB; err != nil {
		t.Fatal(err)
	}
}

// TestLeaderLostDrainsAndFails: when another replica takes the Lease, the
// leader stops reconciling, lets the reconcile in flight finish and returns
// errLeaderLost (the process exits non-zero), leaving the Lease alone.
func TestLeaderLostDrainsAndFails(t *testing.T) {
	kube := kubefake.NewClientset()
	gate := make(chan struct{})
	a := newBlockingController(t, kube, gate)
	a.c.Queue().Add(runtimecontroller.Request{Namespace: "ns", Name: "x"})
	cfg := &leaderElection{enabled: true, namespace: "default", id: testLeaseName, identity: "a",
		leaseDuration: 3 * time.Second, renewDeadline: 2 * time.Second, retryPeriod: 100 * time.Millisecond}
	reg := prometheus.NewRegistry()
	status, err := leaderStatus(reg)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- runElected(context.Background(), cfg, kube, gate, status, nil, a.c.Start) }()
	waitClosed(t, "a leads", gate, 30*time.Second)
	<-a.started
	if v := testutil.ToFloat64(status.WithLabelValues(testLeaseName)); v != 1 {
		t.Fatalf("leader_election_master_status while leading = %v, want 1", v)
	}

	// Someone else writes itself into the Lease with a fresh renewal.
	ctx := context.Background()
	l, err := kube.CoordinationV1().Leases("default").Get(ctx, testLeaseName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	other, long := "other", int32(3600)
	l.Spec = coordinationv1.LeaseSpec{HolderIdentity: &other, LeaseDurationSeconds: &long, RenewTime: &metav1.MicroTime{Time: time.Now()}}
	// The fake does not check resourceVersions; the apiserver would reject
	// a's updates from its stale copy as conflicts, so does this reactor
	// (installed first, so that no renewal of a slips in after the takeover).
	kube.PrependReactor("update", "leases", func(action k8stesting.Action) (bool, runtime.Object, error) {
		lease := action.(k8stesting.UpdateAction).GetObject().(*coordinationv1.Lease)
		if h := lease.Spec.HolderIdentity; h != nil && *h == "a" {
			return true, nil, apierrors.NewConflict(coordinationv1.Resource("leases"), lease.Name, errors.New("stale resourceVersion"))
		}
		return false, nil, nil
	})
	if _, err := kube.CoordinationV1().Leases("default").Update(ctx, l, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	// a gives up after its renew deadline (the gauge drops to 0) but
	// must drain before returning.
	deadline := time.Now().Add(time.Minute)
	for testutil.ToFloat64(status.WithLabelValues(testLeaseName)) != 0 {
		if time.Now().After(deadline) {
			t.Fatal("a did not notice it lost the lease")
		}
		time.Sleep(20 * time.Millisecond)
	}
	select {
	case err := <-done:
		t.Fatalf("runElected returned (%v) before the in-flight reconcile finished", err)
	default:
	}
	close(a.finish)
	select {
	case err := <-done:
		if !errors.Is(err, errLeaderLost) {
			t.Fatalf("after losing the lease: %v, want errLeaderLost", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the replica did not stop after losing the lease")
	}
	if h := holder(t, kube); h != "other" {
		t.Fatalf("lease holder = %q, want other (a must not release a lease it lost)", h)
	}
}
