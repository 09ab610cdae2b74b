package cache_test

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/typedinformer/typedinformer/internal/testutil/informertest"
	"github.com/typedinformer/typedinformer/runtime/cache"
	"github.com/typedinformer/typedinformer/runtime/fake"
)

// markerNS holds marker objects: once a handler has seen a marker created
// after some changes, it has been handed every delta queued before it (a
// new key goes to the back of the DeltaFIFO, and handlers get calls in
// order).
const markerNS = "zz-marker"

var markerSeq atomic.Int64

// barrier creates a new marker object and waits until h has seen it.
func barrier(t testing.TB, srv *fake.Server[*corev1.Pod], hs ...*replayHandler) {
	t.Helper()
	m := create(t, srv, newPod(markerNS, fmt.Sprintf("m%d", markerSeq.Add(1))))
	for _, h := range hs {
		eventually(t, "the marker "+key(m), func() bool { return h.Holds(key(m), m.ResourceVersion) })
	}
}

// relistAfter makes the informer miss changes: its watch expires while
// lists fail, changes runs, then lists work again and the informer relists.
func relistAfter(t testing.TB, srv *fake.Server[*corev1.Pod], changes func()) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	if err := srv.WaitForWatchers(ctx, 1); err != nil {
		t.Fatal(err)
	}
	lists := countRequests(srv, "list", nil)
	srv.FailLists(apierrors.NewServiceUnavailable("apiserver restarting"))
	srv.ExpireWatches()
	eventually(t, "a failed relist", func() bool { return countRequests(srv, "list", nil) > lists })
	changes()
	srv.ClearFaults()
	if err := srv.WaitForWatchers(ctx, 1); err != nil {
		t.Fatal(err)
	}
}

func noViolations(t testing.TB, hs ...*replayHandler) {
	t.Helper()
	for i, h := range hs {
		if v := h.Violations(); len(v) > 0 {
			t.Fatalf("handler %d got contradictory calls: %q", i, v)
		}
	}
}

func TestInformerInitialListAddsAreMarkedInitial(t *testing.T) {
	srv := seedServer(t)
	_, rec := runRecorded(t, srv, fastReflector())
	create(t, srv, newPod("a", "p4"))
	rec.WaitEvent(t, "add a/p4@5 initial=false")
	want := []string{"add a/p1@2 initial=true", "add a/p2@3 initial=true", "add a/p3@4 initial=true", "add a/p4@5 initial=false"}
	if got := rec.Events(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("events = %q, want %q", got, want)
	}
}

func TestInformerLateHandlerGetsSyntheticAddsInInitialList(t *testing.T) {
	srv, inf := runSeeded(t)
	update(t, srv, mustGet(t, srv, "a", "p2"))
	waitStore(t, inf, "a/p1@2 a/p2@5 a/p3@4")

	late := newRecorder()
	reg := informertest.AddHandler(t, inf, late)
	waitSynced(t, reg)
	create(t, srv, newPod("a", "p9"))
	late.WaitEvent(t, "add a/p9@6 initial=false")
	got := late.Events()
	initial := sortedCopy(got[:len(got)-1])
	want := []string{"add a/p1@2 initial=true", "add a/p2@5 initial=true", "add a/p3@4 initial=true"}
	if fmt.Sprint(initial) != fmt.Sprint(want) {
		t.Fatalf("late handler's first calls = %q, want synthetic adds %q", initial, want)
	}
}

func mustGet(t testing.TB, srv *fake.Server[*corev1.Pod], ns, name string) *corev1.Pod {
	t.Helper()
	p, err := srv.Get(ns, name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func sortedCopy(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}

// A handler joining while changes flow sees every object exactly once:
// either in its synthetic adds or as a live event, never both or neither.
func TestInformerLateHandlerSeesEachChangeExactlyOnce(t *testing.T) {
	srv := fake.NewServer[*corev1.Pod]()
	inf := podInformer(srv, cache.SharedIndexInformerOptions[*corev1.Pod]{Reflector: fastReflector()})
	early := newReplayHandler()
	informertest.AddHandler(t, inf, early)
	run(t, inf)
	waitSynced(t, inf)
	// The writer stays at most maxLag resourceVersions ahead of the slowest
	// handler: unthrottled, it outruns the informer on a loaded machine (one
	// CPU, race detector) and the markers queue behind an ever longer
	// backlog. It is stopped when the test ends, failed or not.
	const maxLag = 64
	var hmu sync.Mutex
	watched := []*replayHandler{early}
	stopWriting := make(chan struct{})
	var wg sync.WaitGroup
	stopWriter := sync.OnceFunc(func() {
		close(stopWriting)
		wg.Wait()
	})
	t.Cleanup(stopWriter)
	wg.Go(func() {
		for i := 0; ; i++ {
			select {
			case <-stopWriting:
				return
			default:
			}
			hmu.Lock()
			lag := handlerLag(srv, watched...)
			hmu.Unlock()
			if lag > maxLag {
				time.Sleep(100 * time.Microsecond)
				continue
			}
			name := fmt.Sprintf("p%d", i%20)
			if p, err := srv.Get("a", name); err == nil {
				if i%3 == 0 {
					srv.Delete("a", name)
				} else {
					srv.Update(p)
				}
			} else {
				srv.Create(newPod("a", name))
			}
		}
	})
	var late []*replayHandler
	for i := 0; i < 5; i++ {
		h := newReplayHandler()
		informertest.AddHandler(t, inf, h)
		late = append(late, h)
		hmu.Lock()
		watched = append(watched, h)
		hmu.Unlock()
		barrier(t, srv, h)
	}
	stopWriter()
	all := append([]*replayHandler{early}, late...)
	barrier(t, srv, all...)
	want := serverString(srv)
	for i, h := range all {
		if got := h.String(); got != want {
			t.Fatalf("handler %d replays to\n%s\nwant\n%s", i, got, want)
		}
	}
	noViolations(t, all...)
}

// gatedRecorder returns a recorder whose handler blocks before each call
// until open is called; open may be called more than once.
func gatedRecorder() (r *recorder, open func()) {
	gate := make(chan struct{})
	r = newRecorder()
	r.Before = func(string, *corev1.Pod) { <-gate }
	return r, sync.OnceFunc(func() { close(gate) })
}

// syncsOnceHandled fails t if reg has synced while its handler r is held
// by its gate, then opens the gate and checks that reg syncs, and only
// once r has handled all 3 of the adds (what names them).
func syncsOnceHandled(t *testing.T, what string, reg cache.ResourceEventHandlerRegistration, r *recorder, open func()) {
	t.Helper()
	if reg.HasSynced() {
		t.Fatalf("registration synced before its handler returned from the %s", what)
	}
	open()
	waitSynced(t, reg)
	if r.Len() != 3 {
		t.Fatalf("registration synced after %d of 3 %s", r.Len(), what)
	}
}

func TestInformerRegistrationHasSyncedAfterHandlerGotInitialItems(t *testing.T) {
	srv := seedServer(t)
	inf := podInformer(srv, cache.SharedIndexInformerOptions[*corev1.Pod]{Reflector: fastReflector()})
	blocked, openGate := gatedRecorder()
	blockedReg := informertest.AddHandler(t, inf, blocked)
	freeReg := informertest.AddHandler(t, inf, newRecorder())
	run(t, inf)
	// Registered after run's cleanup, so that a failing test unblocks the
	// handlers before the informer is stopped and waited for.
	t.Cleanup(openGate)
	// The informer and the free handler sync while the blocked handler
	// still holds its first initial item.
	waitSynced(t, inf, freeReg)
	syncsOnceHandled(t, "initial adds", blockedReg, blocked, openGate)

	// A late handler's registration waits for its synthetic adds too.
	late, openLateGate := gatedRecorder()
	t.Cleanup(openLateGate)
	syncsOnceHandled(t, "synthetic adds", informertest.AddHandler(t, inf, late), late, openLateGate)
}

func TestInformerPanickingHandlerRecovered(t *testing.T) {
	srv := seedServer(t)
	inf := podInformer(srv, cache.SharedIndexInformerOptions[*corev1.Pod]{Reflector: fastReflector()})
	panicky := newRecorder()
	panicky.Before = func(kind string, p *corev1.Pod) {
		if p.Name == "p2" || kind == "update" {
			panic("handler bug on " + kind + " " + p.Name)
		}
	}
	panickyReg := informertest.AddHandler(t, inf, panicky)
	other := newReplayHandler()
	informertest.AddHandler(t, inf, other)
	run(t, inf)
	waitSynced(t, inf, panickyReg)
	update(t, srv, mustGet(t, srv, "a", "p1"))
	create(t, srv, newPod("a", "p4"))
	panicky.WaitEvent(t, "add a/p4@6 initial=false")
	barrier(t, srv, other)
	if inf.IsStopped() {
		t.Fatal("informer stopped after a handler panic")
	}
	want := []string{"add a/p1@2 initial=true", "add a/p3@4 initial=true", "add a/p4@6 initial=false"}
	if got := panicky.Events(); fmt.Sprint(got[:3]) != fmt.Sprint(want) {
		t.Fatalf("panicking handler's completed calls = %q, want %q", got, want)
	}
	if got, want := other.String(), serverString(srv); got != want {
		t.Fatalf("other handler: %s, want %s", got, want)
	}
	noViolations(t, other)
}

func TestInformerSlowHandlerDoesNotBlockOthers(t *testing.T) {
	srv := fake.NewServer[*corev1.Pod]()
	inf := podInformer(srv, cache.SharedIndexInformerOptions[*corev1.Pod]{Reflector: fastReflector()})
	gate := make(chan struct{})
	slow := newReplayHandler()
	slowRec := newRecorder()
	slowRec.Before = func(kind string, p *corev1.Pod) {
		<-gate
		switch kind {
		case "add":
			slow.OnAdd(p, false)
		case "delete":
			slow.OnDelete(p, false)
		}
	}
	informertest.AddHandler(t, inf, slowRec)
	fast := newReplayHandler()
	informertest.AddHandler(t, inf, fast)
	run(t, inf)
	// Registered after run's cleanup, so that a failing test unblocks the
	// slow handler before the informer is stopped and waited for.
	openGate := sync.OnceFunc(func() { close(gate) })
	t.Cleanup(openGate)
	waitSynced(t, inf)
	for i := 0; i < 100; i++ {
		create(t, srv, newPod("a", fmt.Sprintf("p%03d", i)))
	}
	barrier(t, srv, fast)
	// The store and the fast handler are complete while the slow handler
	// is still stuck in its first call.
	want := serverString(srv)
	if got := storeString(inf.GetStore().List()); got != want {
		t.Fatalf("store %s, want %s", got, want)
	}
	if fast.String() != want {
		t.Fatalf("fast handler %s, want %s", fast.String(), want)
	}
	if slowRec.Len() != 0 {
		t.Fatal("the slow handler was not blocked")
	}
	openGate()
	eventually(t, "the slow handler to catch up", func() bool { return slow.String() == want })
	noViolations(t, fast, slow)
}

func TestInformerHandlerCallsAreSerialAndInOrder(t *testing.T) {
	srv := fake.NewServer[*corev1.Pod]()
	inf := podInformer(srv, cache.SharedIndexInformerOptions[*corev1.Pod]{Reflector: fastReflector()})
	var hs []*replayHandler
	var inFlight [4]atomic.Int32
	var overlap atomic.Bool
	for i := range 4 {
		h := newReplayHandler()
		hs = append(hs, h)
		wrapped := cache.ResourceEventHandlerDetailedFuncs[*corev1.Pod]{
			AddFunc: func(p *corev1.Pod, initial bool) {
				if inFlight[i].Add(1) > 1 {
					overlap.Store(true)
				}
				h.OnAdd(p, initial)
				inFlight[i].Add(-1)
			},
			UpdateFunc: func(old, p *corev1.Pod) {
				if inFlight[i].Add(1) > 1 {
					overlap.Store(true)
				}
				h.OnUpdate(old, p)
				inFlight[i].Add(-1)
			},
			DeleteFunc: func(p *corev1.Pod, unknown bool) {
				if inFlight[i].Add(1) > 1 {
					overlap.Store(true)
				}
				h.OnDelete(p, unknown)
				inFlight[i].Add(-1)
			},
		}
		informertest.AddHandler(t, inf, wrapped)
	}
	run(t, inf)
	waitSynced(t, inf)
	for i := 0; i < 300; i++ {
		name := fmt.Sprintf("p%d", i%7)
		if p, err := srv.Get("a", name); err == nil {
			if i%5 == 0 {
				del(t, srv, "a", name)
			} else {
				update(t, srv, p)
			}
		} else {
			create(t, srv, newPod("a", name))
		}
	}
	barrier(t, srv, hs...)
	if overlap.Load() {
		t.Fatal("a handler was called concurrently with itself")
	}
	noViolations(t, hs...)
	for i, h := range hs {
		if h.String() != serverString(srv) {
			t.Fatalf("handler %d: %s, want %s", i, h.String(), serverString(srv))
		}
	}
}

func TestInformerTombstoneReachesHandlerTyped(t *testing.T) {
	srv := seedServer(t)
	inf := podInformer(srv, cache.SharedIndexInformerOptions[*corev1.Pod]{Reflector: fastReflector()})
	type deleted struct {
		obj     *corev1.Pod
		unknown bool
	}
	deletes := make(chan deleted, 10)
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerDetailedFuncs[*corev1.Pod]{
		DeleteFunc: func(p *corev1.Pod, unknown bool) { deletes <- deleted{p, unknown} },
	}); err != nil {
		t.Fatal(err)
	}
	run(t, inf)
	waitSynced(t, inf)
	p2 := mustGet(t, srv, "a", "p2")
	relistAfter(t, srv, func() { del(t, srv, "a", "p2") })
	select {
	case d := <-deletes:
		if !d.unknown || d.obj.Name != "p2" || d.obj.ResourceVersion != p2.ResourceVersion || d.obj.Spec.NodeName != p2.Spec.NodeName {
			t.Fatalf("OnDelete(%s@%s, finalStateUnknown=%t), want the last known p2@%s with finalStateUnknown",
				key(d.obj), d.obj.ResourceVersion, d.unknown, p2.ResourceVersion)
		}
	case <-time.After(waitLimit):
		t.Fatal("no OnDelete for the missed delete")
	}
	// A delete seen on the watch is not a tombstone.
	del(t, srv, "a", "p3")
	select {
	case d := <-deletes:
		if d.unknown || d.obj.Name != "p3" || d.obj.ResourceVersion != srv.ResourceVersion() {
			t.Fatalf("OnDelete(%s@%s, %t), want p3 at the deletion's RV, known", key(d.obj), d.obj.ResourceVersion, d.unknown)
		}
	case <-time.After(waitLimit):
		t.Fatal("no OnDelete for a watched delete")
	}
}

func TestInformerRelistTurnsReplacedIntoUpdatesAndAdds(t *testing.T) {
	srv := seedServer(t)
	inf := podInformer(srv, cache.SharedIndexInformerOptions[*corev1.Pod]{Reflector: fastReflector()})
	rec := newRecorder()
	h := newReplayHandler()
	informertest.AddHandler(t, inf, rec)
	informertest.AddHandler(t, inf, h)
	run(t, inf)
	waitSynced(t, inf)
	relistAfter(t, srv, func() {
		update(t, srv, mustGet(t, srv, "a", "p1")) // 5
		create(t, srv, newPod("a", "p4"))          // 6
	})
	barrier(t, srv, rec, h) // each handler has its own goroutine: wait for both
	got := rec.Events()[3:] // after the initial adds
	// No handler has a resync period, so both are syncing and also get
	// the unchanged p2 and p3 (client-go's rule).
	want := []string{"update a/p1@2->5", "update a/p2@3->3", "update a/p3@4->4", "add a/p4@6 initial=false"}
	if fmt.Sprint(got[:len(got)-1]) != fmt.Sprint(want) {
		t.Fatalf("calls after the relist = %q, want %q then the marker", got, want)
	}
	noViolations(t, h)
}

func TestInformerEqualRVUpdateIsResyncOnly(t *testing.T) {
	clk := testingclock.NewFakeClock(time.Now())
	srv := seedServer(t)
	inf := podInformer(srv, cache.SharedIndexInformerOptions[*corev1.Pod]{
		Reflector: cache.ReflectorOptions{DisableWatchList: true, Clock: clk, InitialBackoff: time.Millisecond, MaxBackoff: time.Millisecond},
	})
	plain := newRecorder()
	plainH := newReplayHandler()
	resyncing := newRecorder()
	for _, h := range []cache.ResourceEventHandler[*corev1.Pod]{plain, plainH} {
		informertest.AddHandler(t, inf, h)
	}
	if _, err := inf.AddEventHandlerWithResyncPeriod(resyncing, time.Hour); err != nil {
		t.Fatal(err)
	}
	run(t, inf)
	waitSynced(t, inf)
	// Make the resyncing handler due: it gets Sync updates with equal RVs.
	eventually(t, "the resync timer", clk.HasWaiters)
	clk.Step(time.Hour)
	resyncing.WaitEvent(t, "update a/p3@4->4")
	// A relist that finds p1..p3 unchanged and p2 changed: the unchanged
	// objects come back with equal RVs, which only the handler being
	// resynced receives.
	stepper := stepWhileWaiting(t, clk, time.Millisecond)
	relistAfter(t, srv, func() { update(t, srv, mustGet(t, srv, "a", "p2")) })
	barrier(t, srv, plainH)
	stepper()
	for _, ev := range plain.Events() {
		if strings.HasPrefix(ev, "update") && ev != "update a/p2@3->5" {
			t.Fatalf("handler without resync got %q; all: %q", ev, plain.Events())
		}
	}
	if !plain.Has("update a/p2@3->5") {
		t.Fatalf("the changed object did not reach the plain handler: %q", plain.Events())
	}
	if got := strings.Count(strings.Join(resyncing.Events(), "\n"), "update a/p1@2->2"); got != 2 {
		t.Fatalf("resyncing handler got %d equal-RV updates of p1, want 2 (resync and relist): %q", got, resyncing.Events())
	}
	noViolations(t, plainH)
}

// stepWhileWaiting advances clk by step whenever something waits on it, so
// that fake-clock backoffs elapse, until the returned stop is called or the
// test ends.
func stepWhileWaiting(t testing.TB, clk *testingclock.FakeClock, step time.Duration) (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(100 * time.Microsecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				if clk.HasWaiters() {
					clk.Step(step)
				}
			}
		}
	}()
	stop = sync.OnceFunc(func() {
		close(done)
		<-finished
	})
	t.Cleanup(stop)
	return stop
}

// handlerLag returns how many resourceVersions the slowest of hs is behind
// the server: the server's RV minus the highest RV that handler was given.
func handlerLag(srv *fake.Server[*corev1.Pod], hs ...*replayHandler) uint64 {
	server, err := strconv.ParseUint(srv.ResourceVersion(), 10, 64)
	if err != nil {
		panic(err) // the fake server's RVs are integers
	}
	var lag uint64
	for _, h := range hs {
		lag = max(lag, server-min(server, h.MaxRV()))
	}
	return lag
}

func TestInformerResyncPeriodPerHandler(t *testing.T) {
	clk := testingclock.NewFakeClock(time.Now())
	srv := seedServer(t)
	inf := podInformer(srv, cache.SharedIndexInformerOptions[*corev1.Pod]{
		ResyncPeriod: 3 * time.Minute, // the default, for AddEventHandler
		Reflector:    cache.ReflectorOptions{DisableWatchList: true, Clock: clk},
	})
	never, every1, every3 := newRecorder(), newRecorder(), newRecorder()
	if _, err := inf.AddEventHandlerWithResyncPeriod(never, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := inf.AddEventHandlerWithResyncPeriod(every1, time.Minute); err != nil {
		t.Fatal(err)
	}
	informertest.AddHandler(t, inf, every3)
	run(t, inf)
	waitSynced(t, inf)
	updates := func(r *recorder) int {
		n := 0
		for _, e := range r.Events() {
			if strings.HasPrefix(e, "update") {
				n++
			}
		}
		return n
	}
	for minute := 1; minute <= 3; minute++ {
		eventually(t, "the resync timer", clk.HasWaiters)
		clk.Step(time.Minute)
		eventually(t, fmt.Sprintf("resync %d of the 1-minute handler", minute), func() bool { return updates(every1) == 3*minute })
	}
	// Resync notifications are distributed to all due handlers at once, so
	// the 3-minute handler has its batch by now.
	eventually(t, "the 3-minute handler's resync", func() bool { return updates(every3) == 3 })
	if n := updates(never); n != 0 {
		t.Fatalf("handler without resync got %d updates", n)
	}
	for _, e := range every3.Events()[3:] {
		var k, old, cur string
		if _, err := fmt.Sscanf(strings.NewReplacer("@", " ", "->", " ").Replace(e), "update %s %s %s", &k, &old, &cur); err != nil || old != cur {
			t.Fatalf("resync call %q is not an update with equal RVs", e)
		}
	}
}

// Handlers added and removed more often than the resync period must not
// postpone a resync that is due: a 1-minute handler is resynced at 1 and 2
// minutes although other handlers come and go every 20 seconds, and only
// then (time is synctest's, so "only then" is exact).
func TestInformerResyncNotPostponedByHandlerChurn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		inf := podInformer(seedServer(t), cache.SharedIndexInformerOptions[*corev1.Pod]{
			Reflector: cache.ReflectorOptions{DisableWatchList: true},
		})
		every1 := newRecorder()
		if _, err := inf.AddEventHandlerWithResyncPeriod(every1, time.Minute); err != nil {
			t.Fatal(err)
		}
		run(t, inf)
		waitSynced(t, inf)
		synctest.Wait()
		resyncs := func() int {
			n := 0
			for _, e := range every1.Events() {
				if strings.HasPrefix(e, "update") {
					n++
				}
			}
			return n / 3 // seedServer's three Pods per resync
		}
		start := time.Now()
		var churn cache.ResourceEventHandlerRegistration
		for step := 1; step <= 6; step++ {
			time.Sleep(20 * time.Second)
			if churn == nil {
				churn = informertest.AddHandler(t, inf, cache.ResourceEventHandler[*corev1.Pod](newRecorder()))
			} else {
				if err := inf.RemoveEventHandler(churn); err != nil {
					t.Fatal(err)
				}
				churn = nil
			}
			synctest.Wait()
			if got, want := resyncs(), step/3; got != want {
				t.Fatalf("after %v with a handler added or removed every 20s: %d resyncs of the 1-minute handler, want %d", time.Since(start), got, want)
			}
		}
	})
}

func TestInformerSetTransformAfterStartFails(t *testing.T) {
	srv := seedServer(t)
	inf := podInformer(srv, cache.SharedIndexInformerOptions[*corev1.Pod]{Reflector: fastReflector()})
	strip := func(p *corev1.Pod) (*corev1.Pod, error) {
		p.ManagedFields = nil
		p.Annotations = map[string]string{"transformed": "yes"}
		return p, nil
	}
	if err := inf.SetTransform(strip); err != nil {
		t.Fatalf("SetTransform before start: %v", err)
	}
	if err := inf.SetWatchErrorHandler(func(context.Context, error) {}); err != nil {
		t.Fatalf("SetWatchErrorHandler before start: %v", err)
	}
	run(t, inf)
	eventually(t, "the informer to start", func() bool { return len(srv.Requests()) > 0 })
	if err := inf.SetTransform(strip); err == nil || !strings.Contains(err.Error(), "pods") {
		t.Fatalf("SetTransform after start: %v, want an error naming the informer", err)
	}
	if err := inf.SetWatchErrorHandler(func(context.Context, error) {}); err == nil {
		t.Fatal("SetWatchErrorHandler after start succeeded")
	}
}

func TestInformerTransformAppliedBeforeStoreAndHandlers(t *testing.T) {
	srv := seedServer(t)
	inf := podInformer(srv, cache.SharedIndexInformerOptions[*corev1.Pod]{Reflector: fastReflector()})
	if err := inf.SetTransform(func(p *corev1.Pod) (*corev1.Pod, error) {
		p.ManagedFields = nil
		p.Annotations = map[string]string{"transformed": "yes"}
		return p, nil
	}); err != nil {
		t.Fatal(err)
	}
	seen := make(chan *corev1.Pod, 100)
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerDetailedFuncs[*corev1.Pod]{
		AddFunc:    func(p *corev1.Pod, _ bool) { seen <- p },
		UpdateFunc: func(_, p *corev1.Pod) { seen <- p },
	}); err != nil {
		t.Fatal(err)
	}
	run(t, inf)
	waitSynced(t, inf)
	p := newPod("a", "p4")
	p.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "kubectl"}}
	create(t, srv, p)
	waitStore(t, inf, "a/p1@2 a/p2@3 a/p3@4 a/p4@5")
	for _, obj := range inf.GetStore().List() {
		if obj.Annotations["transformed"] != "yes" || obj.ManagedFields != nil {
			t.Fatalf("stored %s was not transformed", key(obj))
		}
	}
	for i := 0; i < 4; i++ {
		if obj := <-seen; obj.Annotations["transformed"] != "yes" {
			t.Fatalf("handler got untransformed %s", key(obj))
		}
	}
}

func byNode(p *corev1.Pod) ([]string, error) { return []string{p.Spec.NodeName}, nil }

func TestInformerAddIndexersAfterStartReindexes(t *testing.T) {
	srv := fake.NewServer[*corev1.Pod]()
	for i, n := range []string{"n1", "n2", "n1"} {
		p := newPod("a", fmt.Sprintf("p%d", i))
		p.Spec.NodeName = n
		create(t, srv, p)
	}
	inf := podInformer(srv, cache.SharedIndexInformerOptions[*corev1.Pod]{Reflector: fastReflector()})
	run(t, inf)
	waitSynced(t, inf)
	if err := inf.AddIndexers(cache.Indexers[*corev1.Pod]{"node": byNode}); err != nil {
		t.Fatal(err)
	}
	got, err := inf.GetIndexer().ByIndex("node", "n1")
	if err != nil {
		t.Fatal(err)
	}
	if storeString(got) != "a/p0@2 a/p2@4" {
		t.Fatalf("ByIndex(node, n1) = %s", storeString(got))
	}
	p := newPod("a", "p3")
	p.Spec.NodeName = "n1"
	create(t, srv, p)
	eventually(t, "the new pod indexed", func() bool {
		got, _ := inf.GetIndexer().ByIndex("node", "n1")
		return storeString(got) == "a/p0@2 a/p2@4 a/p3@5"
	})
	if err := inf.AddIndexers(cache.Indexers[*corev1.Pod]{"node": byNode}); err == nil || !strings.Contains(err.Error(), "node") {
		t.Fatalf("adding an existing index: %v, want an error naming it", err)
	}
}

func TestInformerAddIndexersReportsObjectsItsFunctionFailsOn(t *testing.T) {
	srv, inf := runSeeded(t)
	errBad := errors.New("no owner")
	err := inf.AddIndexers(cache.Indexers[*corev1.Pod]{"owner": func(p *corev1.Pod) ([]string, error) {
		if p.Name == "p2" {
			return nil, errBad
		}
		return []string{"x"}, nil
	}})
	if !errors.Is(err, errBad) || !strings.Contains(err.Error(), "owner") || !strings.Contains(err.Error(), "a/p2") {
		t.Fatalf("AddIndexers = %v, want the index function's error naming the index and the object", err)
	}
	if got, err := inf.GetIndexer().ByIndex("owner", "x"); err != nil || storeString(got) != "a/p1@2 a/p3@4" {
		t.Fatalf("owner index = %s, %v", storeString(got), err)
	}
	if err := inf.SyncError(); !errors.Is(err, errBad) {
		t.Fatalf("SyncError = %v, want the index error", err)
	}
	// The informer goes on.
	create(t, srv, newPod("a", "p4"))
	waitStore(t, inf, "a/p1@2 a/p2@3 a/p3@4 a/p4@5")
}

func TestInformerRemoveEventHandlerStopsDelivery(t *testing.T) {
	srv := seedServer(t)
	inf := podInformer(srv, cache.SharedIndexInformerOptions[*corev1.Pod]{Reflector: fastReflector()})
	removed := newRecorder()
	reg := informertest.AddHandler(t, inf, removed)
	kept := newReplayHandler()
	informertest.AddHandler(t, inf, kept)
	run(t, inf)
	waitSynced(t, inf, reg)
	if err := inf.RemoveEventHandler(reg); err != nil {
		t.Fatal(err)
	}
	if err := inf.RemoveEventHandler(reg); err != nil {
		t.Fatalf("removing twice: %v", err)
	}
	n := removed.Len()
	create(t, srv, newPod("a", "p4"))
	barrier(t, srv, kept)
	if removed.Len() != n {
		t.Fatalf("removed handler got %q", removed.Events()[n:])
	}
	if err := inf.RemoveEventHandler(foreignRegistration{}); err == nil {
		t.Fatal("removing a foreign registration succeeded")
	}
}

type foreignRegistration struct{}

func (foreignRegistration) HasSynced() bool { return true }

func (foreignRegistration) HasSyncedChecker() cache.DoneChecker { return nil }

func TestInformerAddHandlerAfterStopFails(t *testing.T) {
	srv := seedServer(t)
	inf := podInformer(srv, cache.SharedIndexInformerOptions[*corev1.Pod]{Reflector: fastReflector()})
	if inf.IsStopped() {
		t.Fatal("stopped before Run")
	}
	stop := run(t, inf)
	waitSynced(t, inf)
	stop()
	if !inf.IsStopped() {
		t.Fatal("IsStopped false after Run returned")
	}
	if _, err := inf.AddEventHandler(newRecorder()); err == nil {
		t.Fatal("AddEventHandler on a stopped informer succeeded")
	}
	if _, err := inf.AddEventHandler(nil); err == nil {
		t.Fatal("nil handler accepted")
	}
}

func TestInformerRunTwiceReturnsAtOnce(t *testing.T) {
	srv, inf := runSeeded(t)
	done := make(chan struct{})
	// If the second Run wrongly ran, the test's end stops it.
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go func() {
		inf.Run(ctx) // must not block: already running
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(waitLimit):
		t.Fatal("a second Run blocked")
	}
	if n := countRequests(srv, "list", nil); n != 1 {
		t.Fatalf("the second Run listed again (%d lists)", n)
	}
}

// Handlers added while the informer shuts down either fail or are started
// and stopped cleanly; nothing races or panics (run with -race).
func TestInformerAddHandlerDuringShutdownIsSafe(t *testing.T) {
	for round := 0; round < 20; round++ {
		srv := seedServer(t)
		inf := podInformer(srv, cache.SharedIndexInformerOptions[*corev1.Pod]{Reflector: fastReflector()})
		stop := run(t, inf)
		waitSynced(t, inf)
		adding := make(chan struct{})
		go func() {
			defer close(adding)
			for !inf.IsStopped() {
				if _, err := inf.AddEventHandler(newRecorder()); err != nil {
					return
				}
			}
		}()
		stop()
		<-adding
	}
}

func TestInformerWatchErrorHandlerSeesListErrors(t *testing.T) {
	srv := seedServer(t)
	srv.FailNextList(apierrors.NewForbidden(srv.Resource(), "", errors.New("RBAC: no list")))
	inf := podInformer(srv, cache.SharedIndexInformerOptions[*corev1.Pod]{Reflector: fastReflector()})
	errs := &errorLog{}
	if err := inf.SetWatchErrorHandler(errs.handler); err != nil {
		t.Fatal(err)
	}
	run(t, inf)
	waitSynced(t, inf)
	if !errs.matching(apierrors.IsForbidden) {
		t.Fatalf("handler saw %s, want the Forbidden list error", errs)
	}
	if err := inf.LastError(); err != nil {
		t.Fatalf("LastError after a good list = %v", err)
	}
}

func TestInformerLastSyncResourceVersionFollowsServer(t *testing.T) {
	srv := seedServer(t)
	inf := podInformer(srv, cache.SharedIndexInformerOptions[*corev1.Pod]{Reflector: fastReflector()})
	if inf.LastSyncResourceVersion() != "" {
		t.Fatal("RV before Run")
	}
	run(t, inf)
	waitSynced(t, inf)
	for i := 0; i < 5; i++ {
		create(t, srv, newPod("b", fmt.Sprint(i)))
	}
	del(t, srv, "b", "0")
	eventually(t, "the server's RV", func() bool { return inf.LastSyncResourceVersion() == srv.ResourceVersion() })
}

func TestInformerHasSyncedOnlyOnceInitialItemsAreApplied(t *testing.T) {
	srv := fake.NewServer[*corev1.Pod]()
	const n = 2000
	for i := 0; i < n; i++ {
		create(t, srv, newPod("a", fmt.Sprintf("p%04d", i)))
	}
	var inf cache.SharedIndexInformer[*corev1.Pod]
	var appliedAfterSync atomic.Int64
	// Index functions run as the informer applies each object, so this
	// one sees whether the informer claimed to be synced before an initial
	// item was applied.
	inf = podInformer(srv, cache.SharedIndexInformerOptions[*corev1.Pod]{
		Reflector: fastReflector(),
		Indexers: cache.Indexers[*corev1.Pod]{"probe": func(p *corev1.Pod) ([]string, error) {
			if inf.HasSynced() {
				appliedAfterSync.Add(1)
			}
			return nil, nil
		}},
	})
	if inf.HasSynced() {
		t.Fatal("synced before Run")
	}
	run(t, inf)
	waitSynced(t, inf)
	if got := inf.GetStore().Len(); got != n {
		t.Fatalf("synced with %d of %d initial items in the store", got, n)
	}
	if k := appliedAfterSync.Load(); k != 0 {
		t.Fatalf("HasSynced was true while %d initial items were still being applied", k)
	}
}
