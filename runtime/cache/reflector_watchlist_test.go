package cache_test

import (
	"context"
	"slices"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/typedinformer/typedinformer/internal/testutil/informertest"
	"github.com/typedinformer/typedinformer/runtime/cache"
)

// isWatchList matches the options of a watch-list request.
func isWatchList(o metav1.ListOptions) bool {
	return o.SendInitialEvents != nil && *o.SendInitialEvents
}

func TestReflectorWatchListIsTheDefault(t *testing.T) {
	srv := seedServer(t)
	inf := podInformer(srv, cache.SharedIndexInformerOptions[*corev1.Pod]{})
	run(t, inf)
	waitSynced(t, inf)
	waitStore(t, inf, "a/p1@2 a/p2@3 a/p3@4")
	if r := srv.Requests()[0]; r.Verb != "watch" || !isWatchList(r.Options) {
		t.Fatalf("first request %+v, want a watch-list with zero ReflectorOptions", r)
	}
	if n := countRequests(srv, "list", nil); n != 0 {
		t.Fatalf("%d lists", n)
	}
}

// unsupportingLW is a ListerWatcher that says it cannot stream.
type unsupportingLW struct{ cache.ListerWatcher }

func (unsupportingLW) IsWatchListSemanticsUnSupported() bool { return true }

// fakeClient stands for a clientset with client-go's
// IsWatchListSemanticsUnSupported method.
type fakeClient struct{ unsupported bool }

func (c fakeClient) IsWatchListSemanticsUnSupported() bool { return c.unsupported }

// A client that streams, or that does not say, keeps watch-list on.
func TestToListWatcherWithWatchListSemanticsKeepsStreamingClients(t *testing.T) {
	for _, client := range []any{nil, fakeClient{unsupported: false}, struct{}{}} {
		srv := seedServer(t)
		lw := srv.ListerWatcher("")
		inf := cache.NewSharedIndexInformerWithOptions[*corev1.Pod](
			cache.ToListWatcherWithWatchListSemantics(&cache.ListWatch{ListFunc: lw.List, WatchFunc: lw.Watch}, client),
			cache.SharedIndexInformerOptions[*corev1.Pod]{Name: "pods"})
		run(t, inf)
		waitSynced(t, inf)
		if r := srv.Requests()[0]; r.Verb != "watch" || !isWatchList(r.Options) {
			t.Fatalf("client %T: first request %+v, want a watch-list", client, r)
		}
	}
}

func TestReflectorWatchListOffWhenAskedTo(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, lw cache.ListerWatcher) (cache.ListerWatcher, cache.ReflectorOptions)
	}{
		{"DisableWatchList", func(_ *testing.T, lw cache.ListerWatcher) (cache.ListerWatcher, cache.ReflectorOptions) {
			return lw, cache.ReflectorOptions{DisableWatchList: true}
		}},
		{"client-go's environment switch", func(t *testing.T, lw cache.ListerWatcher) (cache.ListerWatcher, cache.ReflectorOptions) {
			t.Setenv("KUBE_FEATURE_WatchListClient", "false")
			return lw, cache.ReflectorOptions{}
		}},
		{"a client without watch-list semantics", func(_ *testing.T, lw cache.ListerWatcher) (cache.ListerWatcher, cache.ReflectorOptions) {
			return unsupportingLW{lw}, cache.ReflectorOptions{}
		}},
		{"ToListWatcherWithWatchListSemantics of a fake clientset", func(_ *testing.T, lw cache.ListerWatcher) (cache.ListerWatcher, cache.ReflectorOptions) {
			return cache.ToListWatcherWithWatchListSemantics(&cache.ListWatch{ListFunc: lw.List, WatchFunc: lw.Watch}, fakeClient{unsupported: true}), cache.ReflectorOptions{}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := seedServer(t)
			lw, opts := tc.setup(t, srv.ListerWatcher(""))
			inf := cache.NewSharedIndexInformerWithOptions[*corev1.Pod](lw, cache.SharedIndexInformerOptions[*corev1.Pod]{Name: "pods", Reflector: opts})
			run(t, inf)
			waitSynced(t, inf)
			waitWatchers(t, srv, 1)
			if n := countRequests(srv, "watch", isWatchList); n != 0 {
				t.Fatalf("%d watch-list requests", n)
			}
			if r := srv.Requests()[0]; r.Verb != "list" {
				t.Fatalf("first request %+v, want a list", r)
			}
		})
	}
}

// TestReflectorWatchListWithAFakeWatcherListsAndConsumesIt covers clients
// whose watches are apimachinery fake watchers that never send the
// initial-events-end bookmark, and that hand out one watcher whatever the
// options, as tests do: the reflector lists, watches from the list's
// resourceVersion, is given the same watcher, consumes it, and never
// streams again.
func TestReflectorWatchListWithAFakeWatcherListsAndConsumesIt(t *testing.T) {
	fw := watch.NewFake()
	var mu sync.Mutex
	var watches []metav1.ListOptions
	lists := 0
	lw := &cache.ListWatch{
		ListFunc: func(context.Context, metav1.ListOptions) (runtime.Object, error) {
			mu.Lock()
			defer mu.Unlock()
			lists++
			return &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "10"}, Items: []corev1.Pod{*newPod("a", "p1")}}, nil
		},
		WatchFunc: func(_ context.Context, o metav1.ListOptions) (watch.Interface, error) {
			mu.Lock()
			defer mu.Unlock()
			watches = append(watches, o)
			if len(watches) > 2 {
				return watch.NewFake(), nil
			}
			return fw, nil
		},
	}
	inf := cache.NewSharedIndexInformerWithOptions[*corev1.Pod](lw, cache.SharedIndexInformerOptions[*corev1.Pod]{Name: "pods"})
	run(t, inf)
	waitSynced(t, inf)
	p2 := newPod("a", "p2")
	p2.ResourceVersion = "11"
	fw.Add(p2) // blocks until the reflector reads the watcher
	eventually(t, "p2 from the fake watcher", func() bool { _, ok, _ := inf.GetIndexer().GetByKey("a/p2"); return ok })
	fw.Stop()
	eventually(t, "a re-watch", func() bool { mu.Lock(); defer mu.Unlock(); return len(watches) == 3 })
	mu.Lock()
	defer mu.Unlock()
	if lists != 1 || len(watches) < 1 || !isWatchList(watches[0]) {
		t.Fatalf("lists %d, watches %+v: want one watch-list answered by the fake watcher, then one list", lists, watches)
	}
	for _, o := range watches[1:] {
		if isWatchList(o) {
			t.Fatalf("streamed again after a fake watcher: %+v", watches)
		}
	}
}

// TestReflectorWatchListWithAFakeClientsetWatchesFromTheList covers
// client-go's fake clientsets: the object tracker answers a watch-list
// request with a fake watcher into which it replays every stored object,
// and a watch from a resourceVersion with only what came after it. The
// reflector lists, stops that watcher and watches from the list's
// resourceVersion, as client-go does, so no listed object reaches the
// handlers twice (as an update with an unchanged resourceVersion).
func TestReflectorWatchListWithAFakeClientsetWatchesFromTheList(t *testing.T) {
	p1 := newPod("a", "p1")
	p1.ResourceVersion = "10"
	replay := watch.NewFakeWithChanSize(1, false)
	replay.Add(p1)
	live := watch.NewFakeWithChanSize(1, false)
	var mu sync.Mutex
	var watches []metav1.ListOptions
	lw := &cache.ListWatch{
		ListFunc: func(context.Context, metav1.ListOptions) (runtime.Object, error) {
			return &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "10"}, Items: []corev1.Pod{*p1}}, nil
		},
		WatchFunc: func(_ context.Context, o metav1.ListOptions) (watch.Interface, error) {
			mu.Lock()
			defer mu.Unlock()
			watches = append(watches, o)
			switch len(watches) {
			case 1:
				return replay, nil
			case 2:
				return live, nil
			}
			return watch.NewFake(), nil
		},
	}
	inf := cache.NewSharedIndexInformerWithOptions[*corev1.Pod](lw, cache.SharedIndexInformerOptions[*corev1.Pod]{Name: "pods"})
	rec := newRecorder()
	informertest.AddHandler(t, inf, rec)
	run(t, inf)
	waitSynced(t, inf)
	p2 := newPod("a", "p2")
	p2.ResourceVersion = "11"
	live.Add(p2)
	rec.WaitEvent(t, "add a/p2@11 initial=false")
	if got, want := rec.Events(), []string{"add a/p1@10 initial=true", "add a/p2@11 initial=false"}; !slices.Equal(got, want) {
		t.Fatalf("handler got %q, want %q", got, want)
	}
	if !replay.IsStopped() {
		t.Fatal("the watcher that answered the watch-list request was not stopped")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(watches) != 2 || !isWatchList(watches[0]) || isWatchList(watches[1]) || watches[1].ResourceVersion != "10" {
		t.Fatalf("watches %+v: want a watch-list, then a watch from the list's resourceVersion 10", watches)
	}
}

// TestReflectorWatchListStreamFailureListsThisTime checks client-go's rule:
// a stream that fails before the initial events end falls back to a list
// for this sync.
func TestReflectorWatchListStreamFailureListsThisTime(t *testing.T) {
	srv := seedServer(t)
	inner := srv.ListerWatcher("")
	first := true
	lw := &cache.ListWatch{
		ListFunc: inner.List,
		WatchFunc: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			if first && isWatchList(o) {
				first = false
				// A stream that ends with a server error before the bookmark.
				w := watch.NewRaceFreeFake()
				w.Error(&metav1.Status{Status: metav1.StatusFailure, Code: 500, Reason: metav1.StatusReasonInternalError, Message: "boom"})
				return &notFake{w}, nil
			}
			return inner.Watch(ctx, o)
		},
	}
	inf := cache.NewSharedIndexInformerWithOptions[*corev1.Pod](lw, cache.SharedIndexInformerOptions[*corev1.Pod]{Name: "pods", Reflector: watchListReflector()})
	run(t, inf)
	waitSynced(t, inf)
	waitStore(t, inf, "a/p1@2 a/p2@3 a/p3@4")
	reqs := srv.Requests()
	if len(reqs) < 2 || reqs[0].Verb != "list" || reqs[1].Verb != "watch" || isWatchList(reqs[1].Options) {
		t.Fatalf("requests after the failed stream %+v, want a list then a plain watch", reqs)
	}
}

// notFake hides a fake watcher's type, as a real stream would look.
type notFake struct{ watch.Interface }
