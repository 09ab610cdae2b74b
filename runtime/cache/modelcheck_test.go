package cache_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	goruntime "runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/typedinformer/typedinformer/runtime/cache"
	"github.com/typedinformer/typedinformer/runtime/fake"
)

var (
	modelSeed      = flag.Uint64("modelcheck.seed", 0, "base seed of TestModelCheckInformerConvergesToServerState (0 = random)")
	modelSequences = flag.Int("modelcheck.sequences", 0, "number of sequences TestModelCheckInformerConvergesToServerState runs (0 = $MODELCHECK_SEQUENCES, else 2000, 200 with -short)")
)

// modelOps is how many random operations one sequence applies.
const modelOps = 40

// The fake clock the informer runs on advances by backoffStep after every
// operation, so that backoffs (at most backoffStep) elapse, and by
// resyncPeriod on a resync operation.
const (
	backoffStep  = 10 * time.Millisecond
	resyncPeriod = time.Second
)

// TestModelCheckInformerConvergesToServerState drives thousands of random
// operation sequences (creates, updates, deletes, dropped and expired
// watches, compactions forcing 410 relists, failing lists and watches,
// bookmarks, wrong-typed events, resyncs, handlers joining late, slow
// handlers, and slow lists during which objects are deleted, re-created and
// changed) through a fake API server and a real informer with handlers.
// After each sequence, once the informer has caught up with the server:
//
//   - its store must equal the server's objects exactly (keys and
//     resourceVersions), and every handler's calls, replayed onto an empty
//     map, must give the same state without contradicting themselves;
//   - every handler's calls must follow the server's order (checkOrder):
//     explained, one after the other, by the lists and watch events the
//     reflector consumed, read forwards, so resourceVersions never go back
//     (a list's items count at the list's resourceVersion); and no call
//     carries isInInitialList=true after the handler's first live one.
//
// Every sequence is derived from one seed; a failure prints it. Re-run one
// with -run TestModelCheck -modelcheck.seed=N -modelcheck.sequences=1. A
// long run: MODELCHECK_SEQUENCES=100000 (or -modelcheck.sequences).
func TestModelCheckInformerConvergesToServerState(t *testing.T) {
	n := *modelSequences
	if n <= 0 {
		n, _ = strconv.Atoi(os.Getenv("MODELCHECK_SEQUENCES"))
	}
	if n <= 0 {
		n = 2000
		if testing.Short() {
			n = 200
		}
	}
	base := *modelSeed
	if base == 0 {
		base = rand.Uint64()
	}
	t.Logf("base seed %d, %d sequences", base, n)
	workers := max(2, goruntime.GOMAXPROCS(0))
	var st modelStats
	var (
		next   atomic.Int64
		failed atomic.Bool
		mu     sync.Mutex
		fails  []string
		wg     sync.WaitGroup
	)
	for range workers {
		wg.Go(func() {
			for !failed.Load() {
				i := next.Add(1) - 1
				if i >= int64(n) {
					return
				}
				seed := base + uint64(i)
				if err := runModelSequence(seed, &st); err != nil {
					failed.Store(true)
					mu.Lock()
					fails = append(fails, fmt.Sprintf("seed %d: %v\n  re-run: go test -race -run TestModelCheck ./runtime/cache/ -modelcheck.seed=%d -modelcheck.sequences=1", seed, err, seed))
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	t.Logf("covered: %d lists (%d consistent relists, %d continue pages), %d watches (%d watch-lists), %d tombstones, %d handler calls",
		st.lists.Load(), st.consistent.Load(), st.pages.Load(), st.watches.Load(), st.watchLists.Load(), st.tombstones.Load(), st.calls.Load())
	if len(fails) > 0 {
		t.Fatalf("%d sequence(s) failed:\n%s", len(fails), strings.Join(fails, "\n"))
	}
}

// modelStats sums what the sequences exercised, to show the coverage.
type modelStats struct {
	lists, consistent, pages, watches, watchLists, tombstones, calls atomic.Int64
}

func (st *modelStats) add(m *modelRun) {
	for _, r := range m.srv.Requests() {
		switch {
		case r.Verb == "list":
			st.lists.Add(1)
			if r.Options.Continue != "" {
				st.pages.Add(1)
			} else if r.Options.ResourceVersion == "" {
				st.consistent.Add(1)
			}
		case r.Options.SendInitialEvents != nil:
			st.watches.Add(1)
			st.watchLists.Add(1)
		default:
			st.watches.Add(1)
		}
	}
	for _, h := range m.handlers {
		st.tombstones.Add(int64(h.Tombstones()))
		st.calls.Add(int64(len(h.Calls())))
	}
}

// modelRun is one sequence's world: a server, an informer on a fake clock
// and the handlers whose calls are replayed.
type modelRun struct {
	rng       *rand.Rand
	srv       *fake.Server[*corev1.Pod]
	clk       *testingclock.FakeClock
	inf       cache.SharedIndexInformer[*corev1.Pod]
	namespace string // the informer's scope; "" = all
	handlers  []*replayHandler
	late      []bool // handler i was added after Run started
	started   bool
	rec       *recordingLW
	regs      []cache.ResourceEventHandlerRegistration
	log       []string
	markers   int
}

var modelNamespaces = []string{"ns0", "ns1", "ns2"}

func runModelSequence(seed uint64, st *modelStats) (err error) {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	m := &modelRun{rng: rng, clk: testingclock.NewFakeClock(time.Unix(1_700_000_000, 0))}
	defer func() {
		if err != nil {
			tail := m.log
			if len(tail) > 60 {
				tail = tail[len(tail)-60:]
			}
			err = fmt.Errorf("%w\n  operations: %s", err, strings.Join(tail, "; "))
		}
	}()

	var srvOpts []fake.ServerOption
	srvOpts = append(srvOpts, fake.WithHistory([]int{2, 5, 20, 1000}[rng.IntN(4)]))
	ropts := cache.ReflectorOptions{
		Clock:          m.clk,
		InitialBackoff: backoffStep / 4,
		MaxBackoff:     backoffStep,
		PageSize:       []int64{1, 2, 3, 500}[rng.IntN(4)],
		// Watch-list is the default; a third of the runs keep it.
		DisableWatchList: true,
	}
	if rng.IntN(3) == 0 {
		ropts.DisableWatchList = false
		if rng.IntN(4) == 0 {
			srvOpts = append(srvOpts, fake.WithoutWatchList())
		}
	}
	if rng.IntN(5) == 0 {
		m.namespace = modelNamespaces[rng.IntN(len(modelNamespaces))]
	}
	m.logf("config page=%d watchList=%t ns=%q", ropts.PageSize, !ropts.DisableWatchList, m.namespace)
	m.srv = fake.NewServer[*corev1.Pod](srvOpts...)
	// Some objects exist before the informer starts.
	for i := rng.IntN(6); i > 0; i-- {
		m.write()
	}
	m.rec = newRecordingLW(m.srv.ListerWatcher(m.namespace))
	m.inf = cache.NewSharedIndexInformerWithOptions[*corev1.Pod](m.rec, cache.SharedIndexInformerOptions[*corev1.Pod]{
		Name:      "modelcheck",
		Reflector: ropts,
	})
	if err := m.inf.SetWatchErrorHandler(func(context.Context, error) {}); err != nil {
		return err
	}
	for i := 1 + rng.IntN(2); i > 0; i-- {
		if err := m.addHandler(rng.IntN(2) == 0); err != nil {
			return err
		}
	}

	// A slow first list: the server serves it, then objects are deleted,
	// re-created and changed before the informer gets it, so the watch
	// starts with a backlog while the list is being delivered.
	var listed <-chan struct{}
	var release func()
	if ropts.DisableWatchList && rng.IntN(2) == 0 {
		listed, release = m.rec.gateNextList()
		defer release()
	}
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	m.started = true
	go func() {
		defer close(done)
		m.inf.Run(ctx)
	}()
	defer func() {
		stop()
		select {
		case <-done:
		case <-time.After(waitLimit):
			if err == nil {
				err = errors.New("the informer did not stop")
			}
		}
	}()

	defer st.add(m)
	if listed != nil {
		if err := m.slowList(listed, release); err != nil {
			return err
		}
	}
	lateHandlers := 0
	for op := 0; op < modelOps; op++ {
		switch k := rng.IntN(100); {
		case k < 45:
			m.write()
		case k < 52:
			m.logf("drop")
			m.srv.DropWatches()
		case k < 57:
			m.logf("expire")
			m.srv.ExpireWatches()
		case k < 62:
			m.logf("compact")
			m.srv.Compact()
		case k < 66:
			m.logf("compact+expire")
			m.srv.Compact()
			m.srv.ExpireWatches()
		case k < 71:
			m.logf("fail-list")
			m.srv.FailNextList(modelError(rng))
		case k < 76:
			m.logf("fail-watch")
			m.srv.FailNextWatch(modelError(rng))
		case k < 80:
			m.logf("bookmarks")
			m.srv.SendBookmarks()
		case k < 82:
			m.logf("wrong-type")
			m.srv.InjectWrongType(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n", ResourceVersion: "1"}})
		case k < 88:
			m.logf("resync")
			m.clk.Step(resyncPeriod)
		case k < 91:
			if lateHandlers < 2 {
				lateHandlers++
				m.logf("late-handler")
				if err := m.addHandler(rng.IntN(2) == 0); err != nil {
					return err
				}
			}
		case k < 94 && ropts.DisableWatchList:
			m.logf("slow-relist")
			// Force a relist: expire the open watch, if any, and fail
			// the next one with 410.
			listed, release := m.rec.gateNextList()
			m.srv.Compact()
			m.srv.FailNextWatch(apierrors.NewResourceExpired("too old resource version"))
			m.srv.ExpireWatches()
			if err := m.slowList(listed, release); err != nil {
				return err
			}
		default:
			m.logf("settle")
			m.settle(200 * time.Millisecond)
		}
		m.clk.Step(backoffStep)
		if rng.IntN(3) == 0 {
			goruntime.Gosched()
		}
	}

	// Quiesce: no more faults; a final write in scope makes the server's
	// resourceVersion one the informer must reach.
	m.srv.ClearFaults()
	m.marker()
	if !m.settle(waitLimit) {
		return fmt.Errorf("did not converge: informer at RV %s, server at %s\n  store:  %s\n  server: %s\n  handlers: %s",
			m.inf.LastSyncResourceVersion(), m.srv.ResourceVersion(), storeString(m.inf.GetStore().List()), m.want(), m.handlerStates())
	}
	for i, r := range m.regs {
		if !r.HasSynced() {
			return fmt.Errorf("registration %d has not synced", i)
		}
	}
	// A second marker flushes anything still queued behind the first; then
	// everything must match exactly.
	mk := m.marker()
	if !m.waitHandlersHave(mk) {
		return fmt.Errorf("handlers never saw the final marker %s@%s (informer at RV %s)", key(mk), mk.ResourceVersion, m.inf.LastSyncResourceVersion())
	}
	want := m.want()
	if got := storeString(m.inf.GetStore().List()); got != want {
		return fmt.Errorf("store differs from the server\n  store:  %s\n  server: %s", got, want)
	}
	if got := m.inf.LastSyncResourceVersion(); got != m.srv.ResourceVersion() {
		return fmt.Errorf("LastSyncResourceVersion %s, server %s", got, m.srv.ResourceVersion())
	}
	segs := m.rec.segments()
	for i, h := range m.handlers {
		if v := h.Violations(); len(v) > 0 {
			return fmt.Errorf("handler %d got contradictory calls: %q", i, v)
		}
		if got := h.String(); got != want {
			return fmt.Errorf("handler %d replays to a different state\n  replay: %s\n  server: %s", i, got, want)
		}
		if err := checkOrder(segs, seqOf(h), m.late[i]); err != nil {
			return fmt.Errorf("handler %d (late=%t): %w\n  calls: %v\n  server changes: %v", i, m.late[i], err, seqOf(h), segs)
		}
	}
	return nil
}

// slowList waits until the gated list was served (stepping the fake clock
// so that backoffs elapse), writes while the informer waits for it, then
// releases it.
func (m *modelRun) slowList(listed <-chan struct{}, release func()) error {
	defer release()
	deadline := time.Now().Add(waitLimit)
	for {
		select {
		case <-listed:
			for i := 1 + m.rng.IntN(4); i > 0; i-- {
				m.writeDuringList()
			}
			return nil
		default:
		}
		if time.Now().After(deadline) {
			return errors.New("the gated list was never served")
		}
		m.clk.Step(backoffStep)
		goruntime.Gosched()
		time.Sleep(50 * time.Microsecond)
	}
}

// writeDuringList deletes, re-creates (delete then create under the same
// name) or changes an object in the informer's scope, or creates one.
func (m *modelRun) writeDuringList() {
	var in []*corev1.Pod
	for _, p := range m.srv.Objects() {
		if m.namespace == "" || p.Namespace == m.namespace {
			in = append(in, p)
		}
	}
	if len(in) == 0 {
		m.write()
		return
	}
	p := in[m.rng.IntN(len(in))]
	switch m.rng.IntN(4) {
	case 0:
		if m.srv.Delete(p.Namespace, p.Name) == nil {
			m.logf("list-delete %s", key(p))
		}
	case 1:
		if m.srv.Delete(p.Namespace, p.Name) == nil {
			if _, err := m.srv.Create(newPod(p.Namespace, p.Name, "gen", "re")); err == nil {
				m.logf("list-recreate %s", key(p))
			}
		}
	case 2:
		p.Labels = map[string]string{"gen": fmt.Sprint(m.rng.IntN(3))}
		if _, err := m.srv.Update(p); err == nil {
			m.logf("list-update %s", key(p))
		}
	default:
		m.write()
	}
}

func (m *modelRun) logf(format string, args ...any) {
	m.log = append(m.log, fmt.Sprintf(format, args...))
}

// addHandler registers a replaying handler, with a resync period or not.
func (m *modelRun) addHandler(resync bool) error {
	h := newReplayHandler()
	if m.rng.IntN(3) == 0 {
		slowDown(h, 1+m.rng.IntN(20))
	}
	var period time.Duration
	if resync {
		period = resyncPeriod
	}
	reg, err := m.inf.AddEventHandlerWithResyncPeriod(h, period)
	if err != nil {
		return err
	}
	m.handlers = append(m.handlers, h)
	m.late = append(m.late, m.started)
	m.regs = append(m.regs, reg)
	return nil
}

// write creates, updates or deletes a random object of a small pool.
func (m *modelRun) write() {
	ns := modelNamespaces[m.rng.IntN(len(modelNamespaces))]
	name := fmt.Sprintf("p%d", m.rng.IntN(6))
	cur, err := m.srv.Get(ns, name)
	switch {
	case err != nil:
		p := newPod(ns, name, "gen", fmt.Sprint(m.rng.IntN(3)))
		if _, err := m.srv.Create(p); err == nil {
			m.logf("create %s/%s", ns, name)
		}
	case m.rng.IntN(3) == 0:
		if m.srv.Delete(ns, name) == nil {
			m.logf("delete %s/%s", ns, name)
		}
	default:
		cur.Labels = map[string]string{"gen": fmt.Sprint(m.rng.IntN(3))}
		if _, err := m.srv.Update(cur); err == nil {
			m.logf("update %s/%s", ns, name)
		}
	}
}

// marker creates an object in the informer's scope whose key sorts after
// every other, and returns it.
func (m *modelRun) marker() *corev1.Pod {
	m.markers++
	ns := m.namespace
	if ns == "" {
		ns = "zz-marker"
	}
	p, err := m.srv.Create(newPod(ns, fmt.Sprintf("zz-marker-%d", m.markers)))
	if err != nil {
		panic(err) // names are unique
	}
	m.logf("marker %s@%s", key(p), p.ResourceVersion)
	return p
}

// want renders the server's objects in the informer's scope.
func (m *modelRun) want() string {
	var in []*corev1.Pod
	for _, p := range m.srv.Objects() {
		if m.namespace == "" || p.Namespace == m.namespace {
			in = append(in, p)
		}
	}
	return storeString(in)
}

func (m *modelRun) handlerStates() string {
	var parts []string
	for i, h := range m.handlers {
		parts = append(parts, fmt.Sprintf("\n    %d: %s", i, h.String()))
	}
	return strings.Join(parts, "")
}

// converged reports whether the informer reached the server's RV and its
// store and every handler's replay equal the server's objects.
func (m *modelRun) converged() bool {
	want := m.want()
	if m.namespace == "" && m.inf.LastSyncResourceVersion() != m.srv.ResourceVersion() {
		return false
	}
	if storeString(m.inf.GetStore().List()) != want {
		return false
	}
	for _, h := range m.handlers {
		if h.String() != want {
			return false
		}
	}
	return true
}

// settle waits, stepping the fake clock so that backoffs elapse, until the
// informer converged or d passed; it reports whether it converged.
func (m *modelRun) settle(d time.Duration) bool {
	deadline := time.Now().Add(d)
	for !m.converged() {
		if time.Now().After(deadline) {
			return false
		}
		m.clk.Step(backoffStep)
		goruntime.Gosched()
		time.Sleep(50 * time.Microsecond)
	}
	return true
}

// waitHandlersHave waits until every handler has seen p at its RV and the
// informer's LastSyncResourceVersion reached the server's (the reflector
// records an event's RV just after queueing it, so a handler may see the
// object first).
func (m *modelRun) waitHandlersHave(p *corev1.Pod) bool {
	deadline := time.Now().Add(waitLimit)
	for {
		all := m.inf.LastSyncResourceVersion() == m.srv.ResourceVersion()
		for _, h := range m.handlers {
			all = all && h.Holds(key(p), p.ResourceVersion)
		}
		if all {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		m.clk.Step(backoffStep)
		goruntime.Gosched()
		time.Sleep(50 * time.Microsecond)
	}
}

// modelError picks an error a failing list or watch returns.
func modelError(rng *rand.Rand) error {
	switch rng.IntN(5) {
	case 0:
		return errConnRefused
	case 1:
		return apierrors.NewServiceUnavailable("apiserver restarting")
	case 2:
		return apierrors.NewTooManyRequests("slow down", 1)
	case 3:
		return apierrors.NewResourceExpired("too old resource version")
	default:
		return apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, "", errors.New("RBAC flapped"))
	}
}
