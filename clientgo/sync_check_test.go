package clientgo_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	"k8s.io/klog/v2/ktesting"

	"github.com/typedinformer/typedinformer/clientgo"
	"github.com/typedinformer/typedinformer/runtime/cache"
)

// The sync-wait API (DoneChecker, IsDone, WaitFor, HasSyncedChecker) of
// runtime/cache and of the clientgo facade, side by side with client-go's:
// the same calls must give the same results.

// checker is the method set of client-go's and the runtime's DoneChecker.
type checker interface {
	Name() string
	Done() <-chan struct{}
}

func isDone(c checker) bool {
	select {
	case <-c.Done():
		return true
	default:
		return false
	}
}

// waitForImpl is one implementation of WaitFor.
type waitForImpl struct {
	name    string
	waitFor func(ctx context.Context, what string, cs ...checker) bool
}

var waitForImpls = []waitForImpl{
	{"client-go", func(ctx context.Context, what string, cs ...checker) bool {
		var dcs []toolscache.DoneChecker
		for _, c := range cs {
			dcs = append(dcs, c)
		}
		return toolscache.WaitFor(ctx, what, dcs...)
	}},
	{"runtime/cache", func(ctx context.Context, what string, cs ...checker) bool {
		var dcs []cache.DoneChecker
		for _, c := range cs {
			dcs = append(dcs, c)
		}
		return cache.WaitFor(ctx, what, dcs...)
	}},
}

type chanChecker struct {
	name string
	ch   chan struct{}
}

func (c *chanChecker) Name() string          { return c.name }
func (c *chanChecker) Done() <-chan struct{} { return c.ch }

// TestWaitForMatchesClientGo runs the same WaitFor calls through
// client-go's and the runtime's and compares results and log lines (the
// "Done waiting" lines as a set: their order is that of completion, which
// select picks among ready channels).
func TestWaitForMatchesClientGo(t *testing.T) {
	cause := errors.New("shutting down")
	for _, tc := range []struct {
		name      string
		what      string
		done      []bool // per checker: done at the start
		complete  bool   // the others complete while WaitFor waits
		cancelled bool
		noCtx     bool // context.Background: no logger, never done
	}{
		{name: "no checkers", what: "caches"},
		{name: "no checkers, cancelled", what: "caches", cancelled: true},
		{name: "no checkers, background", noCtx: true},
		{name: "all done, cancelled", what: "caches", done: []bool{true, true}, cancelled: true},
		{name: "some pending, cancelled", what: "caches", done: []bool{false, true, false}, cancelled: true},
		{name: "complete while waiting", what: "caches", done: []bool{false, true, false}, complete: true},
		{name: "complete while waiting, background", done: []bool{false}, complete: true, noCtx: true},
		{name: "silent without what", done: []bool{false, true}, cancelled: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			results := map[string]string{}
			for _, im := range waitForImpls {
				logger := ktesting.NewLogger(t, ktesting.NewConfig(ktesting.BufferLogs(true)))
				ctx, cancel := context.WithCancelCause(klog.NewContext(context.Background(), logger))
				if tc.noCtx {
					ctx = context.Background()
				}
				var cs []checker
				var pending []*chanChecker
				for i, d := range tc.done {
					c := &chanChecker{name: fmt.Sprintf("c%d", i), ch: make(chan struct{})}
					if d {
						close(c.ch)
					} else {
						pending = append(pending, c)
					}
					cs = append(cs, c)
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
				got := im.waitFor(ctx, tc.what, cs...)
				cancel(nil)
				var lines []string
				for _, e := range logger.GetSink().(ktesting.Underlier).GetBuffer().Data() {
					lines = append(lines, fmt.Sprint(e.Type, " ", e.Message, " ", e.ParameterKVList))
				}
				if len(lines) > 1 {
					slices.Sort(lines[1:]) // the first is "Waiting"
				}
				results[im.name] = fmt.Sprintf("result=%v\n%s", got, strings.Join(lines, "\n"))
			}
			if results["client-go"] != results["runtime/cache"] {
				t.Fatalf("client-go:\n%s\nruntime/cache:\n%s", results["client-go"], results["runtime/cache"])
			}
		})
	}
}

// checkerSubject is an informer under test, reduced to the sync-wait
// calls: client-go's, the runtime's typed one, or the clientgo facade.
type checkerSubject struct {
	run       func(ctx context.Context)
	hasSynced func() bool
	checker   func() checker
	// add registers a handler whose initial adds each send on entered and
	// then wait for gate.
	add    func(entered chan<- string, gate <-chan struct{}) (checkerReg, error)
	remove func(checkerReg) error
}

type checkerReg struct {
	raw       any
	hasSynced func() bool
	checker   func() checker
}

// gatedAdd is the shared OnAdd of the gated handlers.
func gatedAdd(entered chan<- string, gate <-chan struct{}, name string, initial bool) {
	if initial {
		entered <- name
		<-gate
	}
}

func clientGoSubject(newInf newInformerFunc) func(lw *scriptedLW) checkerSubject {
	return func(lw *scriptedLW) checkerSubject {
		inf := newInf(lw, &corev1.Pod{}, 0, toolscache.Indexers{})
		return checkerSubject{
			run:       inf.RunWithContext,
			hasSynced: inf.HasSynced,
			checker:   func() checker { return inf.HasSyncedChecker() },
			add: func(entered chan<- string, gate <-chan struct{}) (checkerReg, error) {
				r, err := inf.AddEventHandler(toolscache.ResourceEventHandlerDetailedFuncs{AddFunc: func(obj any, initial bool) {
					gatedAdd(entered, gate, obj.(*corev1.Pod).Name, initial)
				}})
				if err != nil {
					return checkerReg{}, err
				}
				return checkerReg{raw: r, hasSynced: r.HasSynced, checker: func() checker { return r.HasSyncedChecker() }}, nil
			},
			remove: func(r checkerReg) error {
				return inf.RemoveEventHandler(r.raw.(toolscache.ResourceEventHandlerRegistration))
			},
		}
	}
}

// runtimeSubject is the runtime's typed informer over the same
// ListerWatcher.
func runtimeSubject(lw *scriptedLW) checkerSubject {
	rlw := &cache.ListWatch{
		ListFunc:  func(_ context.Context, o metav1.ListOptions) (runtime.Object, error) { return lw.List(o) },
		WatchFunc: func(_ context.Context, o metav1.ListOptions) (watch.Interface, error) { return lw.Watch(o) },
	}
	inf := cache.NewSharedIndexInformerWithOptions[*corev1.Pod](rlw, cache.SharedIndexInformerOptions[*corev1.Pod]{
		Name: "pods", Reflector: cache.ReflectorOptions{DisableWatchList: true},
	})
	return checkerSubject{
		run:       inf.Run,
		hasSynced: inf.HasSynced,
		checker:   func() checker { return inf.HasSyncedChecker() },
		add: func(entered chan<- string, gate <-chan struct{}) (checkerReg, error) {
			r, err := inf.AddEventHandler(cache.ResourceEventHandlerDetailedFuncs[*corev1.Pod]{AddFunc: func(p *corev1.Pod, initial bool) {
				gatedAdd(entered, gate, p.Name, initial)
			}})
			if err != nil {
				return checkerReg{}, err
			}
			return checkerReg{raw: r, hasSynced: r.HasSynced, checker: func() checker { return r.HasSyncedChecker() }}, nil
		},
		remove: func(r checkerReg) error {
			return inf.RemoveEventHandler(r.raw.(cache.ResourceEventHandlerRegistration))
		},
	}
}

// checkerScenario steps an informer through its initial sync with gated
// handlers and records, at each step, HasSynced and whether the matching
// checker is done, read in the order that catches a checker running ahead of
// HasSynced (checker first) or behind it (HasSynced first).
func checkerScenario(t *testing.T, newSubject func(*scriptedLW) checkerSubject) []string {
	lw := &scriptedLW{
		lists:   []runtime.Object{podList("10", pod("a", "p1", "1", "1"), pod("a", "p2", "2", "1"), pod("a", "p3", "3", "1"))},
		watches: make(chan *watch.RaceFreeFakeWatcher, 4),
	}
	s := newSubject(lw)
	var out []string
	state := func(step string, hasSynced func() bool, c checker) {
		doneFirst := isDone(c)
		synced := hasSynced()
		doneAfter := isDone(c)
		if doneFirst && !synced {
			t.Errorf("%s: checker done before HasSynced", step)
		}
		if synced && !doneAfter {
			t.Errorf("%s: HasSynced true, checker not done", step)
		}
		out = append(out, fmt.Sprintf("%s: synced=%v done=%v", step, synced, doneAfter))
	}
	waitDone := func(step string, c checker) {
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		defer cancel()
		select {
		case <-c.Done():
		case <-ctx.Done():
			t.Fatalf("%s: checker not done", step)
		}
	}
	cancelled, cancel := context.WithCancel(t.Context())
	cancel()

	entered1, gate1 := make(chan string, 10), make(chan struct{})
	entered2, gate2 := make(chan string, 10), make(chan struct{})
	reg1, err := s.add(entered1, gate1)
	if err != nil {
		t.Fatal(err)
	}
	reg2, err := s.add(entered2, gate2)
	if err != nil {
		t.Fatal(err)
	}
	state("informer before Run", s.hasSynced, s.checker())
	state("handler before Run", reg1.hasSynced, reg1.checker())

	ctx, stop := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { defer close(done); s.run(ctx) }()
	defer func() { stop(); <-done }()

	waitDone("informer", s.checker())
	state("informer synced", s.hasSynced, s.checker())
	out = append(out, "handler 1 in initial add of "+<-entered1)
	state("handler 1 in its first initial add", reg1.hasSynced, reg1.checker())
	out = append(out, "handler 2 in initial add of "+<-entered2)
	if err := s.remove(reg2); err != nil {
		t.Fatal(err)
	}
	close(gate2)
	state("handler 2 removed during its initial adds", reg2.hasSynced, reg2.checker())

	close(gate1)
	waitDone("handler 1", reg1.checker())
	state("handler 1 after its initial adds", reg1.hasSynced, reg1.checker())

	entered3, gate3 := make(chan string, 10), make(chan struct{})
	close(gate3)
	reg3, err := s.add(entered3, gate3)
	if err != nil {
		t.Fatal(err)
	}
	waitDone("late handler", reg3.checker())
	state("late handler after its initial adds", reg3.hasSynced, reg3.checker())
	out = append(out, fmt.Sprintf("late handler initial adds: %d", len(entered3)))

	for _, im := range waitForImpls {
		out = append(out, fmt.Sprintf("%s WaitFor(cancelled, informer, handler 1, late) = %v", im.name,
			im.waitFor(cancelled, "", s.checker(), reg1.checker(), reg3.checker())))
		out = append(out, fmt.Sprintf("%s WaitFor(cancelled, removed handler 2) = %v", im.name,
			im.waitFor(cancelled, "", reg2.checker())))
	}
	state("handler 2 after all", reg2.hasSynced, reg2.checker())
	return out
}

// TestHasSyncedCheckersMatchClientGo runs checkerScenario against
// client-go's informer, the runtime's typed informer and the clientgo
// facade, and compares the transcripts.
func TestHasSyncedCheckersMatchClientGo(t *testing.T) {
	subjects := []struct {
		name string
		new  func(*scriptedLW) checkerSubject
	}{
		{"client-go", clientGoSubject(toolscache.NewSharedIndexInformer)},
		{"runtime/cache", runtimeSubject},
		{"clientgo", clientGoSubject(clientgo.NewSharedIndexInformer)},
	}
	var want []string
	for _, s := range subjects {
		got := checkerScenario(t, s.new)
		if want == nil {
			want = got
			continue
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s differs from client-go:\n got %s\nwant %s", s.name, strings.Join(got, "\n     "), strings.Join(want, "\n     "))
		}
	}
}
