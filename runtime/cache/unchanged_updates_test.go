package cache_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/typedinformer/typedinformer/internal/testutil"
	"github.com/typedinformer/typedinformer/runtime/cache"
)

// An unchanged-update step drives the informer of TestInformerUnchangedUpdates.
type uuStep struct {
	// op is one of
	//   "same K"     a MODIFIED event of Pod a/K with its current RV
	//   "readd K"    an ADDED event of Pod a/K (already cached), current RV
	//   "change K"   a MODIFIED event of a/K with a new RV
	//   "check"      the fake clock moves 1s: the resync loop's timer fires
	//   "add H P"    handler H registers with resync period P (a duration)
	//   "run"        the informer starts (handlers added before are
	//                registered before Run) and syncs
	//   "remove H"   handler H is removed
	op string
	// want lists, per live handler, the OnUpdate calls of namespace "a" it
	// gets during this step, sorted ("update a/p1@1->1"); a handler left
	// out gets none.
	want map[string][]string
}

// TestInformerUnchangedUpdates checks client-go v0.37's per-listener rule for
// updates whose resourceVersion did not change: every handler starts
// "syncing" and gets them; each resync check sets every handler's flag to
// whether its own resync period is due then; the flag holds until the next
// check; checks never stop once started. Handlers are "z" (period 0), "o"
// (1s) and late ones; periods are given per case.
func TestInformerUnchangedUpdates(t *testing.T) {
	cases := []struct {
		name string
		// defaultPeriod is the informer's ResyncPeriod.
		defaultPeriod time.Duration
		// skip is SharedIndexInformerOptions.SkipUnchangedUpdates.
		skip  bool
		steps []uuStep
	}{{
		// A fake clientset's updates all carry resourceVersion "": with
		// no resync period anywhere, no check ever runs and they all
		// arrive.
		name: "handler at 0 alone gets every unchanged update",
		steps: []uuStep{
			{op: "add z 0s"},
			{op: "run"},
			{op: "same p1", want: map[string][]string{"z": {"update a/p1@1->1"}}},
			{op: "readd p2", want: map[string][]string{"z": {"update a/p2@1->1"}}},
			{op: "change p1", want: map[string][]string{"z": {"update a/p1@1->2"}}},
			{op: "same p1", want: map[string][]string{"z": {"update a/p1@2->2"}}},
		},
	}, {
		name: "handler at 0 beside one at 1s: syncing until the first check",
		steps: []uuStep{
			{op: "add z 0s"},
			{op: "add o 1s"},
			{op: "run"},
			{op: "same p1", want: map[string][]string{"z": {"update a/p1@1->1"}, "o": {"update a/p1@1->1"}}},
			// o is due: its flag is set and it gets the resync; z's is
			// cleared.
			{op: "check", want: map[string][]string{"o": {"update a/p1@1->1", "update a/p2@1->1"}}},
			{op: "same p1", want: map[string][]string{"o": {"update a/p1@1->1"}}},
			{op: "readd p2", want: map[string][]string{"o": {"update a/p2@1->1"}}},
			{op: "change p2", want: map[string][]string{"z": {"update a/p2@1->2"}, "o": {"update a/p2@1->2"}}},
			{op: "check", want: map[string][]string{"o": {"update a/p1@1->1", "update a/p2@2->2"}}},
			{op: "same p2", want: map[string][]string{"o": {"update a/p2@2->2"}}},
		},
	}, {
		name: "handler added after a check starts syncing until the next one",
		steps: []uuStep{
			{op: "add z 0s"},
			{op: "add o 1s"},
			{op: "run"},
			{op: "check", want: map[string][]string{"o": {"update a/p1@1->1", "update a/p2@1->1"}}},
			{op: "add late 0s"},
			{op: "same p1", want: map[string][]string{"o": {"update a/p1@1->1"}, "late": {"update a/p1@1->1"}}},
			{op: "check", want: map[string][]string{"o": {"update a/p1@1->1", "update a/p2@1->1"}}},
			{op: "same p1", want: map[string][]string{"o": {"update a/p1@1->1"}}},
			// A late handler with a period starts syncing too, and
			// its period counts from when it joined.
			{op: "add late1 1s"},
			{op: "same p2", want: map[string][]string{"o": {"update a/p2@1->1"}, "late1": {"update a/p2@1->1"}}},
			{op: "check", want: map[string][]string{"o": {"update a/p1@1->1", "update a/p2@1->1"}, "late1": {"update a/p1@1->1", "update a/p2@1->1"}}},
			{op: "same p2", want: map[string][]string{"o": {"update a/p2@1->1"}, "late1": {"update a/p2@1->1"}}},
		},
	}, {
		name: "removing a handler changes no flag and does not stop the checks",
		steps: []uuStep{
			{op: "add z 0s"},
			{op: "add o 1s"},
			{op: "run"},
			{op: "remove o"},
			{op: "same p1", want: map[string][]string{"z": {"update a/p1@1->1"}}},
			{op: "check"},
			{op: "same p1"},
			{op: "add late 0s"},
			{op: "same p1", want: map[string][]string{"late": {"update a/p1@1->1"}}},
			{op: "check"},
			{op: "same p1"},
			{op: "change p1", want: map[string][]string{"z": {"update a/p1@1->2"}, "late": {"update a/p1@1->2"}}},
		},
	}, {
		// client-go's usual set-up: a factory with a default period and
		// a handler registered with 0. The default alone makes checks
		// run.
		name:          "informer default 1s, handler at 0",
		defaultPeriod: time.Second,
		steps: []uuStep{
			{op: "add z 0s"},
			{op: "run"},
			{op: "same p1", want: map[string][]string{"z": {"update a/p1@1->1"}}},
			{op: "check"},
			{op: "same p1"},
			{op: "change p1", want: map[string][]string{"z": {"update a/p1@1->2"}}},
		},
	}, {
		name: "SkipUnchangedUpdates: handlers start not syncing",
		skip: true,
		steps: []uuStep{
			{op: "add z 0s"},
			{op: "add o 1s"},
			{op: "run"},
			{op: "same p1"},
			{op: "check", want: map[string][]string{"o": {"update a/p1@1->1", "update a/p2@1->1"}}},
			{op: "same p1", want: map[string][]string{"o": {"update a/p1@1->1"}}},
			{op: "change p1", want: map[string][]string{"z": {"update a/p1@1->2"}, "o": {"update a/p1@1->2"}}},
		},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := newUUDriver(t, tc.defaultPeriod, tc.skip)
			for i, s := range tc.steps {
				d.step(t, i, s)
			}
		})
	}
}

// uuDriver runs one case of TestInformerUnchangedUpdates: an informer on a
// fake clock over a list of Pods a/p1 and a/p2 (resourceVersion 1) and a
// watch the driver writes to.
type uuDriver struct {
	clk     *testingclock.FakeClock
	w       *watch.FakeWatcher
	inf     cache.SharedIndexInformer[*corev1.Pod]
	started bool
	// periodic: the informer or a handler registered before Run has a
	// resync period, so the resync loop arms a timer once it runs.
	periodic bool
	rv       int
	current  map[string]*corev1.Pod
	handlers map[string]*recorder
	regs     map[string]cache.ResourceEventHandlerRegistration
	markers  int
	t        *testing.T
}

func newUUDriver(t *testing.T, defaultPeriod time.Duration, skip bool) *uuDriver {
	d := &uuDriver{
		clk:      testingclock.NewFakeClock(time.Now()),
		w:        watch.NewFakeWithChanSize(100, false),
		rv:       1,
		current:  map[string]*corev1.Pod{},
		handlers: map[string]*recorder{},
		regs:     map[string]cache.ResourceEventHandlerRegistration{},
		t:        t,
		periodic: defaultPeriod > 0,
	}
	list := &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "1"}}
	for _, n := range []string{"p1", "p2"} {
		p := testutil.Pod("a", n, testutil.RV("1"))
		d.current[n] = p
		list.Items = append(list.Items, *p)
	}
	d.inf = cache.NewSharedIndexInformerWithOptions[*corev1.Pod](&testutil.StaticLW{Items: list, Events: d.w}, cache.SharedIndexInformerOptions[*corev1.Pod]{
		Name:                 "pods",
		ResyncPeriod:         defaultPeriod,
		SkipUnchangedUpdates: skip,
		Reflector:            cache.ReflectorOptions{DisableWatchList: true, Clock: d.clk},
	})
	return d
}

// step runs s and checks what each handler got meanwhile.
func (d *uuDriver) step(t *testing.T, i int, s uuStep) {
	t.Helper()
	before := map[string]int{}
	for n, h := range d.handlers {
		before[n] = h.Len()
	}
	f := strings.Fields(s.op)
	switch f[0] {
	case "add":
		period, err := time.ParseDuration(f[2])
		if err != nil {
			t.Fatal(err)
		}
		h := newRecorder()
		reg, err := d.inf.AddEventHandlerWithResyncPeriod(h, period)
		if err != nil {
			t.Fatal(err)
		}
		d.handlers[f[1]], d.regs[f[1]] = h, reg
		before[f[1]] = 0
		d.periodic = d.periodic || period > 0
	case "run":
		run(t, d.inf)
		waitSynced(t, d.inf)
		if d.periodic {
			// The loop has seen the periods: removing a handler
			// from now on cannot keep the checks from starting.
			eventually(t, "the resync loop's timer", d.clk.HasWaiters)
		}
		d.started = true
	case "remove":
		if err := d.inf.RemoveEventHandler(d.regs[f[1]]); err != nil {
			t.Fatal(err)
		}
		delete(d.handlers, f[1])
	case "same":
		d.w.Modify(d.current[f[1]].DeepCopy())
	case "readd":
		d.w.Add(d.current[f[1]].DeepCopy())
	case "change":
		d.rv++
		p := d.current[f[1]].DeepCopy()
		p.ResourceVersion = fmt.Sprint(d.rv)
		d.current[f[1]] = p
		d.w.Modify(p.DeepCopy())
	case "check":
		// Only the resync loop waits on the fake clock. Once it waits
		// again after the step, its check has run and the resync (if
		// any) is queued before the barrier's marker.
		eventually(t, "the resync loop's timer", d.clk.HasWaiters)
		d.clk.Step(time.Second)
		eventually(t, "the resync loop's next timer", d.clk.HasWaiters)
	default:
		t.Fatalf("step %d: unknown op %q", i, s.op)
	}
	if d.started {
		d.barrier()
	}
	for n, h := range d.handlers {
		var got []string
		for _, e := range h.Events()[before[n]:] {
			if strings.HasPrefix(e, "update a/") {
				got = append(got, e)
			}
		}
		slices.Sort(got)
		if want := s.want[n]; !slices.Equal(got, want) {
			t.Errorf("step %d %q: handler %s got %q, want %q", i, s.op, n, got, want)
		}
		noViolations(t, h)
	}
	for n := range s.want {
		if _, ok := d.handlers[n]; !ok {
			t.Fatalf("step %d: want names handler %s, which is not registered", i, n)
		}
	}
}

// barrier sends a new marker Pod and waits until every handler has it: it
// has then been handed, or skipped, everything queued before.
func (d *uuDriver) barrier() {
	d.t.Helper()
	d.markers++
	// Markers have resourceVersions of their own, above the Pods' (the
	// reflector does not compare them), so that the steps' RVs read 1, 2...
	m := testutil.Pod(markerNS, fmt.Sprintf("m%d", d.markers), testutil.RV(fmt.Sprint(1000+d.markers)))
	d.w.Add(m)
	for n, h := range d.handlers {
		eventually(d.t, "handler "+n+" to get marker "+key(m), func() bool { return h.Holds(key(m), m.ResourceVersion) })
	}
}
