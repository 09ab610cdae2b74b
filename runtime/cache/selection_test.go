package cache_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/typedinformer/typedinformer/runtime/cache"
	"github.com/typedinformer/typedinformer/runtime/fake"
)

var _ cache.SelectableInformer = cache.NewSharedIndexInformer[*corev1.Pod](nil, 0, nil).(cache.SelectableInformer)

// sel is one selection of the churn test: selectors and their client-side
// meaning, to check the store against.
type sel struct{ label, field string }

func (s sel) matches(p *corev1.Pod) bool {
	ls, _ := labels.Parse(s.label)
	fs, _ := fields.ParseSelector(s.field)
	return ls.Matches(labels.Set(p.Labels)) && fs.Matches(fields.Set{"metadata.name": p.Name, "metadata.namespace": p.Namespace})
}

func (s sel) String() string { return fmt.Sprintf("{%q %q}", s.label, s.field) }

// churnGroups are the values of the "group" label churned objects move
// between; stable objects, one per group and namespace, never change.
var churnGroups = []string{"a", "b", "c", "d"}

func stablePods() []*corev1.Pod {
	var out []*corev1.Pod
	for _, ns := range []string{"ns1", "ns2"} {
		for _, g := range churnGroups {
			out = append(out, newPod(ns, "stable-"+g, "group", g))
		}
	}
	return out
}

// TestSelectorChangeUnderChurn changes a running informer's selectors again
// and again while objects are created, relabelled (moving between
// selections) and deleted, and checks:
//   - at every sample of the store during a change, the store holds
//     exactly one of the two selections' stable objects (never an empty
//     store, never both) and no object outside old ∪ new, and never
//     objects only the old one selects beside ones only the new selects;
//   - once the churn pauses, the store is the server's objects the
//     selection selects, and a recording handler's view (built from its
//     calls alone) equals it;
//   - the handler's transcript never contradicts itself: no add of a key it
//     holds, no update or delete of one it does not, no update whose old
//     object is not the last one delivered, no resourceVersion going back.
func TestSelectorChangeUnderChurn(t *testing.T) {
	steps := []sel{
		{"group in (a,b)", ""},
		{"group in (b,c)", ""},
		{"group=d", "metadata.namespace=ns1"},
		{"group in (a,b,c,d)", "metadata.namespace=ns2"},
		{"group notin (a)", ""},
		{"group in (a,c)", "metadata.namespace!=ns1"},
		{"group in (b,d)", ""},
		{"group", ""},
	}
	for _, tc := range []struct {
		name string
		refl cache.ReflectorOptions
	}{
		{"list", fastReflector()},
		{"watchlist", watchListReflector()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := fake.NewServer[*corev1.Pod]()
			for _, p := range stablePods() {
				create(t, srv, p)
			}
			inf := podInformer(srv, cache.SharedIndexInformerOptions[*corev1.Pod]{
				Reflector: tc.refl, LabelSelector: steps[0].label, FieldSelector: steps[0].field,
			})
			rec := newRecorder()
			if _, err := inf.AddEventHandler(rec); err != nil {
				t.Fatal(err)
			}
			exits := &exitLog{}
			if _, err := inf.AddEventHandler(exits); err != nil {
				t.Fatal(err)
			}
			run(t, inf)
			waitSynced(t, inf)
			si := inf.(cache.SelectableInformer)
			eventually(t, "the initial adds", func() bool { return exits.size() == len(filterPods(stablePods(), steps[0])) })
			exits.mu.Lock()
			exits.log = nil
			exits.mu.Unlock()

			var churning sync.Mutex // held by the test while churn pauses
			stopChurn := make(chan struct{})
			var churnErr atomic.Value
			var wg sync.WaitGroup
			wg.Go(func() { churn(srv, &churning, stopChurn, &churnErr) })
			paused := false
			defer func() {
				close(stopChurn)
				if paused {
					churning.Unlock()
				}
				wg.Wait()
			}()

			prev := steps[0]
			for i := 1; i < 3*len(steps); i++ {
				next := steps[i%len(steps)]
				var bad atomic.Value
				samplerDone := make(chan struct{})
				stopSampling := make(chan struct{})
				go func() {
					defer close(samplerDone)
					for {
						select {
						case <-stopSampling:
							return
						default:
						}
						if err := checkSample(inf.GetStore().List(), prev, next); err != nil {
							bad.CompareAndSwap(nil, err)
						}
						time.Sleep(50 * time.Microsecond)
					}
				}()
				if err := si.SetSelectors(next.label, next.field); err != nil {
					t.Fatal(err)
				}
				eventually(t, "the new selection listed", si.ListedSelection)
				churning.Lock()
				paused = true
				eventually(t, fmt.Sprintf("step %d: the store holding %v's objects", i, next), func() bool {
					return storeString(inf.GetStore().List()) == storeString(filterPods(srv.Objects(), next))
				})
				close(stopSampling)
				<-samplerDone
				if err, _ := bad.Load().(error); err != nil {
					t.Fatalf("step %d (%v -> %v): %v", i, prev, next, err)
				}
				eventually(t, fmt.Sprintf("step %d: the handler's view equal to the store", i), func() bool {
					return viewString(rec) == storeString(inf.GetStore().List()) && exits.size() == exits.want(prev, next)
				})
				if err := exits.check(prev, next); err != nil {
					t.Fatalf("step %d (%v -> %v): %v", i, prev, next, err)
				}
				if v := rec.Violations(); len(v) > 0 {
					t.Fatalf("step %d: handler transcript contradicts itself: %v", i, v)
				}
				churning.Unlock()
				paused = false
				prev = next
			}
			if err, _ := churnErr.Load().(error); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// exitLog records the stable objects' adds, deletes and scope exits
// (implementing cache.ScopeExitHandler).
type exitLog struct {
	mu  sync.Mutex
	log []string
}

func (e *exitLog) note(what string, p *corev1.Pod) {
	if strings.HasPrefix(p.Name, "stable-") {
		e.mu.Lock()
		e.log = append(e.log, what+" "+key(p))
		e.mu.Unlock()
	}
}

func (e *exitLog) OnAdd(p *corev1.Pod, _ bool)    { e.note("add", p) }
func (e *exitLog) OnUpdate(_, _ *corev1.Pod)      {}
func (e *exitLog) OnDelete(p *corev1.Pod, _ bool) { e.note("delete", p) }
func (e *exitLog) OnScopeExit(p *corev1.Pod)      { e.note("exit", p) }
func (e *exitLog) size() int                      { e.mu.Lock(); defer e.mu.Unlock(); return len(e.log) }
func (e *exitLog) want(old, cur sel) (n int) {
	for _, p := range stablePods() {
		if old.matches(p) != cur.matches(p) {
			n++
		}
	}
	return n
}

// check takes the step's log: each stable object the old selection
// selects and the new does not left as a scope exit, each the new selects
// and the old did not was added, both once, and nothing else.
func (e *exitLog) check(old, cur sel) error {
	e.mu.Lock()
	got := e.log
	e.log = nil
	e.mu.Unlock()
	var want []string
	for _, p := range stablePods() {
		switch o, n := old.matches(p), cur.matches(p); {
		case o && !n:
			want = append(want, "exit "+key(p))
		case n && !o:
			want = append(want, "add "+key(p))
		}
	}
	slices.Sort(want)
	sorted := slices.Sorted(slices.Values(got))
	if !slices.Equal(sorted, want) {
		return fmt.Errorf("stable objects' notifications %v, want %v in some order", got, want)
	}
	// Exits come before adds: the relist's removals are told first.
	lastExit, firstAdd := -1, len(got)
	for i, l := range got {
		if strings.HasPrefix(l, "exit ") {
			lastExit = i
		} else if firstAdd == len(got) {
			firstAdd = i
		}
	}
	if lastExit > firstAdd {
		return fmt.Errorf("an add came before an exit: %v", got)
	}
	return nil
}

// checkSample checks one snapshot of the store taken while the selection
// changes from old to new.
func checkSample(objs []*corev1.Pod, old, cur sel) error {
	held := map[string]bool{}
	var onlyOld, onlyNew string
	for _, p := range objs {
		held[key(p)] = true
		o, n := old.matches(p), cur.matches(p)
		switch {
		case !o && !n:
			return fmt.Errorf("store holds %s (labels %v), selected by neither selection", key(p), p.Labels)
		case o && !n:
			onlyOld = key(p)
		case n && !o:
			onlyNew = key(p)
		}
	}
	if onlyOld != "" && onlyNew != "" {
		return fmt.Errorf("store holds both selections: %s of the old only, %s of the cur only", onlyOld, onlyNew)
	}
	all := func(s sel) bool {
		for _, p := range stablePods() {
			if s.matches(p) && !held[key(p)] {
				return false
			}
		}
		return true
	}
	if !all(old) && !all(cur) {
		return fmt.Errorf("store holds neither selection's stable objects: %s", storeString(objs))
	}
	return nil
}

func filterPods(objs []*corev1.Pod, s sel) []*corev1.Pod {
	var out []*corev1.Pod
	for _, p := range objs {
		if s.matches(p) {
			out = append(out, p)
		}
	}
	return out
}

func viewString(rec *recorder) string {
	v := rec.View()
	objs := make([]*corev1.Pod, 0, len(v))
	for _, p := range v {
		objs = append(objs, p)
	}
	return storeString(objs)
}

// churn creates, relabels and deletes objects "churn-N" until stop closes,
// holding mu around each write so that the test can pause it.
func churn(srv *fake.Server[*corev1.Pod], mu *sync.Mutex, stop <-chan struct{}, errOut *atomic.Value) {
	rng := rand.New(rand.NewPCG(1, 2))
	var live []string
	for n := 0; ; n++ {
		select {
		case <-stop:
			return
		default:
		}
		mu.Lock()
		var err error
		ns := []string{"ns1", "ns2"}[rng.IntN(2)]
		g := churnGroups[rng.IntN(len(churnGroups))]
		switch op := rng.IntN(10); {
		case len(live) < 5 || (op < 4 && len(live) < 40):
			name := fmt.Sprintf("churn-%d", n)
			_, err = srv.Create(newPod(ns, name, "group", g))
			if err == nil {
				live = append(live, ns+"/"+name)
			}
		case op < 8:
			k := live[rng.IntN(len(live))]
			ns, name, _ := strings.Cut(k, "/")
			var p *corev1.Pod
			if p, err = srv.Get(ns, name); err == nil {
				p = p.DeepCopy()
				p.Labels = map[string]string{"group": g}
				_, err = srv.Update(p)
			}
		default:
			i := rng.IntN(len(live))
			ns, name, _ := strings.Cut(live[i], "/")
			err = srv.Delete(ns, name)
			live = slices.Delete(live, i, i+1)
		}
		mu.Unlock()
		time.Sleep(100 * time.Microsecond)
		if err != nil {
			errOut.CompareAndSwap(nil, fmt.Errorf("churn: %w", err))
			return
		}
	}
}

// TestSelectorBadInput: a selector change that cannot be made is an error
// naming the informer and the selector, and the informer keeps serving its
// selection and its cache.
func TestSelectorBadInput(t *testing.T) {
	srv := fake.NewServer[*corev1.Pod]()
	for _, p := range stablePods() {
		create(t, srv, p)
	}
	want := sel{"group in (a,b)", ""}
	newInf := func() cache.SharedIndexInformer[*corev1.Pod] {
		return podInformer(srv, cache.SharedIndexInformerOptions[*corev1.Pod]{Reflector: fastReflector(), LabelSelector: want.label})
	}
	running := newInf()
	run(t, running)
	waitSynced(t, running)
	stopped := newInf()
	stop := run(t, stopped)
	waitSynced(t, stopped)
	stop()
	notStarted := newInf()

	for _, tc := range []struct {
		name          string
		inf           cache.SharedIndexInformer[*corev1.Pod]
		label, field  string
		wantIs        error
		wantInMessage []string
		wantStore     bool // the informer had synced: its cache must be intact
	}{
		{"label selector does not parse", running, "group in (a", "", nil, []string{"informer pods", `label selector "group in (a"`}, true},
		{"field selector does not parse", running, "", "metadata.name", nil, []string{"informer pods", `field selector "metadata.name"`}, true},
		{"stopped informer", stopped, "group=c", "", cache.ErrNotRunning, []string{"informer pods", `"group=c"`, "not running"}, true},
		{"informer not started", notStarted, "group=c", "", cache.ErrNotRunning, []string{"informer pods", "not running"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := storeString(tc.inf.GetStore().List())
			err := tc.inf.(cache.SelectableInformer).SetSelectors(tc.label, tc.field)
			if err == nil {
				t.Fatal("SetSelectors succeeded")
			}
			if tc.wantIs != nil && !errors.Is(err, tc.wantIs) {
				t.Errorf("error %v is not %v", err, tc.wantIs)
			}
			for _, s := range tc.wantInMessage {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not contain %q", err, s)
				}
			}
			if l, f := tc.inf.(cache.SelectableInformer).Selectors(); l != want.label || f != want.field {
				t.Errorf("selectors now %q %q, want the old %v", l, f, want)
			}
			if got := storeString(tc.inf.GetStore().List()); got != before {
				t.Errorf("store changed from %s to %s", before, got)
			}
			if tc.wantStore {
				if got, w := storeString(tc.inf.GetStore().List()), storeString(filterPods(srv.Objects(), want)); got != w {
					t.Errorf("store %s, want the old selection's %s", got, w)
				}
			}
		})
	}
	// The running informer still follows its selection.
	create(t, srv, newPod("ns1", "late", "group", "a"))
	waitStore(t, running, storeString(filterPods(srv.Objects(), want)))

	// A selector that does not parse given at construction stops the
	// informer from running, naming it.
	broken := podInformer(srv, cache.SharedIndexInformerOptions[*corev1.Pod]{LabelSelector: "a in ("})
	if err := broken.LastError(); err == nil || !strings.Contains(err.Error(), `label selector "a in ("`) {
		t.Errorf("LastError of an informer built with a bad selector = %v", err)
	}
	if err := running.(cache.SelectableInformer).SetInitialSelectors("group=a", ""); err == nil {
		t.Error("SetInitialSelectors succeeded on a running informer")
	}
}

// tweakLW applies a Selection to every call at call time, as a generated
// informer's ListWatch applies its factory's TweakListOptionsFunc, and
// calls beforeWatch once, before the first watch reads the selection.
type tweakLW struct {
	cache.ListerWatcher
	sel         *cache.Selection
	once        sync.Once
	beforeWatch func()
}

func (h *tweakLW) List(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	h.sel.ApplyTo(&opts)
	return h.ListerWatcher.List(ctx, opts)
}

func (h *tweakLW) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	first := false
	h.once.Do(func() { h.beforeWatch(); first = true })
	h.sel.ApplyTo(&opts)
	w, err := h.ListerWatcher.Watch(ctx, opts)
	if err != nil || !first {
		return w, err
	}
	// Hand the watch over with its first event ready, so that the
	// informer finds it as ready as the selection's change.
	ev, ok := <-w.ResultChan()
	if !ok {
		return w, nil
	}
	r := &readyWatch{Interface: w, ch: make(chan watch.Event, 1), stop: make(chan struct{})}
	r.ch <- ev
	r.wg.Go(func() {
		defer close(r.ch)
		for e := range w.ResultChan() {
			select {
			case r.ch <- e:
			case <-r.stop:
				return
			}
		}
	})
	return r, nil
}

// readyWatch is a watch whose events come from ch, fed from the wrapped
// watch until Stop.
type readyWatch struct {
	watch.Interface
	ch   chan watch.Event
	stop chan struct{}
	once sync.Once
	wg   sync.WaitGroup
}

func (r *readyWatch) Stop() {
	r.once.Do(func() { close(r.stop) })
	r.Interface.Stop()
	r.wg.Wait()
}

func (r *readyWatch) ResultChan() <-chan watch.Event { return r.ch }

// TestSelectorChangeBetweenListAndWatch changes a followed selection (a
// factory's, applied by the ListerWatcher) after the first list was stored
// and before its watch reads the selection, with an object of the new
// selection created in between: that watch is opened with the new value
// and delivers the object at once. It must not reach the store (or a
// handler) before the relist removed the old selection's objects. Each
// round has about an even chance to catch an informer that applies such
// an event, so it runs many rounds.
func TestSelectorChangeBetweenListAndWatch(t *testing.T) {
	for round := range 24 {
		srv := fake.NewServer[*corev1.Pod]()
		for _, p := range stablePods() {
			create(t, srv, p)
		}
		parent, err := cache.NewSelection(nil, "group=a", "")
		if err != nil {
			t.Fatal(err)
		}
		lw := &tweakLW{ListerWatcher: srv.ListerWatcher(""), sel: parent, beforeWatch: func() {
			create(t, srv, newPod("ns1", "late", "group", "b"))
			if err := parent.SetSelectors("group=b", ""); err != nil {
				t.Error(err)
			}
		}}
		inf := cache.NewSharedIndexInformerWithOptions[*corev1.Pod](lw, cache.SharedIndexInformerOptions[*corev1.Pod]{
			Name: "pods", Reflector: fastReflector(),
		})
		if err := inf.(cache.SelectableInformer).FollowSelection(parent); err != nil {
			t.Fatal(err)
		}
		var mu sync.Mutex
		var log []string
		h := cache.ResourceEventHandlerDetailedFuncs[*corev1.Pod]{
			AddFunc: func(p *corev1.Pod, _ bool) {
				mu.Lock()
				log = append(log, "add "+p.Labels["group"]+" "+key(p))
				mu.Unlock()
			},
			DeleteFunc: func(p *corev1.Pod, _ bool) {
				mu.Lock()
				log = append(log, "delete "+p.Labels["group"]+" "+key(p))
				mu.Unlock()
			},
		}
		if _, err := inf.AddEventHandler(h); err != nil {
			t.Fatal(err)
		}
		stop := run(t, inf)
		eventually(t, "the new selection's objects", func() bool {
			mu.Lock()
			defer mu.Unlock()
			return len(log) == 2+2+3 // 2 initial adds, 2 exits, 3 adds
		})
		stop()
		mu.Lock()
		seenB := ""
		for _, l := range log {
			if strings.HasPrefix(l, "add b ") && seenB == "" {
				seenB = l
			}
			if strings.HasPrefix(l, "delete a ") && seenB != "" {
				t.Fatalf("round %d: %q before %q: the new selection's event was applied before the relist: %v", round, seenB, l, log)
			}
		}
		mu.Unlock()
	}
}
