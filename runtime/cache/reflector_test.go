package cache_test

import (
	"context"
	"errors"
	"fmt"
	goruntime "runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/typedinformer/typedinformer/internal/testutil/informertest"
	"github.com/typedinformer/typedinformer/runtime/cache"
	"github.com/typedinformer/typedinformer/runtime/fake"
)

// errorLog collects what a WatchErrorHandler is called with.
type errorLog struct {
	mu   sync.Mutex
	errs []error
}

func (l *errorLog) handler(_ context.Context, err error) {
	l.mu.Lock()
	l.errs = append(l.errs, err)
	l.mu.Unlock()
}

// matching reports whether some logged error satisfies match.
func (l *errorLog) matching(match func(error) bool) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, err := range l.errs {
		if match(err) {
			return true
		}
	}
	return false
}

func (l *errorLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return fmt.Sprint(l.errs)
}

// errConnRefused is what a dial to a stopped API server returns.
var errConnRefused = fmt.Errorf("dial tcp 127.0.0.1:6443: connect: %w", syscall.ECONNREFUSED)

func seedServer(t testing.TB, opts ...fake.ServerOption) *fake.Server[*corev1.Pod] {
	t.Helper()
	srv := fake.NewServer[*corev1.Pod](opts...)
	for _, n := range []string{"p1", "p2", "p3"} {
		create(t, srv, newPod("a", n))
	}
	return srv
}

// runSeeded runs a synced informer, with fastReflector, over a seedServer.
func runSeeded(t testing.TB) (*fake.Server[*corev1.Pod], cache.SharedIndexInformer[*corev1.Pod]) {
	t.Helper()
	srv := seedServer(t)
	inf := podInformer(srv, cache.SharedIndexInformerOptions[*corev1.Pod]{Reflector: fastReflector()})
	run(t, inf)
	waitSynced(t, inf)
	return srv, inf
}

// runWithErrors runs a synced informer over srv with reflector options
// opts, its watch errors recorded in the returned log.
func runWithErrors(t testing.TB, srv *fake.Server[*corev1.Pod], opts cache.ReflectorOptions) (cache.SharedIndexInformer[*corev1.Pod], *errorLog) {
	t.Helper()
	errs := &errorLog{}
	inf := podInformer(srv, cache.SharedIndexInformerOptions[*corev1.Pod]{Reflector: opts})
	if err := inf.SetWatchErrorHandler(errs.handler); err != nil {
		t.Fatal(err)
	}
	run(t, inf)
	waitSynced(t, inf)
	return inf, errs
}

func TestReflectorFirstListUsesRV0(t *testing.T) {
	srv, _ := runSeeded(t)
	reqs := srv.Requests()
	if len(reqs) == 0 || reqs[0].Verb != "list" || reqs[0].Options.ResourceVersion != "0" {
		t.Fatalf("first request = %+v, want a list at resourceVersion \"0\"", reqs)
	}
}

func TestReflectorWatchesFromListRVAllowingBookmarks(t *testing.T) {
	srv, inf := runSeeded(t)
	waitWatchers(t, srv, 1)
	reqs := srv.Requests()
	w := reqs[1]
	if w.Verb != "watch" || w.Options.ResourceVersion != "4" || !w.Options.AllowWatchBookmarks {
		t.Fatalf("second request = %+v, want a watch from the list's RV 4 allowing bookmarks", w)
	}
	if inf.LastSyncResourceVersion() != "4" {
		t.Fatalf("LastSyncResourceVersion = %s, want 4", inf.LastSyncResourceVersion())
	}
}

// runWatchingNamespaceA runs an informer over srv's namespace "a" only and
// waits until it is synced and watching.
func runWatchingNamespaceA(t testing.TB, srv *fake.Server[*corev1.Pod]) cache.SharedIndexInformer[*corev1.Pod] {
	t.Helper()
	inf := cache.NewSharedIndexInformerWithOptions[*corev1.Pod](srv.ListerWatcher("a"),
		cache.SharedIndexInformerOptions[*corev1.Pod]{Name: "pods", Reflector: fastReflector()})
	run(t, inf)
	waitSynced(t, inf)
	waitWatchers(t, srv, 1)
	return inf
}

func TestReflectorBookmarkAdvancesLastSyncRV(t *testing.T) {
	srv := seedServer(t)
	inf := runWatchingNamespaceA(t, srv)
	// Changes in another namespace advance the server's RV but reach the
	// watch only as a bookmark.
	create(t, srv, newPod("b", "x"))
	create(t, srv, newPod("b", "y"))
	srv.SendBookmarks()
	eventually(t, "LastSyncResourceVersion to follow the bookmark", func() bool {
		return inf.LastSyncResourceVersion() == srv.ResourceVersion()
	})
	waitStore(t, inf, "a/p1@2 a/p2@3 a/p3@4")
}

func TestReflectorRelistsWithEmptyRVAfter410(t *testing.T) {
	tests := []struct {
		name string
		// provoke makes the open watch end with 410 Expired while the
		// server moves on.
		provoke func(t *testing.T, srv *fake.Server[*corev1.Pod])
	}{
		{
			name: "ERROR event on the open watch",
			provoke: func(t *testing.T, srv *fake.Server[*corev1.Pod]) {
				create(t, srv, newPod("a", "new"))
				srv.Compact()
				srv.ExpireWatches()
			},
		},
		{
			name: "re-watch from a compacted RV",
			provoke: func(t *testing.T, srv *fake.Server[*corev1.Pod]) {
				// Hold re-watches back while the server moves on and
				// compacts, then let the reflector watch from its old RV.
				srv.FailWatches(errConnRefused)
				create(t, srv, newPod("a", "seen")) // delivered, so the close is not "very short"
				srv.DropWatches()
				eventually(t, "a refused re-watch", func() bool {
					return countRequests(srv, "watch", nil) >= 3
				})
				create(t, srv, newPod("a", "new"))
				srv.Compact()
				srv.ClearFaults()
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := seedServer(t)
			inf, errs := runWithErrors(t, srv, fastReflector())
			ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
			defer cancel()
			if err := srv.WaitForWatchers(ctx, 1); err != nil {
				t.Fatal(err)
			}
			tt.provoke(t, srv)
			eventually(t, "a consistent relist", func() bool {
				return countRequests(srv, "list", func(o metav1.ListOptions) bool { return o.ResourceVersion == "" && o.Continue == "" }) == 1
			})
			waitStore(t, inf, serverString(srv))
			if !errs.matching(apierrors.IsResourceExpired) {
				t.Fatalf("the 410 was not reported: %s", errs)
			}
			// The relist is the only list besides the first one.
			if n := countRequests(srv, "list", nil); n != 2 {
				t.Fatalf("%d lists, want the first and the consistent relist: %+v", n, srv.Requests())
			}
		})
	}
}

func TestReflectorExpiredRelistRVFallsBackToConsistentList(t *testing.T) {
	srv := seedServer(t)
	inf := runWatchingNamespaceA(t, srv)
	// The watch breaks with an error that is not a 410, so the reflector
	// relists from its last synced RV (5); meanwhile the server moved on
	// where the informer does not look and compacted past 5.
	srv.FailNextWatch(apierrors.NewInternalError(errors.New("etcd leader changed")))
	create(t, srv, newPod("a", "p4")) // 5, seen by the watch
	create(t, srv, newPod("b", "elsewhere"))
	srv.Compact()
	srv.DropWatches()
	eventually(t, "a consistent list after the expired one", func() bool {
		return countRequests(srv, "list", func(o metav1.ListOptions) bool { return o.ResourceVersion == "" }) == 1
	})
	waitStore(t, inf, "a/p1@2 a/p2@3 a/p3@4 a/p4@5")
	var lists []string
	for _, r := range srv.Requests() {
		if r.Verb == "list" {
			lists = append(lists, fmt.Sprintf("rv=%q", r.Options.ResourceVersion))
		}
	}
	if want := []string{`rv="0"`, `rv="5"`, `rv=""`}; fmt.Sprint(lists) != fmt.Sprint(want) {
		t.Fatalf("lists = %q, want %q", lists, want)
	}
}

func TestReflectorPaginatesConsistentList(t *testing.T) {
	srv := fake.NewServer[*corev1.Pod]()
	for i := 0; i < 7; i++ {
		create(t, srv, newPod("a", fmt.Sprintf("p%d", i)))
	}
	opts := fastReflector()
	opts.PageSize = 3
	inf := podInformer(srv, cache.SharedIndexInformerOptions[*corev1.Pod]{Reflector: opts})
	run(t, inf)
	waitSynced(t, inf)
	waitWatchers(t, srv, 1)
	srv.Compact()
	srv.ExpireWatches()
	eventually(t, "the consistent relist's last page", func() bool {
		return countRequests(srv, "list", func(o metav1.ListOptions) bool { return o.Continue != "" }) == 2
	})
	var pages []string
	for _, r := range srv.Requests() {
		if r.Verb == "list" && r.Options.ResourceVersion != "0" {
			pages = append(pages, fmt.Sprintf("rv=%q limit=%d continue=%t", r.Options.ResourceVersion, r.Options.Limit, r.Options.Continue != ""))
		}
	}
	want := []string{`rv="" limit=3 continue=false`, `rv="" limit=3 continue=true`, `rv="" limit=3 continue=true`}
	if fmt.Sprint(pages) != fmt.Sprint(want) {
		t.Fatalf("relist pages = %q, want %q", pages, want)
	}
	waitStore(t, inf, serverString(srv))
}

// A continue token that expires mid-list makes the reflector start over
// with one consistent, unpaginated list.
func TestReflectorExpiredContinueTokenRestartsList(t *testing.T) {
	srv := fake.NewServer[*corev1.Pod]()
	for i := 0; i < 5; i++ {
		create(t, srv, newPod("a", fmt.Sprintf("p%d", i)))
	}
	base := srv.ListerWatcher("")
	var once sync.Once
	lw := &cache.ListWatch{
		ListFunc: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			if opts.Continue != "" {
				once.Do(func() {
					create(t, srv, newPod("a", "during-the-list"))
					srv.Compact()
				})
			}
			return base.List(ctx, opts)
		},
		WatchFunc: base.Watch,
	}
	opts := fastReflector()
	opts.PageSize = 2
	inf := cache.NewSharedIndexInformerWithOptions[*corev1.Pod](lw, cache.SharedIndexInformerOptions[*corev1.Pod]{Name: "pods", Reflector: opts})
	// The first list is at RV "0" (unpaginated); make it a consistent one
	// by expiring the first watch.
	run(t, inf)
	waitSynced(t, inf)
	waitWatchers(t, srv, 1)
	srv.Compact()
	srv.ExpireWatches()
	eventually(t, "the restarted list", func() bool { return countRequests(srv, "list", nil) == 4 })
	waitStore(t, inf, serverString(srv))
	var lists []string
	for _, r := range srv.Requests() {
		if r.Verb == "list" {
			lists = append(lists, fmt.Sprintf("rv=%q limit=%d continue=%t", r.Options.ResourceVersion, r.Options.Limit, r.Options.Continue != ""))
		}
	}
	want := []string{`rv="0" limit=2 continue=false`, `rv="" limit=2 continue=false`, `rv="" limit=2 continue=true`, `rv="" limit=0 continue=false`}
	if fmt.Sprint(lists) != fmt.Sprint(want) {
		t.Fatalf("lists = %q, want %q", lists, want)
	}
}

func TestReflectorVeryShortWatchIsError(t *testing.T) {
	clk := testingclock.NewFakeClock(time.Now())
	srv := seedServer(t)
	inf, errs := runWithErrors(t, srv, cache.ReflectorOptions{DisableWatchList: true,
		Clock: clk, InitialBackoff: time.Second, MaxBackoff: time.Second,
	})
	waitWatchers(t, srv, 1)
	// No time passes on the reflector's clock and no event arrives.
	srv.DropWatches()
	eventually(t, "the very-short-watch error", func() bool {
		return errs.matching(func(err error) bool { return errors.Is(err, cache.ErrVeryShortWatch) })
	})
	if !errors.Is(inf.LastError(), cache.ErrVeryShortWatch) {
		t.Fatalf("LastError = %v", inf.LastError())
	}
	// It is treated as a failure: back off, then list again.
	eventually(t, "the backoff timer", clk.HasWaiters)
	clk.Step(time.Second)
	eventually(t, "a relist", func() bool { return countRequests(srv, "list", nil) == 2 })
}

func TestReflectorCleanWatchCloseRewatchesWithoutRelist(t *testing.T) {
	clk := testingclock.NewFakeClock(time.Now())
	srv := seedServer(t)
	_, errs := runWithErrors(t, srv, cache.ReflectorOptions{DisableWatchList: true, Clock: clk})
	waitWatchers(t, srv, 1)
	clk.Step(2 * time.Second) // the watch has lived long enough
	srv.DropWatches()
	eventually(t, "a second watch", func() bool { return countRequests(srv, "watch", nil) == 2 })
	waitWatchers(t, srv, 1)
	if n := countRequests(srv, "list", nil); n != 1 {
		t.Fatalf("%d lists after a clean watch close, want 1", n)
	}
	if errs.String() != "[]" {
		t.Fatalf("errors reported: %s", errs)
	}
	reqs := srv.Requests()
	if rv := reqs[len(reqs)-1].Options.ResourceVersion; rv != "4" {
		t.Fatalf("re-watch from %q, want the last synced RV 4", rv)
	}
}

func TestReflectorWrongTypeEventDroppedWithError(t *testing.T) {
	srv := seedServer(t)
	inf, errs := runWithErrors(t, srv, fastReflector())
	waitWatchers(t, srv, 1)
	srv.InjectWrongType(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "a/p1", ResourceVersion: "99"}})
	create(t, srv, newPod("a", "after"))
	waitStore(t, inf, "a/after@5 a/p1@2 a/p2@3 a/p3@4")
	if !errs.matching(func(err error) bool { return errors.Is(err, cache.ErrWrongType) }) {
		t.Fatalf("no ErrWrongType reported: %s", errs)
	}
	if inf.LastSyncResourceVersion() != "5" {
		t.Fatalf("LastSyncResourceVersion = %s: the wrong-typed event's RV must not count", inf.LastSyncResourceVersion())
	}
	if n := countRequests(srv, "list", nil); n != 1 {
		t.Fatalf("%d lists: a dropped event must not force a relist", n)
	}
}

func TestReflectorConnectionRefusedWatchRetriesWithoutRelist(t *testing.T) {
	srv, inf := runSeeded(t)
	waitWatchers(t, srv, 1)
	srv.FailWatches(errConnRefused)
	create(t, srv, newPod("a", "p4"))
	srv.DropWatches()
	eventually(t, "refused re-watches", func() bool { return countRequests(srv, "watch", nil) >= 3 })
	if err := inf.LastError(); !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("LastError = %v, want connection refused", err)
	}
	create(t, srv, newPod("a", "p5"))
	srv.ClearFaults()
	waitStore(t, inf, serverString(srv))
	if n := countRequests(srv, "list", nil); n != 1 {
		t.Fatalf("%d lists: a refused watch must be retried, not relisted", n)
	}
	eventually(t, "the error to clear", func() bool { return inf.LastError() == nil })
}

func TestReflectorRandomisedWatchTimeouts(t *testing.T) {
	srv := seedServer(t)
	opts := fastReflector()
	opts.MinWatchTimeout = 10 * time.Second
	inf := podInformer(srv, cache.SharedIndexInformerOptions[*corev1.Pod]{Reflector: opts})
	run(t, inf)
	waitSynced(t, inf)
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	const watches = 8
	for i := 1; i <= watches; i++ {
		eventually(t, fmt.Sprintf("watch %d", i), func() bool { return countRequests(srv, "watch", nil) == i })
		if err := srv.WaitForWatchers(ctx, 1); err != nil {
			t.Fatal(err)
		}
		if i < watches {
			create(t, srv, newPod("b", fmt.Sprint(i))) // an event, so the close is not "very short"
			srv.DropWatches()
		}
	}
	seen := map[int64]bool{}
	for _, r := range srv.Requests() {
		if r.Verb != "watch" {
			continue
		}
		if r.Options.TimeoutSeconds == nil || *r.Options.TimeoutSeconds < 10 || *r.Options.TimeoutSeconds >= 20 {
			t.Fatalf("watch timeout %v, want in [10s, 20s)", r.Options.TimeoutSeconds)
		}
		seen[*r.Options.TimeoutSeconds] = true
	}
	if len(seen) < 2 {
		t.Fatalf("%d watches all asked for the same timeout %v", watches, seen)
	}
}

func TestReflectorWatchListStreamsInitialState(t *testing.T) {
	srv := seedServer(t)
	inf, rec := runRecorded(t, srv, watchListReflector())
	if n := countRequests(srv, "list", nil); n != 0 {
		t.Fatalf("%d lists with watch-list on", n)
	}
	first := srv.Requests()[0]
	if first.Verb != "watch" || first.Options.SendInitialEvents == nil || !*first.Options.SendInitialEvents ||
		first.Options.ResourceVersionMatch != metav1.ResourceVersionMatchNotOlderThan || !first.Options.AllowWatchBookmarks {
		t.Fatalf("first request %+v is not a watch-list", first)
	}
	waitStore(t, inf, "a/p1@2 a/p2@3 a/p3@4")
	if inf.LastSyncResourceVersion() != "4" {
		t.Fatalf("LastSyncResourceVersion = %s, want the end bookmark's 4", inf.LastSyncResourceVersion())
	}
	create(t, srv, newPod("a", "p4"))
	waitStore(t, inf, "a/p1@2 a/p2@3 a/p3@4 a/p4@5")
	rec.WaitEvent(t, "add a/p1@2 initial=true")
	rec.WaitEvent(t, "add a/p4@5 initial=false")
}

func TestReflectorWatchListFallsBackToList(t *testing.T) {
	srv := seedServer(t, fake.WithoutWatchList())
	opts := watchListReflector()
	inf := podInformer(srv, cache.SharedIndexInformerOptions[*corev1.Pod]{Reflector: opts})
	run(t, inf)
	waitSynced(t, inf)
	waitStore(t, inf, "a/p1@2 a/p2@3 a/p3@4")
	waitWatchers(t, srv, 1)
	if r := srv.Requests()[1]; r.Verb != "list" || r.Options.ResourceVersion != "0" {
		t.Fatalf("fallback request %+v, want a list at RV 0", r)
	}
	// As in client-go, each later full sync tries streaming first again
	// (the server may have been upgraded) and falls back again.
	srv.Compact()
	srv.ExpireWatches()
	eventually(t, "a relist", func() bool { return countRequests(srv, "list", nil) == 2 })
	waitWatchers(t, srv, 1)
	watchLists := countRequests(srv, "watch", func(o metav1.ListOptions) bool { return o.SendInitialEvents != nil })
	if watchLists != 2 {
		t.Fatalf("%d watch-list requests, want one refused per full sync", watchLists)
	}
}

func TestReflectorWatchListRelistsAfter410(t *testing.T) {
	srv := seedServer(t)
	inf, rec := runRecorded(t, srv, watchListReflector())
	waitWatchers(t, srv, 1)
	srv.FailWatches(errConnRefused)
	srv.ExpireWatches()
	eventually(t, "a failed re-watch", func() bool { return countRequests(srv, "watch", nil) >= 2 })
	del(t, srv, "a", "p2")
	create(t, srv, newPod("a", "p4"))
	srv.Compact()
	srv.ClearFaults()
	waitStore(t, inf, "a/p1@2 a/p3@4 a/p4@6")
	rec.WaitEvent(t, "delete a/p2@3 unknown=true")
	if n := countRequests(srv, "list", nil); n != 0 {
		t.Fatalf("%d lists: the re-sync should stream", n)
	}
}

func TestReflectorBackoffCappedAndReset(t *testing.T) {
	clk := testingclock.NewFakeClock(time.Now())
	srv := seedServer(t)
	srv.FailLists(apierrors.NewServiceUnavailable("etcd is down"))
	inf := podInformer(srv, cache.SharedIndexInformerOptions[*corev1.Pod]{Reflector: cache.ReflectorOptions{DisableWatchList: true,
		Clock: clk, InitialBackoff: time.Second, MaxBackoff: 4 * time.Second, BackoffResetAfter: time.Minute,
	}})
	run(t, inf)
	lists := func() int { return countRequests(srv, "list", nil) }
	// expectWait checks that, after failure n, no retry happens before
	// atLeast and one happens by atMost (the jitter lies in between).
	expectWait := func(n int, atLeast, atMost time.Duration) {
		t.Helper()
		eventually(t, fmt.Sprintf("list %d", n), func() bool { return lists() == n })
		eventually(t, "the backoff timer", clk.HasWaiters)
		clk.Step(atLeast - time.Millisecond)
		// The reflector sleeps on the fake clock: nothing can have run.
		if got := lists(); got != n {
			t.Fatalf("retried after %v (failure %d), want at least %v", atLeast-time.Millisecond, n, atLeast)
		}
		clk.Step(atMost - atLeast + time.Millisecond)
		eventually(t, fmt.Sprintf("retry %d within %v", n+1, atMost), func() bool { return lists() == n+1 })
	}
	expectWait(1, time.Second, 2*time.Second)
	expectWait(2, 2*time.Second, 4*time.Second)
	expectWait(3, 4*time.Second, 4*time.Second) // capped at MaxBackoff
	expectWait(4, 4*time.Second, 4*time.Second)

	// A healthy minute resets the backoff to its initial value.
	eventually(t, "the backoff timer", clk.HasWaiters)
	srv.ClearFaults()
	clk.Step(4 * time.Second)
	waitSynced(t, inf)
	waitWatchers(t, srv, 1)
	clk.Step(time.Minute)
	srv.FailLists(apierrors.NewServiceUnavailable("etcd is down again"))
	srv.ExpireWatches()
	expectWait(lists(), time.Second, 2*time.Second)
}

// runtimeGoroutines returns the stacks of goroutines running code of the
// runtime/cache or runtime/fake packages (not their tests).
func runtimeGoroutines() []string {
	buf := make([]byte, 1<<20)
	for {
		n := goruntime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	var out []string
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "typedinformer/runtime/cache.") || strings.Contains(g, "typedinformer/runtime/fake.") {
			out = append(out, g)
		}
	}
	return out
}

func TestReflectorStopsPromptlyNoLeakedGoroutines(t *testing.T) {
	slow := fastReflector()
	slow.InitialBackoff, slow.MaxBackoff = time.Hour, time.Hour
	watchList := watchListReflector()
	tests := []struct {
		name  string
		opts  cache.ReflectorOptions
		setup func(srv *fake.Server[*corev1.Pod])
		// synced: wait for the informer to sync (and watch) before stopping.
		synced bool
	}{
		{name: "watching", opts: fastReflector(), synced: true},
		{name: "streaming watch-list", opts: watchList, synced: true},
		{name: "in a slow list", opts: fastReflector(), setup: func(srv *fake.Server[*corev1.Pod]) { srv.SetListDelay(time.Hour) }},
		{name: "backing off after a failed list", opts: slow, setup: func(srv *fake.Server[*corev1.Pod]) {
			srv.FailLists(apierrors.NewForbidden(srv.Resource(), "", errors.New("no")))
		}},
		{name: "retrying refused watches", opts: slow, synced: true, setup: func(srv *fake.Server[*corev1.Pod]) {
			srv.FailWatches(errConnRefused)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			eventually(t, "goroutines of earlier tests to end", func() bool { return len(runtimeGoroutines()) == 0 })
			srv := seedServer(t)
			if tt.setup != nil {
				tt.setup(srv)
			}
			inf := podInformer(srv, cache.SharedIndexInformerOptions[*corev1.Pod]{Reflector: tt.opts, ResyncPeriod: time.Hour})
			rec := newRecorder()
			informertest.AddHandler(t, inf, rec)
			stop := run(t, inf)
			if tt.synced {
				waitSynced(t, inf)
			}
			eventually(t, "the first request", func() bool { return len(srv.Requests()) > 0 })
			if len(runtimeGoroutines()) == 0 {
				t.Fatal("the goroutine check sees no informer goroutine while it runs")
			}
			stop()
			if !inf.IsStopped() {
				t.Fatal("Run returned but IsStopped is false")
			}
			eventually(t, "every goroutine to end", func() bool { return len(runtimeGoroutines()) == 0 })
		})
	}
}
