package cache_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/klog/v2"
	"k8s.io/klog/v2/ktesting"

	"github.com/typedinformer/typedinformer/internal/testutil"
	"github.com/typedinformer/typedinformer/internal/testutil/informertest"
	"github.com/typedinformer/typedinformer/runtime/cache"
	"github.com/typedinformer/typedinformer/runtime/fake"
	"github.com/typedinformer/typedinformer/runtime/sharding"
)

func nsScope(t testing.TB, namespaces ...string) *sharding.Scope {
	t.Helper()
	s, err := sharding.NewScope(sharding.FieldNamespace, testutil.NamespacePoints(namespaces...))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func setScope(t testing.TB, s *sharding.Scope, namespaces ...string) {
	t.Helper()
	if err := s.Set(testutil.NamespacePoints(namespaces...)); err != nil {
		t.Fatal(err)
	}
}

var clauseRE = regexp.MustCompile(`shardRange\(object\.metadata\.namespace, '0x([0-9a-f]{16,17})', '0x([0-9a-f]{16,17})'\)`)

// parseSelector reads back a namespace selector as inclusive ranges.
func parseSelector(t testing.TB, sel string) []sharding.Range {
	var out []sharding.Range
	for _, m := range clauseRE.FindAllStringSubmatch(sel, -1) {
		first, err := strconv.ParseUint(m[1], 16, 64)
		if err != nil {
			t.Errorf("selector %q: %v", sel, err)
		}
		last := uint64(math.MaxUint64)
		if m[2] != "10000000000000000" {
			end, err := strconv.ParseUint(m[2], 16, 64)
			if err != nil {
				t.Errorf("selector %q: %v", sel, err)
			}
			last = end - 1
		}
		out = append(out, sharding.Range{First: first, Last: last})
	}
	return out
}

// shardLW wraps a fake server's ListerWatcher and records each request's
// shard selector. With serverSide it plays a v1.36+ server with the
// ShardedListAndWatch gate on: it sends only the selected objects and
// echoes the selector in ListMeta.ShardInfo; otherwise it ignores the
// selector like an older server.
type shardLW struct {
	t          testing.TB
	lw         cache.ListerWatcher
	serverSide bool

	mu   sync.Mutex
	reqs []string // "list <selector>" or "watch <selector>"
}

func (s *shardLW) note(verb, sel string) {
	s.mu.Lock()
	s.reqs = append(s.reqs, verb+" "+sel)
	s.mu.Unlock()
}

func (s *shardLW) requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.reqs)
}

// request notes the request verb made with opts and returns its shard
// selector and, when the server shards and a selector was given, whether a
// Pod belongs to the selected ranges (nil otherwise: nothing is filtered).
func (s *shardLW) request(verb string, opts metav1.ListOptions) (sel string, owned func(*corev1.Pod) bool) {
	sel = cache.ShardSelectorOf(opts)
	s.note(verb, sel)
	if !s.serverSide || sel == "" {
		return sel, nil
	}
	ranges := parseSelector(s.t, sel)
	return sel, func(p *corev1.Pod) bool { return sharding.Contains(ranges, sharding.Hash(p.Namespace)) }
}

func (s *shardLW) List(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	sel, owned := s.request("list", opts)
	obj, err := s.lw.List(ctx, opts)
	if err != nil || owned == nil {
		return obj, err
	}
	l := obj.(*fake.List[*corev1.Pod])
	l.Items = slices.DeleteFunc(l.Items, func(p *corev1.Pod) bool { return !owned(p) })
	cache.SetShardInfo(&l.ListMeta, sel)
	return l, nil
}

func (s *shardLW) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	_, owned := s.request("watch", opts)
	w, err := s.lw.Watch(ctx, opts)
	if err != nil || owned == nil {
		return w, err
	}
	return watch.Filter(w, func(ev watch.Event) (watch.Event, bool) {
		p, ok := ev.Object.(*corev1.Pod)
		if !ok || ev.Type == watch.Bookmark || ev.Type == watch.Error {
			return ev, true
		}
		return ev, owned(p)
	}), nil
}

// exitRecorder is a recorder that implements cache.ScopeExitHandler.
type exitRecorder struct{ *recorder }

func (e exitRecorder) OnScopeExit(p *corev1.Pod) {
	e.Note("exit %s@%s", key(p), p.ResourceVersion)
}

// runLogged runs inf with a buffering test logger and returns the logger.
func runLogged(t *testing.T, inf cache.AnyInformer) klog.Logger {
	t.Helper()
	logger := ktesting.NewLogger(t, ktesting.NewConfig(ktesting.BufferLogs(true)))
	runWith(t, klog.NewContext(context.Background(), logger), inf)
	return logger
}

const clientSideLog = "Sharded informer filters on the client"

// TestShardScopeChange runs a sharded informer over pods in namespaces a,
// b and c, first owning a and b, then b and c, against a server that
// shards and one that ignores the selector. It checks what each kind of
// handler is told, exactly once and in order, the selectors sent, the
// store, that HasSynced stays true, and the client-side filtering log.
func TestShardScopeChange(t *testing.T) {
	for _, serverSide := range []bool{true, false} {
		t.Run(fmt.Sprintf("serverSide=%t", serverSide), func(t *testing.T) {
			if serverSide && !cache.ServerSideShardingSupported() {
				t.Skip("k8s.io/apimachinery before v0.36 cannot send a shard selector; covered by make unit-newest")
			}
			srv := fake.NewServer[*corev1.Pod]()
			for _, ns := range []string{"a", "b", "c"} {
				for i := range 2 {
					create(t, srv, newPod(ns, fmt.Sprintf("p%d", i)))
				}
			}
			scope := nsScope(t, "a", "b")
			lw := &shardLW{t: t, lw: srv.ListerWatcher(""), serverSide: serverSide}
			inf := cache.NewSharedIndexInformerWithOptions[*corev1.Pod](lw, cache.SharedIndexInformerOptions[*corev1.Pod]{
				Name: "pods", Reflector: fastReflector(), ShardScope: scope,
			})
			def, opted, exits := newRecorder(), newRecorder(), newRecorder()
			for _, h := range []cache.ResourceEventHandler[*corev1.Pod]{def, cache.IgnoreScopeExits[*corev1.Pod](opted), exitRecorder{exits}} {
				informertest.AddHandler(t, inf, h)
			}
			logger := runLogged(t, inf)
			waitSynced(t, inf)
			waitStore(t, inf, "a/p0@2 a/p1@3 b/p0@4 b/p1@5")
			// A watch event outside the ranges is dropped (by the server or
			// the informer); the sentinel after it proves it was seen.
			create(t, srv, newPod("c", "late"))
			create(t, srv, newPod("a", "sentinel"))
			def.WaitEvent(t, "add a/sentinel@9 initial=false")
			if got := storeString(inf.GetStore().List()); got != "a/p0@2 a/p1@3 a/sentinel@9 b/p0@4 b/p1@5" {
				t.Fatalf("store after watch events = %s", got)
			}

			// Move the scope: a leaves, c enters, b stays; b/p0 changes
			// meanwhile. That update reaches each handler exactly once,
			// through the old watch, the new list or the new watch, so its
			// place among the scope change's calls varies.
			stopSample := testutil.EverFalse(t, inf.HasSynced)
			setScope(t, scope, "b", "c")
			changed := newPod("b", "p0")
			changed.Labels = map[string]string{"changed": "yes"}
			update(t, srv, changed)
			waitStore(t, inf, "b/p0@10 b/p1@5 c/late@8 c/p0@6 c/p1@7")
			create(t, srv, newPod("c", "sentinel2"))
			create(t, srv, newPod("a", "gone"))
			create(t, srv, newPod("b", "sentinel3"))
			for _, r := range []*recorder{def, opted, exits} {
				r.WaitEvent(t, "add b/sentinel3@13 initial=false")
			}
			if flipped := stopSample(); flipped {
				t.Error("HasSynced turned false during the scope change")
			}

			initial := []string{
				"add a/p0@2 initial=true", "add a/p1@3 initial=true", "add b/p0@4 initial=true", "add b/p1@5 initial=true",
				"add a/sentinel@9 initial=false",
			}
			// The new list's deletions (a's Pods left the scope) come
			// first; then it brings b's Pods again: with no resync period
			// every handler is syncing and gets the unchanged ones as
			// updates with equal resourceVersions (client-go's rule).
			// b/p0's is @4->4 or @10->10 as its change came after or
			// before that list, so it is checked apart below.
			entered := []string{"update b/p1@5->5", "add c/late@8 initial=false", "add c/p0@6 initial=false", "add c/p1@7 initial=false"}
			after := []string{"add c/sentinel2@11 initial=false", "add b/sentinel3@13 initial=false"}
			join := slices.Concat[[]string]
			want := map[string][]string{
				"default": join(initial, []string{"delete a/p0@2 unknown=true", "delete a/p1@3 unknown=true", "delete a/sentinel@9 unknown=true"}, entered, after),
				"opted":   join(initial, entered, after),
				"exits":   join(initial, []string{"exit a/p0@2", "exit a/p1@3", "exit a/sentinel@9"}, entered, after),
			}
			for name, r := range map[string]*recorder{"default": def, "opted": opted, "exits": exits} {
				const changedB = "update b/p0@4->10"
				got := r.Events()
				if n := slices.Index(got, changedB); n < 0 || slices.Index(got[n+1:], changedB) >= 0 {
					t.Errorf("%s handler: %q not seen exactly once", name, changedB)
				}
				got = slices.DeleteFunc(got, func(e string) bool { return e == changedB })
				relistedB := func(e string) bool { return e == "update b/p0@4->4" || e == "update b/p0@10->10" }
				if n := len(got) - len(slices.DeleteFunc(slices.Clone(got), relistedB)); n != 1 {
					t.Errorf("%s handler: %d unchanged updates of b/p0 from the new list, want 1", name, n)
				}
				got = slices.DeleteFunc(got, relistedB)
				// The scope exits are one relist's tombstones: those of keys
				// still queued or being applied come first (see
				// deltafifo.Queue), and a/sentinel's add may still be in
				// the batch being applied when its handler has run, so
				// their order among themselves is not fixed.
				sortRun(got, func(e string) bool { return strings.HasPrefix(e, "delete a/") || strings.HasPrefix(e, "exit a/") })
				if !slices.Equal(got, want[name]) {
					t.Errorf("%s handler got\n  %s\nwant\n  %s", name, strings.Join(got, "\n  "), strings.Join(want[name], "\n  "))
				}
			}

			sel1, _ := sharding.Selector(sharding.FieldNamespace, testutil.NamespacePoints("a", "b"))
			sel2, _ := sharding.Selector(sharding.FieldNamespace, testutil.NamespacePoints("b", "c"))
			if !cache.ServerSideShardingSupported() {
				sel1, sel2 = "", ""
			}
			reqs := lw.requests()
			if len(reqs) < 4 || reqs[0] != "list "+sel1 || reqs[1] != "watch "+sel1 || reqs[2] != "list "+sel2 || reqs[3] != "watch "+sel2 {
				t.Errorf("requests = %q, want a list and a watch with %q, then with %q", reqs, sel1, sel2)
			}
			for _, r := range reqs[2:] {
				if !strings.HasSuffix(r, " "+sel2) && sel2 != "" {
					t.Errorf("request %q after the change lacks the new selector", r)
				}
			}
			st, ok := inf.(cache.ShardedInformer).ShardStatus()
			if !ok || st.Generation != 1 || !st.Listed || st.Selector != sel2 || st.ServerSide != serverSide || (st.ClientSide == "") == !serverSide {
				t.Errorf("ShardStatus = %+v, %t", st, ok)
			}
			// The second list kept b's two Pods and c's three; a client-side
			// list also received a's three and dropped them.
			if wantDropped := map[bool]int{true: 0, false: 3}[serverSide]; st.Received-st.Dropped != 5 || st.Dropped != wantDropped {
				t.Errorf("ShardStatus counted %d received, %d dropped; want %d kept and %d dropped", st.Received, st.Dropped, 5, wantDropped)
			}
			logs := logBuffer(logger)
			if n := strings.Count(logs, clientSideLog); serverSide && n != 0 || !serverSide && n != 1 {
				t.Errorf("client-side filtering logged %d times (server-side %t):\n%s", n, serverSide, logs)
			}
		})
	}
}

// TestShardEmptyScope checks that a scope without ranges lists nothing,
// holds nothing and syncs; that gaining ranges brings their objects as
// adds, and losing them all again empties the store.
func TestShardEmptyScope(t *testing.T) {
	srv := fake.NewServer[*corev1.Pod]()
	create(t, srv, newPod("a", "p0"))
	create(t, srv, newPod("b", "p0"))
	scope := nsScope(t)
	lw := &shardLW{t: t, lw: srv.ListerWatcher(""), serverSide: true}
	inf := cache.NewSharedIndexInformerWithOptions[*corev1.Pod](lw, cache.SharedIndexInformerOptions[*corev1.Pod]{
		Name: "pods", Reflector: fastReflector(), ShardScope: scope,
	})
	rec := newRecorder()
	reg := informertest.AddHandler(t, inf, rec)
	runLogged(t, inf)
	waitSynced(t, inf, reg)
	if n := len(inf.GetStore().List()); n != 0 {
		t.Fatalf("empty scope: store holds %d objects", n)
	}
	if reqs := lw.requests(); len(reqs) != 0 {
		t.Fatalf("empty scope sent requests %q", reqs)
	}
	setScope(t, scope, "a")
	rec.WaitEvent(t, "add a/p0@2 initial=false")
	waitStore(t, inf, "a/p0@2")
	setScope(t, scope)
	rec.WaitEvent(t, "delete a/p0@2 unknown=true")
	waitStore(t, inf, "")
	if got, want := rec.Events(), []string{"add a/p0@2 initial=false", "delete a/p0@2 unknown=true"}; !slices.Equal(got, want) {
		t.Errorf("events = %q, want %q", got, want)
	}
	for _, r := range lw.requests() {
		if strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(r, "list"), "watch")) == "" && cache.ServerSideShardingSupported() {
			t.Errorf("request %q without a selector", r)
		}
	}
	if !inf.HasSynced() {
		t.Error("HasSynced is false")
	}
}

// TestShardEmptyScopeFollowsSelectionChanges: an informer that owns no
// range holds every selection (of which it owns nothing). A selection
// change must not leave its readers waiting for a relist that an empty
// scope never makes: with a write tracker that remembers no writes, every
// List after a change waits for the new selection's list.
func TestShardEmptyScopeFollowsSelectionChanges(t *testing.T) {
	srv := fake.NewServer[*corev1.Pod]()
	create(t, srv, newPod("a", "p0"))
	lw := &shardLW{t: t, lw: srv.ListerWatcher(""), serverSide: true}
	inf := cache.NewSharedIndexInformerWithOptions[*corev1.Pod](lw, cache.SharedIndexInformerOptions[*corev1.Pod]{
		Name: "pods", Reflector: fastReflector(), ShardScope: nsScope(t),
		Resource: corev1.SchemeGroupVersion.WithResource("pods"),
	})
	tracker := cache.NewWriteTracker(cache.WriteTrackerOptions{Timeout: 5 * time.Second, RecentWrites: -1})
	if err := inf.(cache.WriteTrackerSetter).SetWriteTracker(tracker, cache.WriteScope{}); err != nil {
		t.Fatal(err)
	}
	reg := informertest.AddHandler(t, inf, newRecorder())
	runLogged(t, inf)
	waitSynced(t, inf, reg)
	p, err := srv.Get("a", "p0")
	if err != nil {
		t.Fatal(err)
	}
	tracker.Wrote(podsGR, p)
	sel := inf.(cache.SelectableInformer)
	if err := sel.SetSelectors("app=web", ""); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := inf.GetIndexer().(cache.WriteWaiter).WaitForWrites(ctx); err != nil {
		t.Fatalf("a List after a selection change of an informer owning nothing: %v", err)
	}
	testutil.Eventually(t, "the new selection to be listed", sel.ListedSelection)
}

// TestShardScopeChangeEndsTheBackoff fails every list while the informer
// backs off for an hour, then changes the scope: the informer lists the
// new ranges at once instead of waiting.
func TestShardScopeChangeEndsTheBackoff(t *testing.T) {
	srv := fake.NewServer[*corev1.Pod]()
	create(t, srv, newPod("a", "p0"))
	create(t, srv, newPod("b", "p0"))
	scope := nsScope(t, "a")
	lw := &shardLW{t: t, lw: srv.ListerWatcher(""), serverSide: true}
	opts := fastReflector()
	opts.InitialBackoff, opts.MaxBackoff = time.Hour, time.Hour
	inf := cache.NewSharedIndexInformerWithOptions[*corev1.Pod](lw, cache.SharedIndexInformerOptions[*corev1.Pod]{
		Name: "pods", Reflector: opts, ShardScope: scope,
	})
	srv.FailNextList(apierrors.NewInternalError(errors.New("boom")))
	runLogged(t, inf)
	eventually(t, "the failed list", func() bool { return inf.LastError() != nil })
	setScope(t, scope, "b")
	waitSynced(t, inf)
	waitStore(t, inf, "b/p0@3")
}

// TestShardRelistDeleteIsNotAScopeExit checks that a sharded informer that
// learns of a deletion from a relist (its watch is broken) reports an
// object still inside its ranges as deleted, also to a handler that
// ignores scope exits: only objects outside the ranges left the scope.
func TestShardRelistDeleteIsNotAScopeExit(t *testing.T) {
	srv := fake.NewServer[*corev1.Pod]()
	create(t, srv, newPod("b", "p0"))
	create(t, srv, newPod("b", "p1"))
	scope := nsScope(t, "b")
	inf := cache.NewSharedIndexInformerWithOptions[*corev1.Pod](&shardLW{t: t, lw: srv.ListerWatcher("")}, cache.SharedIndexInformerOptions[*corev1.Pod]{
		Name: "pods", Reflector: fastReflector(), ShardScope: scope,
	})
	opted := newRecorder()
	informertest.AddHandler(t, inf, cache.IgnoreScopeExits[*corev1.Pod](opted))
	runLogged(t, inf)
	waitSynced(t, inf)
	// Every watch fails as expired, so the informer relists at the
	// current state (resourceVersion "") until the faults are cleared.
	srv.FailWatches(apierrors.NewResourceExpired("too old resource version"))
	srv.DropWatches()
	del(t, srv, "b", "p1")
	opted.WaitEvent(t, "delete b/p1@3 unknown=true")
	srv.ClearFaults()
	waitStore(t, inf, "b/p0@2")
}

// sortRun sorts, in place, the first run of consecutive elements of s that
// match.
func sortRun(s []string, match func(string) bool) {
	i := slices.IndexFunc(s, match)
	if i < 0 {
		return
	}
	j := i
	for j < len(s) && match(s[j]) {
		j++
	}
	slices.Sort(s[i:j])
}
