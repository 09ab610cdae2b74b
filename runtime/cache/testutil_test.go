package cache_test

import (
	"context"
	"fmt"
	goruntime "runtime"
	"sort"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/typedinformer/typedinformer/internal/testutil"
	"github.com/typedinformer/typedinformer/internal/testutil/informertest"
	"github.com/typedinformer/typedinformer/runtime/cache"
	"github.com/typedinformer/typedinformer/runtime/fake"
)

// waitLimit bounds every wait in these tests: testutil's one deadline.
const waitLimit = testutil.WaitLimit

// eventually polls cond until it holds, failing the test after waitLimit.
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	testutil.Eventually(t, what, cond)
}

// newPod returns a Pod with labels given as key, value pairs.
func newPod(ns, name string, labels ...string) *corev1.Pod {
	return testutil.Pod(ns, name, testutil.Labels(labels...))
}

func create(t testing.TB, s *fake.Server[*corev1.Pod], p *corev1.Pod) *corev1.Pod {
	t.Helper()
	return testutil.MustCreate(t, s, p)
}

func update(t testing.TB, s *fake.Server[*corev1.Pod], p *corev1.Pod) *corev1.Pod {
	t.Helper()
	return testutil.MustUpdate(t, s, p)
}

func del(t testing.TB, s *fake.Server[*corev1.Pod], ns, name string) {
	t.Helper()
	testutil.MustDelete(t, s, ns, name)
}

// fastReflector retries at once-ish on the real clock, so tests that provoke
// relists do not wait for the default 800 ms backoff. It lists instead of
// streaming (the default): the tests using it count and provoke lists;
// watchListReflector keeps streaming on.
func fastReflector() cache.ReflectorOptions {
	return cache.ReflectorOptions{InitialBackoff: time.Millisecond, MaxBackoff: 5 * time.Millisecond, DisableWatchList: true}
}

// watchListReflector is fastReflector with watch-list streaming, the
// default, left on.
func watchListReflector() cache.ReflectorOptions {
	o := fastReflector()
	o.DisableWatchList = false
	return o
}

// podInformer builds an informer over srv's ListerWatcher for all namespaces.
func podInformer(srv *fake.Server[*corev1.Pod], opts cache.SharedIndexInformerOptions[*corev1.Pod]) cache.SharedIndexInformer[*corev1.Pod] {
	if opts.Name == "" {
		opts.Name = "pods"
	}
	return cache.NewSharedIndexInformerWithOptions[*corev1.Pod](srv.ListerWatcher(""), opts)
}

// run starts inf and returns a stop function that cancels it and waits for
// Run to return; it is also registered as a cleanup.
func run(t testing.TB, inf cache.AnyInformer) (stop func()) {
	t.Helper()
	return runWith(t, context.Background(), inf)
}

// runWith is run with ctx (e.g. one carrying a logger) as the parent of
// the informer's context.
func runWith(t testing.TB, parent context.Context, inf cache.AnyInformer) (stop func()) {
	t.Helper()
	return informertest.Run(t, parent, inf)
}

// waitSynced waits for every syncer, failing with WaitForSync's error.
func waitSynced(t testing.TB, syncers ...cache.Syncer) {
	t.Helper()
	informertest.WaitSynced(t, waitLimit, syncers...)
}

// recorder is a handler that logs every call as a string ("add
// key@rv initial=b", ...) and keeps the state the calls imply; Before, if
// set, runs at the start of every call. It also checks the calls for
// contradictions; the tests that want none use it as a replayHandler.
type recorder = testutil.Recorder[*corev1.Pod]

func newRecorder() *recorder { return testutil.NewRecorder[*corev1.Pod]() }

func key(p *corev1.Pod) string { return cache.NewObjectName(p.Namespace, p.Name).String() }

// storeString renders a store as sorted "key@rv".
func storeString(objs []*corev1.Pod) string {
	parts := make([]string, len(objs))
	for i, p := range objs {
		parts[i] = key(p) + "@" + p.ResourceVersion
	}
	sort.Strings(parts)
	return strings.Join(parts, " ")
}

// waitStore waits until the informer's store renders as want.
func waitStore(t testing.TB, inf cache.SharedIndexInformer[*corev1.Pod], want string) {
	t.Helper()
	eventually(t, "store "+want, func() bool { return storeString(inf.GetStore().List()) == want })
}

// serverString renders the server's objects like storeString.
func serverString(srv *fake.Server[*corev1.Pod]) string { return storeString(srv.Objects()) }

// countRequests counts the requests with verb whose options satisfy match.
func countRequests(srv *fake.Server[*corev1.Pod], verb string, match func(metav1.ListOptions) bool) int {
	n := 0
	for _, r := range srv.Requests() {
		if r.Verb == verb && (match == nil || match(r.Options)) {
			n++
		}
	}
	return n
}

// replayHandler applies the calls it receives onto a map, as a user's
// handler would mirror the cache, and records every call that contradicts
// the state built so far: an add of a present key, an update or delete of
// an absent key, an update whose old object is not the last one delivered,
// a resourceVersion going backwards, or a tombstone that is not the last
// delivered object (testutil.Recorder's checks; Violations lists them).
type replayHandler = testutil.Recorder[*corev1.Pod]

func newReplayHandler() *replayHandler { return testutil.NewRecorder[*corev1.Pod]() }

func rvOf(p *corev1.Pod) uint64 {
	var n uint64
	fmt.Sscan(p.ResourceVersion, &n)
	return n
}

// slowDown makes every call of h yield n times first, so that the handler
// falls behind the informer.
func slowDown(h *replayHandler, n int) {
	h.Before = func(string, *corev1.Pod) {
		for range n {
			goruntime.Gosched()
		}
	}
}

// seqOf returns h's calls in order as the order check sees them.
func seqOf(h *replayHandler) []hcall {
	calls := h.Calls()
	out := make([]hcall, len(calls))
	for i, c := range calls {
		var rv, old uint64
		fmt.Sscan(c.RV, &rv)
		fmt.Sscan(c.OldRV, &old)
		out[i] = hcall{kind: c.Kind, key: c.Key, rv: rv, old: old, initial: c.Initial, unknown: c.Unknown}
	}
	return out
}

// waitWatchers blocks until srv has at least n open watches, failing the
// test after waitLimit.
func waitWatchers(t testing.TB, srv *fake.Server[*corev1.Pod], n int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	if err := srv.WaitForWatchers(ctx, n); err != nil {
		t.Fatal(err)
	}
}

// runRecorded runs a synced informer over srv with reflector options opts,
// and a recorder registered before Run.
func runRecorded(t testing.TB, srv *fake.Server[*corev1.Pod], opts cache.ReflectorOptions) (cache.SharedIndexInformer[*corev1.Pod], *recorder) {
	t.Helper()
	inf := podInformer(srv, cache.SharedIndexInformerOptions[*corev1.Pod]{Reflector: opts})
	rec := newRecorder()
	informertest.AddHandler(t, inf, rec)
	run(t, inf)
	waitSynced(t, inf)
	return inf, rec
}
