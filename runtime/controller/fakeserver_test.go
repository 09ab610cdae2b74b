package controller

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/typedinformer/typedinformer/internal/testutil"
	"github.com/typedinformer/typedinformer/runtime/cache"
	"github.com/typedinformer/typedinformer/runtime/fake"
	"github.com/typedinformer/typedinformer/runtime/workqueue"
)

func configMap(ns, name string) *corev1.ConfigMap { return testutil.ConfigMap(ns, name) }

// TestControllerAgainstFakeServer drives a controller from the runtime's fake
// API server through a real shared informer: the initial list, creates,
// updates and deletes produce reconciles; a failing object is retried after
// growing delays; RequeueAfter brings an object back exactly once.
func TestControllerAgainstFakeServer(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv := fake.NewServer[*corev1.ConfigMap](fake.WithResource(schema.GroupResource{Resource: "configmaps"}))
	for _, n := range []string{"listed-1", "listed-2"} {
		if _, err := srv.Create(configMap("shop", n)); err != nil {
			t.Fatal(err)
		}
	}
	informer := cache.NewSharedIndexInformerWithOptions[*corev1.ConfigMap](srv.ListerWatcher(""), cache.SharedIndexInformerOptions[*corev1.ConfigMap]{Name: "configmaps"})

	clk := newFakeClock()
	var (
		mu     sync.Mutex
		events []string // "name:exists" per reconcile, in order
	)
	rec := newRecorder()
	r := ReconcilerFunc(func(ctx context.Context, req Request) (Result, error) {
		_, exists, err := informer.GetIndexer().GetByKey(req.String())
		if err != nil {
			return Result{}, err
		}
		mu.Lock()
		state := "gone"
		if exists {
			state = "exists"
		}
		events = append(events, req.Name+":"+state)
		mu.Unlock()
		return rec.Reconcile(ctx, req)
	})
	limiter := workqueue.NewTypedItemExponentialFailureRateLimiter[Request](time.Second, time.Minute)
	c, err := New("configmaps", r, Options{Clock: clk, RateLimiter: limiter})
	if err != nil {
		t.Fatal(err)
	}
	if err := Watch(c, informer, EnqueueRequestForObject[*corev1.ConfigMap](), ResourceVersionChangedPredicate[*corev1.ConfigMap]()); err != nil {
		t.Fatal(err)
	}
	go informer.Run(ctx)
	startController(t, c)
	req := func(name string) Request { return Request{Namespace: "shop", Name: name} }
	waitFor := func(name string, n int) {
		t.Helper()
		testutil.Eventually(t, name+" reconciled", func() bool { return rec.count(req(name)) >= n })
	}

	// The initial list.
	waitFor("listed-1", 1)
	waitFor("listed-2", 1)

	// Create, update, delete.
	obj, err := srv.Create(configMap("shop", "web"))
	if err != nil {
		t.Fatal(err)
	}
	waitFor("web", 1)
	obj.Data = map[string]string{"k": "v"}
	if _, err := srv.Update(obj); err != nil {
		t.Fatal(err)
	}
	waitFor("web", 2)
	if err := srv.Delete("shop", "web"); err != nil {
		t.Fatal(err)
	}
	waitFor("web", 3)
	mu.Lock()
	last := events[len(events)-1]
	mu.Unlock()
	if last != "web:gone" {
		t.Fatalf("last reconcile saw %q, want the object gone from the cache", last)
	}

	// Failures retry after 1s, 2s, 4s, then success stops the retries.
	boom := errors.New("backend down")
	rec.script(req("flaky"), answer{err: boom}, answer{err: boom}, answer{err: boom})
	if _, err := srv.Create(configMap("shop", "flaky")); err != nil {
		t.Fatal(err)
	}
	probe := 0
	for attempt, delay := range []time.Duration{time.Second, 2 * time.Second, 4 * time.Second} {
		waitFor("flaky", attempt+1)
		testutil.Eventually(t, "retry timer", clk.HasWaiters)
		if n := c.Queue().NumRequeues(req("flaky")); n != attempt+1 {
			t.Fatalf("NumRequeues = %d after failure %d", n, attempt+1)
		}
		clk.Step(delay - time.Millisecond)
		settle(t, c, rec, &probe)
		if n := rec.count(req("flaky")); n != attempt+1 {
			t.Fatalf("failure %d retried before %v", attempt+1, delay)
		}
		clk.Step(time.Millisecond)
	}
	waitFor("flaky", 4)
	// The recorder counts inside Reconcile; the controller forgets the
	// backoff after Reconcile returns.
	testutil.Eventually(t, "the backoff forgotten after the success", func() bool {
		return c.Queue().NumRequeues(req("flaky")) == 0
	})

	// RequeueAfter fires once.
	rec.script(req("periodic"), answer{res: Result{RequeueAfter: 30 * time.Second}})
	if _, err := srv.Create(configMap("shop", "periodic")); err != nil {
		t.Fatal(err)
	}
	waitFor("periodic", 1)
	testutil.Eventually(t, "requeue timer", clk.HasWaiters)
	clk.Step(30 * time.Second)
	waitFor("periodic", 2)
	clk.Step(time.Hour)
	settle(t, c, rec, &probe)
	if n := rec.count(req("periodic")); n != 2 {
		t.Fatalf("periodic reconciled %d times, want 2 (RequeueAfter once)", n)
	}
	for _, n := range []string{"listed-1", "listed-2"} {
		if got := rec.count(req(n)); got != 1 {
			t.Fatalf("%s reconciled %d times, want 1", n, got)
		}
	}
}

// TestInitialListBehindLiveEvents checks that objects of the initial list
// reach the queue at low priority.
func TestInitialListBehindLiveEvents(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv := fake.NewServer[*corev1.ConfigMap]()
	for _, n := range []string{"a", "b", "c"} {
		srv.Create(configMap("ns", n))
	}
	informer := cache.NewSharedIndexInformer[*corev1.ConfigMap](srv.ListerWatcher(""), 0, nil)
	gate := make(chan struct{})
	rec := newRecorder()
	c, _ := New("cm", rec, Options{Gate: gate})
	if err := Watch(c, informer, EnqueueRequestForObject[*corev1.ConfigMap]()); err != nil {
		t.Fatal(err)
	}
	go informer.Run(ctx)
	startController(t, c)
	testutil.Eventually(t, "initial list queued", func() bool { return c.Queue().Len() == 3 })
	c.Queue().Add(Request{Namespace: "ns", Name: "live"})
	close(gate)
	testutil.Eventually(t, "all reconciled", func() bool { return rec.count(Request{Namespace: "ns", Name: "c"}) == 1 })
	rec.mu.Lock()
	first := rec.order[0]
	rec.mu.Unlock()
	if first.Name != "live" {
		t.Fatalf("first reconcile was %v, want the live event ahead of the initial list", first)
	}
}

// TestCacheSyncTimeoutSaysWhy checks that Start fails with the informer's
// list error when the cache cannot sync.
func TestCacheSyncTimeoutSaysWhy(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	gr := schema.GroupResource{Resource: "configmaps"}
	srv := fake.NewServer[*corev1.ConfigMap](fake.WithResource(gr))
	srv.FailLists(apierrors.NewForbidden(gr, "", errors.New("no RBAC")))
	srv.FailWatches(apierrors.NewForbidden(gr, "", errors.New("no RBAC"))) // and no watch-list either
	informer := cache.NewSharedIndexInformerWithOptions[*corev1.ConfigMap](srv.ListerWatcher(""), cache.SharedIndexInformerOptions[*corev1.ConfigMap]{Name: "configmaps"})
	c, _ := New("cm", newRecorder(), Options{CacheSyncTimeout: 300 * time.Millisecond})
	if err := Watch(c, informer, EnqueueRequestForObject[*corev1.ConfigMap]()); err != nil {
		t.Fatal(err)
	}
	go informer.Run(ctx)
	testutil.Eventually(t, "a failed list", func() bool { return informer.LastError() != nil })
	err := c.Start(ctx)
	var notSynced *cache.NotSyncedError
	if !errors.As(err, &notSynced) {
		t.Fatalf("Start = %v, want a *cache.NotSyncedError", err)
	}
	if !apierrors.IsForbidden(err) {
		t.Fatalf("Start = %v, want it to carry the Forbidden list error", err)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Start = %v, want the timeout as cause", err)
	}
}
