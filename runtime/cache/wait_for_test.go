package cache_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
	"k8s.io/klog/v2/ktesting"

	"github.com/typedinformer/typedinformer/runtime/cache"
	"github.com/typedinformer/typedinformer/runtime/fake"
)

// gatedHandler blocks in every initial OnAdd until gate is closed.
type gatedHandler struct {
	gate    chan struct{}
	entered chan struct{} // one send per initial OnAdd that started
}

func newGatedHandler() *gatedHandler {
	return &gatedHandler{gate: make(chan struct{}), entered: make(chan struct{}, 100)}
}

func (h *gatedHandler) OnAdd(_ *corev1.Pod, initial bool) {
	if initial {
		h.entered <- struct{}{}
		<-h.gate
	}
}
func (h *gatedHandler) OnUpdate(_, _ *corev1.Pod)      {}
func (h *gatedHandler) OnDelete(_ *corev1.Pod, _ bool) {}

// awaitDone waits for c's channel, failing after waitLimit.
func awaitDone(t *testing.T, c cache.DoneChecker) {
	t.Helper()
	select {
	case <-c.Done():
	case <-time.After(waitLimit):
		t.Fatalf("%s: not done after %v", c.Name(), waitLimit)
	}
}

// agree checks that a checker and its HasSynced agree: done only if
// synced, and synced only if done (HasSynced is asked first: the checker
// must already be done when it says true).
func agree(t *testing.T, what string, hasSynced func() bool, c cache.DoneChecker) bool {
	t.Helper()
	if cache.IsDone(c) && !hasSynced() {
		t.Fatalf("%s: checker done but HasSynced false", what)
	}
	synced := hasSynced()
	if synced && !cache.IsDone(c) {
		t.Fatalf("%s: HasSynced true but checker not done", what)
	}
	return synced
}

// TestHasSyncedCheckerDoneExactlyWhenHasSynced checks the informer's and a
// registration's checkers against their HasSynced: the informer's is done
// once the list was handed to the handlers, a registration's only once its
// handler returned from every initial add.
func TestHasSyncedCheckerDoneExactlyWhenHasSynced(t *testing.T) {
	for _, tc := range []struct {
		name  string
		pods  int
		late  bool // register after the informer synced
		empty bool
	}{
		{name: "registered before Run", pods: 3},
		{name: "registered after sync", pods: 3, late: true},
		{name: "empty list", pods: 0},
		{name: "empty list, registered after sync", pods: 0, late: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := fake.NewServer[*corev1.Pod]()
			for i := range tc.pods {
				create(t, srv, newPod("a", fmt.Sprintf("p%d", i)))
			}
			inf := podInformer(srv, cache.SharedIndexInformerOptions[*corev1.Pod]{Reflector: fastReflector()})
			ic := inf.HasSyncedChecker()
			if agree(t, "informer before Run", inf.HasSynced, ic) {
				t.Fatal("informer synced before Run")
			}
			h := newGatedHandler()
			var reg cache.ResourceEventHandlerRegistration
			register := func() {
				var err error
				if reg, err = inf.AddEventHandler(h); err != nil {
					t.Fatal(err)
				}
			}
			if !tc.late {
				register()
			}
			run(t, inf)
			eventually(t, "informer synced", func() bool { return agree(t, "informer", inf.HasSynced, ic) })
			awaitDone(t, ic)
			if tc.late {
				register()
			}
			rc := reg.HasSyncedChecker()
			if tc.pods > 0 {
				<-h.entered // the handler is inside its first initial add
				if agree(t, "registration during initial adds", reg.HasSynced, rc) {
					t.Fatal("registration synced while its handler is in an initial add")
				}
			}
			close(h.gate)
			awaitDone(t, rc)
			if !agree(t, "registration", reg.HasSynced, rc) {
				t.Fatal("registration not synced after its checker was done")
			}
			if rc.Name() == "" || ic.Name() == "" {
				t.Fatalf("checker names %q, %q: want non-empty", ic.Name(), rc.Name())
			}
		})
	}
}

// TestHasSyncedCheckerOfRemovedRegistration checks that a registration
// removed before it synced stays not done, as its HasSynced stays false.
func TestHasSyncedCheckerOfRemovedRegistration(t *testing.T) {
	srv := seedServer(t)
	inf := podInformer(srv, cache.SharedIndexInformerOptions[*corev1.Pod]{Reflector: fastReflector()})
	h := newGatedHandler()
	reg, err := inf.AddEventHandler(h)
	if err != nil {
		t.Fatal(err)
	}
	run(t, inf)
	<-h.entered
	if err := inf.RemoveEventHandler(reg); err != nil {
		t.Fatal(err)
	}
	close(h.gate)
	waitSynced(t, inf)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if cache.WaitFor(ctx, "", reg.HasSyncedChecker()) || reg.HasSynced() {
		t.Fatal("removed unsynced registration became synced")
	}
}

// doneChecker is a DoneChecker for WaitFor's tests.
type doneChecker struct {
	name string
	ch   chan struct{}
}

func newChecker(name string, done bool) *doneChecker {
	c := &doneChecker{name: name, ch: make(chan struct{})}
	if done {
		close(c.ch)
	}
	return c
}

func (c *doneChecker) Name() string          { return c.name }
func (c *doneChecker) Done() <-chan struct{} { return c.ch }

// logLine is one captured line: its message and parameters.
type logLine struct {
	msg string
	kv  []any
}

func linesOf(l klog.Logger) []logLine {
	var out []logLine
	for _, e := range l.GetSink().(ktesting.Underlier).GetBuffer().Data() {
		out = append(out, logLine{e.Message, e.ParameterKVList})
	}
	return out
}

// TestWaitFor checks WaitFor's results and log lines (client-go v0.37's;
// the clientgo module compares them with client-go's own).
func TestWaitFor(t *testing.T) {
	cause := errors.New("shutting down")
	for _, tc := range []struct {
		name      string
		what      string
		checkers  []bool // done at the start
		complete  bool   // the undone ones complete while WaitFor waits
		cancelled bool
		want      bool
		lines     []logLine
	}{
		{name: "none", what: "x", want: true, lines: []logLine{{"Waiting", []any{"for", "x"}}}},
		{name: "none, cancelled", cancelled: true, want: true},
		{name: "all done, cancelled", what: "caches", checkers: []bool{true, true}, cancelled: true, want: true,
			lines: []logLine{{"Waiting", []any{"for", "caches"}}, {"Done waiting", []any{"for", "caches", "instance", "c0"}}, {"Done waiting", []any{"for", "caches", "instance", "c1"}}}},
		{name: "one pending, cancelled", what: "caches", checkers: []bool{false, true, false}, cancelled: true, want: false,
			lines: []logLine{{"Waiting", []any{"for", "caches"}}, {"Done waiting", []any{"for", "caches", "instance", "c1"}},
				{"Timed out waiting", []any{"for", "caches", "cause", cause, "instances", []string{"c0", "c2"}}}}},
		{name: "completes while waiting", what: "caches", checkers: []bool{false}, complete: true, want: true,
			lines: []logLine{{"Waiting", []any{"for", "caches"}}, {"Done waiting", []any{"for", "caches", "instance", "c0"}}}},
		{name: "no what: silent", checkers: []bool{false}, cancelled: true, want: false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			logger := ktesting.NewLogger(t, ktesting.NewConfig(ktesting.BufferLogs(true)))
			ctx, cancel := context.WithCancelCause(klog.NewContext(context.Background(), logger))
			defer cancel(nil)
			var checkers []cache.DoneChecker
			var pending []*doneChecker
			for i, done := range tc.checkers {
				c := newChecker(fmt.Sprintf("c%d", i), done)
				checkers = append(checkers, c)
				if !done {
					pending = append(pending, c)
				}
			}
			if tc.cancelled {
				cancel(cause)
			}
			if tc.complete {
				go func() {
					for _, c := range pending {
						close(c.ch)
					}
				}()
			}
			if got := cache.WaitFor(ctx, tc.what, checkers...); got != tc.want {
				t.Fatalf("WaitFor = %v, want %v", got, tc.want)
			}
			got := linesOf(logger)
			// "Done waiting" lines come in completion order, which select
			// picks among ready channels: compare them as a set.
			norm := func(ls []logLine) []string {
				var s []string
				for _, l := range ls {
					s = append(s, fmt.Sprint(l.msg, l.kv))
				}
				slices.Sort(s)
				return s
			}
			if g, w := norm(got), norm(tc.lines); !slices.Equal(g, w) {
				t.Fatalf("log lines\n got %q\nwant %q", g, w)
			}
			if len(got) > 0 && got[0].msg != "Waiting" {
				t.Fatalf("first line %q, want Waiting", got[0].msg)
			}
		})
	}
}

// TestWaitForNilChecker checks that a nil checker fails the wait with an
// error line instead of a panic.
func TestWaitForNilChecker(t *testing.T) {
	logger := ktesting.NewLogger(t, ktesting.NewConfig(ktesting.BufferLogs(true)))
	ctx := klog.NewContext(context.Background(), logger)
	if cache.WaitFor(ctx, "caches", newChecker("c0", true), nil) {
		t.Fatal("WaitFor with a nil checker = true")
	}
	lines := linesOf(logger)
	if len(lines) != 1 || lines[0].msg != "WaitFor: checker is nil" {
		t.Fatalf("log lines %v, want one naming the nil checker", lines)
	}
}

// TestWaitForInformersAndRegistrations waits with WaitFor for a running
// informer and a handler, as a ported controller does.
func TestWaitForInformersAndRegistrations(t *testing.T) {
	srv := seedServer(t)
	inf := podInformer(srv, cache.SharedIndexInformerOptions[*corev1.Pod]{Reflector: fastReflector()})
	rec := newRecorder()
	reg, err := inf.AddEventHandler(rec)
	if err != nil {
		t.Fatal(err)
	}
	run(t, inf)
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	if !cache.WaitFor(ctx, "pods", inf.HasSyncedChecker(), reg.HasSyncedChecker()) {
		t.Fatal("WaitFor = false")
	}
	if n := len(rec.Events()); n != 3 {
		t.Fatalf("handler saw %d events when its registration was done, want the 3 initial adds", n)
	}
}

// checkedSyncer is a Syncer with a HasSyncedChecker: synced exactly when
// its checker's channel is closed.
type checkedSyncer struct{ c *doneChecker }

func (s checkedSyncer) HasSynced() bool                     { return cache.IsDone(s.c) }
func (s checkedSyncer) HasSyncedChecker() cache.DoneChecker { return s.c }
func (s checkedSyncer) Name() string                        { return s.c.name }

// TestWaitForSyncWaitsOnCheckers checks that WaitForSync returns as soon as
// the last checker's channel closes, with no time passing (no polling), and
// still names what did not sync when ctx ends first.
func TestWaitForSyncWaitsOnCheckers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a, b := checkedSyncer{newChecker("a", true)}, checkedSyncer{newChecker("b", false)}
		start := time.Now()
		result := make(chan error, 1)
		go func() { result <- cache.WaitForSync(t.Context(), a, b) }()
		synctest.Wait()
		select {
		case err := <-result:
			t.Fatalf("WaitForSync returned %v before b synced", err)
		default:
		}
		close(b.c.ch)
		synctest.Wait()
		select {
		case err := <-result:
			if err != nil {
				t.Fatalf("after b synced: WaitForSync = %v, want nil", err)
			}
		default:
			t.Fatal("WaitForSync still waits after b synced; want it to return at once")
		}
		if d := time.Since(start); d != 0 {
			t.Errorf("WaitForSync took %v of the bubble's time; want none (no polling)", d)
		}

		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		c := checkedSyncer{newChecker("c", false)}
		var ns *cache.NotSyncedError
		if err := cache.WaitForSync(ctx, a, c); !errors.As(err, &ns) || len(ns.Pending) != 1 || ns.Pending[0].Name != "c" {
			t.Errorf("WaitForSync on a cancelled ctx = %v; want a NotSyncedError naming c only", err)
		}
	})
}
