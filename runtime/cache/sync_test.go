package cache_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/typedinformer/typedinformer/internal/testutil/informertest"
	"github.com/typedinformer/typedinformer/runtime/cache"
	"github.com/typedinformer/typedinformer/runtime/fake"
)

// waitUnsynced runs WaitForSync until the informer has reported an
// error, then cancels it, and returns its error.
func waitUnsynced(t *testing.T, inf cache.AnyInformer, syncers ...cache.Syncer) error {
	t.Helper()
	eventually(t, "a list error", func() bool { return inf.LastError() != nil })
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return cache.WaitForSync(ctx, syncers...)
}

func TestWaitForCacheSyncNamesInformerAndForbiddenError(t *testing.T) {
	srv := fake.NewServer[*corev1.Pod](fake.WithResource(schema.GroupResource{Resource: "pods"}))
	srv.FailLists(apierrors.NewForbidden(srv.Resource(), "", errors.New(`User "ci" cannot list resource "pods"`)))
	inf := podInformer(srv, cache.SharedIndexInformerOptions[*corev1.Pod]{Reflector: fastReflector()})
	run(t, inf)
	err := waitUnsynced(t, inf, inf)
	var ns *cache.NotSyncedError
	if !errors.As(err, &ns) {
		t.Fatalf("err = %v (%T), want *NotSyncedError", err, err)
	}
	if len(ns.Pending) != 1 || ns.Pending[0].Name != "pods" || !apierrors.IsForbidden(ns.Pending[0].LastError) {
		t.Fatalf("pending = %+v, want pods with its Forbidden error", ns.Pending)
	}
	if !apierrors.IsForbidden(err) || !errors.Is(err, context.Canceled) {
		t.Fatalf("%v does not unwrap to Forbidden and the context's cause", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "pods") || !strings.Contains(msg, "forbidden") {
		t.Fatalf("message %q does not name the informer and the error", msg)
	}
}

func TestWaitForCacheSyncNamesInformerAndNotFoundError(t *testing.T) {
	gr := schema.GroupResource{Group: "example.com", Resource: "foos"}
	srv := fake.NewServer[*corev1.Pod](fake.WithResource(gr))
	srv.FailLists(apierrors.NewNotFound(gr, "")) // the CRD is not installed
	inf := cache.NewSharedIndexInformerWithOptions[*corev1.Pod](srv.ListerWatcher(""), cache.SharedIndexInformerOptions[*corev1.Pod]{
		Resource:  gr.WithVersion("v1"),
		Reflector: fastReflector(),
	})
	run(t, inf)
	err := waitUnsynced(t, inf, inf)
	var ns *cache.NotSyncedError
	if !errors.As(err, &ns) || len(ns.Pending) != 1 || ns.Pending[0].Name != "foos.example.com" {
		t.Fatalf("err = %v, want foos.example.com pending", err)
	}
	if !apierrors.IsNotFound(err) {
		t.Fatalf("%v does not unwrap to NotFound", err)
	}
	if !strings.Contains(err.Error(), "is its CRD installed") {
		t.Fatalf("%q does not say the resource is not served", err)
	}
}

func TestWaitForCacheSyncListsOnlyPendingSyncers(t *testing.T) {
	good := seedServer(t)
	bad := fake.NewServer[*corev1.Pod]()
	bad.FailLists(apierrors.NewForbidden(bad.Resource(), "", errors.New("no")))
	goodInf := podInformer(good, cache.SharedIndexInformerOptions[*corev1.Pod]{Name: "good", Reflector: fastReflector()})
	badInf := podInformer(bad, cache.SharedIndexInformerOptions[*corev1.Pod]{Name: "bad", Reflector: fastReflector()})
	reg := informertest.AddHandler(t, badInf, newRecorder())
	run(t, goodInf)
	run(t, badInf)
	waitSynced(t, goodInf)
	neverSynced := cache.NamedSyncer{Label: "custom", Func: func() bool { return false }}
	err := waitUnsynced(t, badInf, goodInf, badInf, reg, neverSynced)
	var ns *cache.NotSyncedError
	if !errors.As(err, &ns) {
		t.Fatalf("err = %v", err)
	}
	var names []string
	for _, p := range ns.Pending {
		names = append(names, p.Name)
	}
	// The registration has no name: it is named by its position.
	if strings.Join(names, ",") != "bad,syncer #2,custom" {
		t.Fatalf("pending = %q, want bad, syncer #2, custom", names)
	}
}

func TestWaitForCacheSyncNilOnceSynced(t *testing.T) {
	srv := seedServer(t)
	inf := podInformer(srv, cache.SharedIndexInformerOptions[*corev1.Pod]{Reflector: fastReflector()})
	reg := informertest.AddHandler(t, inf, newRecorder())
	run(t, inf)
	waitSynced(t, inf, reg)
	// Already synced: nil even with an ended context.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := cache.WaitForSync(ctx, inf, reg); err != nil {
		t.Fatalf("synced informer: %v", err)
	}
}
