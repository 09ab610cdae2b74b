package cache_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"

	corev1 "k8s.io/api/core/v1"

	"github.com/typedinformer/typedinformer/runtime/cache"
	"github.com/typedinformer/typedinformer/runtime/fake"
)

// blockedHandlerRun serves n Pods to a running informer whose one handler
// blocks inside its blockAt-th add until release is closed; it returns once
// that call has begun and every other goroutine is idle. calls counts the
// handler's calls; the informer stops when the test ends.
func blockedHandlerRun(t *testing.T, n int, blockAt int64) (inf cache.SharedIndexInformer[*corev1.Pod], reg cache.ResourceEventHandlerRegistration, calls *atomic.Int64, release chan struct{}) {
	t.Helper()
	srv := fake.NewServer[*corev1.Pod]()
	for i := range n {
		create(t, srv, newPod("ns", fmt.Sprintf("p%03d", i)))
	}
	inf = podInformer(srv, cache.SharedIndexInformerOptions[*corev1.Pod]{})
	entered := make(chan struct{})
	release = make(chan struct{})
	calls = new(atomic.Int64)
	reg, err := inf.AddEventHandler(cache.ResourceEventHandlerDetailedFuncs[*corev1.Pod]{
		AddFunc: func(*corev1.Pod, bool) {
			if calls.Add(1) == blockAt {
				close(entered)
				<-release
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		inf.Run(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	<-entered
	synctest.Wait() // the informer has applied and distributed what it could
	return inf, reg, calls, release
}

// A handler is removed while it is inside its first call and hundreds more
// calls are already handed to its listener. Once RemoveEventHandler has
// returned, the handler may finish that call and receive nothing else; its
// registration's HasSynced stays false (it had not been handed everything).
func TestRemoveEventHandlerAtMostInFlightCallAfterReturn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		inf, reg, calls, release := blockedHandlerRun(t, 300, 1)
		if !inf.HasSynced() {
			t.Fatal("informer not synced while the handler holds its first call")
		}
		if err := inf.RemoveEventHandler(reg); err != nil {
			t.Fatal(err)
		}
		before := calls.Load()
		close(release)
		synctest.Wait() // every goroutine is idle: nothing more is coming
		if after := calls.Load() - before; after > 0 {
			t.Fatalf("the handler got %d calls after RemoveEventHandler returned (beyond the one under way)", after)
		}
		if reg.HasSynced() {
			t.Fatal("the removed registration's HasSynced turned true after removal")
		}
	})
}

// An index function fails on one object: the object stays in the store,
// only that index leaves it out, and the error is reported (LastError,
// SyncError, WaitForSync) until the object is fixed, then again for
// another object until it is deleted. A later good event of another key
// does not clear it.
func TestIndexErrorObjectKeptSkippedInIndexAndReportedUntilFixedOrDeleted(t *testing.T) {
	srv := fake.NewServer[*corev1.Pod]()
	create(t, srv, newPod("a", "good"))
	bad := create(t, srv, newPod("a", "bad", "broken", "yes"))
	errBad := errors.New("cannot index a broken pod")
	inf := podInformer(srv, cache.SharedIndexInformerOptions[*corev1.Pod]{
		Reflector: fastReflector(),
		Indexers: cache.Indexers[*corev1.Pod]{"byName": func(p *corev1.Pod) ([]string, error) {
			if p.Labels["broken"] == "yes" {
				return nil, errBad
			}
			return []string{p.Name}, nil
		}},
	})
	run(t, inf)
	eventually(t, "informer synced", inf.HasSynced)

	waitErr := func() error {
		ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
		defer cancel()
		return cache.WaitForSync(ctx, inf)
	}
	err := waitErr()
	var withErrs *cache.SyncedWithErrorsError
	if !errors.As(err, &withErrs) || !errors.Is(err, errBad) || !strings.Contains(err.Error(), "a/bad") || !strings.Contains(err.Error(), "byName") {
		t.Fatalf("WaitForSync = %v, want a SyncedWithErrorsError naming a/bad and the index", err)
	}
	if _, ok, _ := inf.GetStore().GetByKey("a/bad"); !ok {
		t.Fatal("the object the index function failed on is missing from the store")
	}
	if got, _ := inf.GetIndexer().ByIndex("byName", "bad"); len(got) != 0 {
		t.Fatal("the failing index holds the object")
	}
	if err := inf.LastError(); !errors.Is(err, errBad) {
		t.Fatalf("LastError = %v, want the index error", err)
	}

	// A good event of another key does not clear the report.
	create(t, srv, newPod("a", "other"))
	eventually(t, "a/other stored", func() bool {
		_, ok, _ := inf.GetStore().GetByKey("a/other")
		return ok
	})
	if err := inf.SyncError(); !errors.Is(err, errBad) {
		t.Fatalf("SyncError after a good event = %v, want the index error still", err)
	}

	// Fixed: indexed, and no error.
	bad.Labels = nil
	update(t, srv, bad)
	eventually(t, "the fixed object indexed", func() bool {
		got, _ := inf.GetIndexer().ByIndex("byName", "bad")
		return len(got) == 1 && inf.SyncError() == nil
	})
	if err := waitErr(); err != nil {
		t.Fatalf("WaitForSync after the fix = %v", err)
	}

	// Broken again, then deleted: the report goes with the object.
	other, _ := srv.Get("a", "other")
	other.Labels = map[string]string{"broken": "yes"}
	update(t, srv, other)
	eventually(t, "the index error reported", func() bool { return errors.Is(inf.SyncError(), errBad) })
	del(t, srv, "a", "other")
	eventually(t, "the report gone with the object", func() bool { return inf.SyncError() == nil })
}

// A transform that returns (nil, nil) is an error, never a panic: a watch
// event it rejects is dropped and reported until a later event of the key
// transforms cleanly; a list it rejects fails and is retried, and
// WaitForSync names the error.
func TestTransformNilResultIsAnErrorNotAPanic(t *testing.T) {
	// runNilForBad runs an informer on srv whose transform returns nil for
	// a/bad until it is labelled fixed.
	runNilForBad := func(t *testing.T, srv *fake.Server[*corev1.Pod]) cache.SharedIndexInformer[*corev1.Pod] {
		t.Helper()
		inf := podInformer(srv, cache.SharedIndexInformerOptions[*corev1.Pod]{Reflector: fastReflector()})
		if err := inf.SetTransform(func(p *corev1.Pod) (*corev1.Pod, error) {
			if p.Name == "bad" && p.Labels["fixed"] == "" {
				return nil, nil
			}
			return p, nil
		}); err != nil {
			t.Fatal(err)
		}
		run(t, inf)
		return inf
	}

	t.Run("watch event", func(t *testing.T) {
		srv := fake.NewServer[*corev1.Pod]()
		create(t, srv, newPod("a", "good"))
		inf := runNilForBad(t, srv)
		waitSynced(t, inf)
		bad := create(t, srv, newPod("a", "bad"))
		eventually(t, "the transform error reported", func() bool {
			err := inf.SyncError()
			return err != nil && strings.Contains(err.Error(), "transform returned nil for a/bad")
		})
		ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
		defer cancel()
		if err := cache.WaitForSync(ctx, inf); err == nil || !strings.Contains(err.Error(), "a/bad") {
			t.Fatalf("WaitForSync = %v, want an error naming a/bad", err)
		}
		if _, ok, _ := inf.GetStore().GetByKey("a/bad"); ok {
			t.Fatal("a nil object reached the store")
		}
		bad.Labels = map[string]string{"fixed": "yes"}
		update(t, srv, bad)
		eventually(t, "the fixed object stored and the error gone", func() bool {
			_, ok, _ := inf.GetStore().GetByKey("a/bad")
			return ok && inf.SyncError() == nil
		})
	})

	t.Run("list", func(t *testing.T) {
		srv := fake.NewServer[*corev1.Pod]()
		create(t, srv, newPod("a", "bad"))
		inf := runNilForBad(t, srv)
		eventually(t, "the list error reported", func() bool {
			err := inf.LastError()
			return err != nil && strings.Contains(err.Error(), "transform returned nil for a/bad")
		})
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if err := cache.WaitForSync(ctx, inf); err == nil || !strings.Contains(err.Error(), "transform returned nil for a/bad") {
			t.Fatalf("WaitForSync = %v, want the transform error", err)
		}
	})
}

// Nil functions given to exported constructors and registrations are
// errors naming what is missing, never panics on an informer goroutine.
func TestConstructorsRejectNilFunctionsWithAnError(t *testing.T) {
	// A nil ListerWatcher: Run runs nothing, the informer never syncs and
	// says why.
	inf := cache.NewSharedIndexInformer[*corev1.Pod](nil, 0, nil)
	stop := run(t, inf)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := cache.WaitForSync(ctx, inf); err == nil || !strings.Contains(err.Error(), "nil ListerWatcher") {
		t.Fatalf("WaitForSync = %v, want an error naming the nil ListerWatcher", err)
	}
	stop()

	// A nil index function: every object fails that index with an error
	// naming it; the informer runs on.
	srv := seedServer(t)
	inf = podInformer(srv, cache.SharedIndexInformerOptions[*corev1.Pod]{
		Reflector: fastReflector(),
		Indexers:  cache.Indexers[*corev1.Pod]{"missing": nil},
	})
	run(t, inf)
	eventually(t, "informer synced", inf.HasSynced)
	if err := inf.SyncError(); err == nil || !strings.Contains(err.Error(), `"missing"`) {
		t.Fatalf("SyncError = %v, want the nil index function named", err)
	}
	waitStore(t, inf, "a/p1@2 a/p2@3 a/p3@4")

	// AddIndexers: nil map, nil function, clashing name.
	if err := inf.AddIndexers(nil); err != nil {
		t.Fatalf("AddIndexers(nil) = %v", err)
	}
	if err := inf.AddIndexers(cache.Indexers[*corev1.Pod]{"x": nil}); err == nil || !strings.Contains(err.Error(), `"x"`) {
		t.Fatalf("AddIndexers with a nil function = %v", err)
	}
	if err := inf.AddIndexers(cache.Indexers[*corev1.Pod]{"missing": byNodeName}); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("AddIndexers with a clashing name = %v", err)
	}

	// A filtering handler without its function or handler.
	if _, err := inf.AddEventHandler(cache.FilteringResourceEventHandler[*corev1.Pod]{Handler: newRecorder()}); err == nil || !strings.Contains(err.Error(), "FilterFunc") {
		t.Fatalf("AddEventHandler with a nil FilterFunc = %v", err)
	}
	if _, err := inf.AddEventHandler(&cache.FilteringResourceEventHandler[*corev1.Pod]{FilterFunc: func(*corev1.Pod) bool { return true }}); err == nil || !strings.Contains(err.Error(), "Handler") {
		t.Fatalf("AddEventHandler with a nil Handler = %v", err)
	}
}

func byNodeName(p *corev1.Pod) ([]string, error) { return []string{p.Spec.NodeName}, nil }

// A handler is removed inside its last initial add: its registration had not
// synced then and must not turn synced when that call returns.
func TestRemoveEventHandlerRegistrationHasSyncedKeepsItsValue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		inf, reg, _, release := blockedHandlerRun(t, 3, 3)
		if reg.HasSynced() {
			t.Fatal("registration synced while its last initial add is under way")
		}
		if err := inf.RemoveEventHandler(reg); err != nil {
			t.Fatal(err)
		}
		close(release)
		synctest.Wait()
		if reg.HasSynced() {
			t.Fatal("the removed registration's HasSynced turned true when the in-flight call returned")
		}
	})
}
