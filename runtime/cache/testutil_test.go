package cache_test

import (
	"context"
	"fmt"
	goruntime "runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/typedinformer/typedinformer/runtime/cache"
	"github.com/typedinformer/typedinformer/runtime/fake"
)

// waitLimit bounds every wait in these tests; reaching it is a failure, not
// a timing assertion.
const waitLimit = 20 * time.Second

// eventually polls cond until it holds, failing the test after waitLimit.
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitLimit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		goruntime.Gosched()
		time.Sleep(200 * time.Microsecond)
	}
}

// newPod returns a Pod with labels given as key, value pairs.
func newPod(ns, name string, labels ...string) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	if len(labels) > 0 {
		p.Labels = map[string]string{}
		for i := 0; i+1 < len(labels); i += 2 {
			p.Labels[labels[i]] = labels[i+1]
		}
	}
	return p
}

func create(t testing.TB, s *fake.Server[*corev1.Pod], p *corev1.Pod) *corev1.Pod {
	t.Helper()
	out, err := s.Create(p)
	if err != nil {
		t.Fatalf("create %s/%s: %v", p.Namespace, p.Name, err)
	}
	return out
}

func update(t testing.TB, s *fake.Server[*corev1.Pod], p *corev1.Pod) *corev1.Pod {
	t.Helper()
	out, err := s.Update(p)
	if err != nil {
		t.Fatalf("update %s/%s: %v", p.Namespace, p.Name, err)
	}
	return out
}

func del(t testing.TB, s *fake.Server[*corev1.Pod], ns, name string) {
	t.Helper()
	if err := s.Delete(ns, name); err != nil {
		t.Fatalf("delete %s/%s: %v", ns, name, err)
	}
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
	ctx, cancel := context.WithCancel(parent)
	done := make(chan struct{})
	go func() {
		defer close(done)
		inf.Run(ctx)
	}()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			select {
			case <-done:
			case <-time.After(waitLimit):
				t.Errorf("informer %s did not stop", inf.Name())
			}
		})
	}
	t.Cleanup(stop)
	return stop
}

// waitSynced waits for every syncer, failing with WaitForSync's error.
func waitSynced(t testing.TB, syncers ...cache.Syncer) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	if err := cache.WaitForSync(ctx, syncers...); err != nil {
		t.Fatal(err)
	}
}

// recorder is a handler that logs every call as a string and keeps the
// state the calls imply. Safe for concurrent reads.
type recorder struct {
	mu     sync.Mutex
	events []string
	state  map[string]*corev1.Pod
	// hook, if set, runs at the start of every call (outside mu).
	hook func(kind string, p *corev1.Pod)
}

func newRecorder() *recorder { return &recorder{state: map[string]*corev1.Pod{}} }

func key(p *corev1.Pod) string { return cache.KeyFor(p.Namespace, p.Name) }

func (r *recorder) log(format string, args ...any) {
	r.mu.Lock()
	r.events = append(r.events, fmt.Sprintf(format, args...))
	r.mu.Unlock()
}

func (r *recorder) OnAdd(p *corev1.Pod, initial bool) {
	if r.hook != nil {
		r.hook("add", p)
	}
	r.mu.Lock()
	r.state[key(p)] = p
	r.mu.Unlock()
	r.log("add %s@%s initial=%t", key(p), p.ResourceVersion, initial)
}

func (r *recorder) OnUpdate(old, p *corev1.Pod) {
	if r.hook != nil {
		r.hook("update", p)
	}
	r.mu.Lock()
	r.state[key(p)] = p
	r.mu.Unlock()
	r.log("update %s@%s->%s", key(p), old.ResourceVersion, p.ResourceVersion)
}

func (r *recorder) OnDelete(p *corev1.Pod, unknown bool) {
	if r.hook != nil {
		r.hook("delete", p)
	}
	r.mu.Lock()
	delete(r.state, key(p))
	r.mu.Unlock()
	r.log("delete %s@%s unknown=%t", key(p), p.ResourceVersion, unknown)
}

// Events returns a copy of the calls so far.
func (r *recorder) Events() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.events...)
}

// Len returns the number of calls so far.
func (r *recorder) Len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.events)
}

// has reports whether some call so far equals ev.
func (r *recorder) has(ev string) bool {
	for _, e := range r.Events() {
		if e == ev {
			return true
		}
	}
	return false
}

// waitEvent waits until the recorder logged ev.
func (r *recorder) waitEvent(t testing.TB, ev string) {
	t.Helper()
	eventually(t, fmt.Sprintf("handler event %q (have %q)", ev, r.Events()), func() bool { return r.has(ev) })
}

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
// delivered object.
type replayHandler struct {
	mu         sync.Mutex
	state      map[string]*corev1.Pod
	violations []string
	calls      int
	tombstones int
	// lastRV is the highest resourceVersion delivered per key (also after
	// deletes), to check RVs never go backwards.
	lastRV map[string]uint64
	// seq is every call in order, for the order check.
	seq []hcall
	// slow makes every call yield this many times first, so that the
	// handler falls behind the informer.
	slow int
}

func newReplayHandler() *replayHandler {
	return &replayHandler{state: map[string]*corev1.Pod{}, lastRV: map[string]uint64{}}
}

func rvOf(p *corev1.Pod) uint64 {
	var n uint64
	fmt.Sscan(p.ResourceVersion, &n)
	return n
}

func (h *replayHandler) violate(format string, args ...any) {
	if len(h.violations) < 20 {
		h.violations = append(h.violations, fmt.Sprintf(format, args...))
	}
}

func (h *replayHandler) advance(k string, p *corev1.Pod) {
	rv := rvOf(p)
	if rv < h.lastRV[k] {
		h.violate("%s: resourceVersion went back from %d to %d", k, h.lastRV[k], rv)
	}
	h.lastRV[k] = max(h.lastRV[k], rv)
}

// maxRV returns the highest resourceVersion h was given.
func (h *replayHandler) maxRV() uint64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	var m uint64
	for _, rv := range h.lastRV {
		m = max(m, rv)
	}
	return m
}

func (h *replayHandler) yield() {
	for i := 0; i < h.slow; i++ {
		goruntime.Gosched()
	}
}

func (h *replayHandler) OnAdd(p *corev1.Pod, initial bool) {
	h.yield()
	h.mu.Lock()
	defer h.mu.Unlock()
	h.calls++
	k := key(p)
	h.seq = append(h.seq, hcall{kind: "add", key: k, rv: rvOf(p), flag: initial})
	if old, ok := h.state[k]; ok {
		h.violate("add %s@%s while %s is present", k, p.ResourceVersion, old.ResourceVersion)
	}
	h.advance(k, p)
	h.state[k] = p
}

func (h *replayHandler) OnUpdate(old, p *corev1.Pod) {
	h.yield()
	h.mu.Lock()
	defer h.mu.Unlock()
	h.calls++
	k := key(p)
	h.seq = append(h.seq, hcall{kind: "update", key: k, rv: rvOf(p), old: rvOf(old)})
	cur, ok := h.state[k]
	switch {
	case !ok:
		h.violate("update %s@%s of an absent key", k, p.ResourceVersion)
	case cur.ResourceVersion != old.ResourceVersion:
		h.violate("update %s: old@%s but last delivered @%s", k, old.ResourceVersion, cur.ResourceVersion)
	}
	h.advance(k, p)
	h.state[k] = p
}

func (h *replayHandler) OnDelete(p *corev1.Pod, unknown bool) {
	h.yield()
	h.mu.Lock()
	defer h.mu.Unlock()
	h.calls++
	k := key(p)
	h.seq = append(h.seq, hcall{kind: "delete", key: k, rv: rvOf(p), flag: unknown})
	cur, ok := h.state[k]
	switch {
	case !ok:
		h.violate("delete %s@%s of an absent key", k, p.ResourceVersion)
	case unknown && cur.ResourceVersion != p.ResourceVersion:
		h.violate("tombstone %s@%s but last delivered @%s", k, p.ResourceVersion, cur.ResourceVersion)
	}
	if unknown {
		h.tombstones++
	} else {
		h.advance(k, p)
	}
	delete(h.state, k)
}

// String renders the replayed state like storeString.
func (h *replayHandler) String() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	objs := make([]*corev1.Pod, 0, len(h.state))
	for _, p := range h.state {
		objs = append(objs, p)
	}
	return storeString(objs)
}

// Violations returns the contradictions seen so far.
func (h *replayHandler) Violations() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.violations...)
}

// Seq returns a copy of the calls in order.
func (h *replayHandler) Seq() []hcall {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]hcall(nil), h.seq...)
}

// Calls returns how many calls the handler received.
func (h *replayHandler) Calls() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.calls
}

// has reports whether the replayed state holds key k at resourceVersion rv.
func (h *replayHandler) has(k, rv string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	p, ok := h.state[k]
	return ok && p.ResourceVersion == rv
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
