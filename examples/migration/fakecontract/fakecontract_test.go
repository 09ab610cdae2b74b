package fakecontract

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	clientgocache "k8s.io/client-go/tools/cache"

	samplesv1alpha1 "github.com/typedinformer/typedinformer/examples/crd/apis/samples/v1alpha1"
	"github.com/typedinformer/typedinformer/examples/crd/pkg/generated/clientset/versioned/fake"
	samplesclient "github.com/typedinformer/typedinformer/examples/crd/pkg/generated/clientset/versioned/typed/samples/v1alpha1"
	cgsamples "github.com/typedinformer/typedinformer/examples/migration/before/generated/informers/externalversions/samples/v1alpha1"
	"github.com/typedinformer/typedinformer/runtime/cache"
)

const ns = "default"

// informerSide is one of the two informers under comparison, reduced to
// what the test drives: registering and removing a Recorder with a resync
// period, running, and HasSynced.
type informerSide struct {
	name   string
	add    func(t *testing.T, r *Recorder, period time.Duration) (remove func())
	run    func(ctx context.Context)
	synced func() bool
}

// clientGoSide is client-go's informer as upstream informer-gen builds it
// for the fake clientset (examples/migration/before), with default resync
// period resync.
func clientGoSide(client *fake.Clientset, resync time.Duration) informerSide {
	inf := cgsamples.NewFooInformer(client, metav1.NamespaceAll, resync, clientgocache.Indexers{})
	return informerSide{
		name: "client-go",
		add: func(t *testing.T, r *Recorder, period time.Duration) func() {
			reg, err := inf.AddEventHandlerWithResyncPeriod(r.ClientGo(), period)
			if err != nil {
				t.Fatal(err)
			}
			return func() {
				if err := inf.RemoveEventHandler(reg); err != nil {
					t.Fatal(err)
				}
			}
		},
		run:    inf.RunWithContext,
		synced: inf.HasSynced,
	}
}

// ourSide is typedinformer's informer over a ListWatch calling the fake
// clientset, as generated informers build it (examples/migration/after),
// with default resync period resync.
func ourSide(client *fake.Clientset, resync time.Duration) informerSide {
	foos := client.SamplesV1alpha1().Foos(metav1.NamespaceAll)
	inf := cache.NewSharedIndexInformerWithOptions[*samplesv1alpha1.Foo](&cache.ListWatch{
		ListFunc: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			return foos.List(ctx, opts)
		},
		WatchFunc: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			return foos.Watch(ctx, opts)
		},
	}, cache.SharedIndexInformerOptions[*samplesv1alpha1.Foo]{Name: "foos", ResyncPeriod: resync})
	return informerSide{
		name: "typedinformer",
		add: func(t *testing.T, r *Recorder, period time.Duration) func() {
			reg, err := inf.AddEventHandlerWithResyncPeriod(r, period)
			if err != nil {
				t.Fatal(err)
			}
			return func() {
				if err := inf.RemoveEventHandler(reg); err != nil {
					t.Fatal(err)
				}
			}
		},
		run:    inf.Run,
		synced: inf.HasSynced,
	}
}

// harness runs both informers over one fake clientset inside a synctest
// bubble: time is the bubble's (a resync period elapses only when the test
// sleeps, at the same instant for both informers), and settle returns once
// every goroutine of both informers is blocked, i.e. each change has
// reached every handler it will reach.
type harness struct {
	t        *testing.T
	client   *fake.Clientset
	sides    []informerSide
	handlers map[string][]*Recorder // name → one Recorder per side
	removers map[string][]func()
	order    []string
}

func newHarness(t *testing.T, resync time.Duration) *harness {
	seed := &samplesv1alpha1.Foo{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "seed"},
		Spec:       samplesv1alpha1.FooSpec{Data: map[string]string{"v": "0"}},
	}
	client := fake.NewSimpleClientset(seed)
	return &harness{
		t:        t,
		client:   client,
		sides:    []informerSide{clientGoSide(client, resync), ourSide(client, resync)},
		handlers: map[string][]*Recorder{},
		removers: map[string][]func(){},
	}
}

// addHandler registers a new Recorder named name with resync period period
// on both informers.
func (h *harness) addHandler(name string, period time.Duration) {
	for _, s := range h.sides {
		r := &Recorder{}
		h.handlers[name] = append(h.handlers[name], r)
		h.removers[name] = append(h.removers[name], s.add(h.t, r, period))
	}
	h.order = append(h.order, name)
}

func (h *harness) removeHandler(name string) {
	for _, remove := range h.removers[name] {
		remove()
	}
}

// run starts both informers; they stop when the test's context ends, and
// the bubble waits for them.
func (h *harness) run() {
	ctx, cancel := context.WithCancel(h.t.Context())
	h.t.Cleanup(cancel)
	for _, s := range h.sides {
		go s.run(ctx)
	}
	synctest.Wait()
	for _, s := range h.sides {
		if !s.synced() {
			h.t.Fatalf("%s informer has not synced once every goroutine is blocked", s.name)
		}
	}
}

func (h *harness) foos() samplesclient.FooInterface {
	return h.client.SamplesV1alpha1().Foos(ns)
}

func (h *harness) create(name, v string) {
	h.t.Helper()
	f := &samplesv1alpha1.Foo{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec:       samplesv1alpha1.FooSpec{Data: map[string]string{"v": v}},
	}
	if _, err := h.foos().Create(h.t.Context(), f, metav1.CreateOptions{}); err != nil {
		h.t.Fatal(err)
	}
	synctest.Wait()
}

func (h *harness) get(name string) *samplesv1alpha1.Foo {
	h.t.Helper()
	f, err := h.foos().Get(h.t.Context(), name, metav1.GetOptions{})
	if err != nil {
		h.t.Fatal(err)
	}
	return f
}

// update changes the spec through Update.
func (h *harness) update(name, v string) {
	h.t.Helper()
	f := h.get(name)
	f.Spec.Data = map[string]string{"v": v}
	if _, err := h.foos().Update(h.t.Context(), f, metav1.UpdateOptions{}); err != nil {
		h.t.Fatal(err)
	}
	synctest.Wait()
}

// updateStatus changes the status through UpdateStatus.
func (h *harness) updateStatus(name, phase string) {
	h.t.Helper()
	f := h.get(name)
	f.Status.Phase = phase
	if _, err := h.foos().UpdateStatus(h.t.Context(), f, metav1.UpdateOptions{}); err != nil {
		h.t.Fatal(err)
	}
	synctest.Wait()
}

func (h *harness) delete(name string) {
	h.t.Helper()
	if err := h.foos().Delete(h.t.Context(), name, metav1.DeleteOptions{}); err != nil {
		h.t.Fatal(err)
	}
	synctest.Wait()
}

// elapse lets d pass on the bubble's clock; resync checks due meanwhile
// run, and their resyncs are delivered, before it returns.
func (h *harness) elapse(d time.Duration) {
	time.Sleep(d)
	synctest.Wait()
}

// normalized returns calls with every run of consecutive initial adds or
// unchanged updates sorted: client-go hands a late handler's initial adds
// and a resync's updates over in its store's map order, which varies; the
// order of everything else is the contract.
func normalized(calls []Call) []string {
	out := make([]string, len(calls))
	for i, c := range calls {
		out[i] = c.String()
	}
	unordered := func(c Call) bool { return c.Kind == Add && c.Initial || c.Unchanged() }
	for i := 0; i < len(calls); {
		j := i
		for j < len(calls) && unordered(calls[j]) {
			j++
		}
		if j == i {
			i++
			continue
		}
		slices.Sort(out[i:j])
		i = j
	}
	return out
}

// compare fails the test for each handler whose calls differ between the
// two informers; want, when a handler is named in it, is also what
// client-go must have delivered (so that the test checks its reading of
// client-go too).
func (h *harness) compare(want map[string][]string) {
	h.t.Helper()
	for _, name := range h.order {
		rs := h.handlers[name]
		cg, ours := normalized(rs[0].Calls()), normalized(rs[1].Calls())
		if !slices.Equal(cg, ours) {
			h.t.Errorf("handler %s: typedinformer's calls differ from client-go's\nclient-go:\n  %s\ntypedinformer:\n  %s",
				name, strings.Join(cg, "\n  "), strings.Join(ours, "\n  "))
		}
		if w, ok := want[name]; ok && !slices.Equal(cg, w) {
			h.t.Errorf("handler %s: client-go delivered\n  %s\nthe test expects\n  %s", name, strings.Join(cg, "\n  "), strings.Join(w, "\n  "))
		}
	}
}

// Renderings of the Foos' states in Call strings.
func st(v, phase string) string { return fmt.Sprintf(`rv="" data=map[v:%s] phase=%q`, v, phase) }

func add(name, v, phase string, initial bool) string {
	return Call{Kind: Add, Key: ns + "/" + name, Initial: initial, New: st(v, phase)}.String()
}

func upd(name, oldV, oldPhase, newV, newPhase string) string {
	return Call{Kind: Update, Key: ns + "/" + name, Old: st(oldV, oldPhase), New: st(newV, newPhase)}.String()
}

func del(name, v, phase string) string {
	return Call{Kind: Delete, Key: ns + "/" + name, New: st(v, phase)}.String()
}

// A fake clientset sets no resourceVersion, so each of its updates has
// equal old and new resourceVersions ("") and goes only to syncing
// handlers. With one handler at resync 0 on an informer without a default
// period no resync check ever runs: every update arrives, from both
// informers, however much time passes.
func TestAloneAtResyncZero(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, 0)
		h.addHandler("zero", 0)
		h.run()
		h.create("a", "1")
		h.update("a", "2")
		h.updateStatus("a", "Ready")
		h.elapse(time.Hour)
		h.update("a", "3")
		h.updateStatus("a", "Failed")
		h.delete("a")
		h.compare(map[string][]string{"zero": {
			add("seed", "0", "", true),
			add("a", "1", "", false),
			upd("a", "1", "", "2", ""),
			upd("a", "2", "", "2", "Ready"),
			upd("a", "2", "Ready", "3", "Ready"),
			upd("a", "3", "Ready", "3", "Failed"),
			del("a", "3", "Failed"),
		}})
	})
}

// With a handler at 0 beside one at 1s (on an informer whose default period
// is 1s: client-go runs resync checks only then) both get the fake's updates
// until the first check; from then on the handler at 0 gets none, the one
// at 1s (due at every check) gets them and its resyncs. A handler added
// later starts syncing until the next check, which still runs after the 1s
// handler was removed.
func TestBesideOneSecond(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, time.Second)
		h.addHandler("zero", 0)
		h.addHandler("one", time.Second)
		h.run()
		// Before the first check: everyone is syncing.
		h.create("a", "1")
		h.update("a", "2")
		h.updateStatus("a", "Ready")
		h.elapse(time.Second) // check 1: "one" due, "zero" not
		h.update("a", "3")
		h.updateStatus("a", "Failed")
		h.create("b", "1")
		h.update("b", "2")
		h.delete("a")
		h.addHandler("late", 0)
		synctest.Wait()
		h.update("b", "3")
		h.removeHandler("one")
		h.elapse(time.Second) // check 2: "late" not due
		h.update("b", "4")
		h.updateStatus("b", "Ready")
		h.delete("b")
		h.compare(map[string][]string{
			"zero": {
				add("seed", "0", "", true),
				add("a", "1", "", false),
				upd("a", "1", "", "2", ""),
				upd("a", "2", "", "2", "Ready"),
				add("b", "1", "", false),
				del("a", "3", "Failed"),
				del("b", "4", "Ready"),
			},
			"one": {
				add("seed", "0", "", true),
				add("a", "1", "", false),
				upd("a", "1", "", "2", ""),
				upd("a", "2", "", "2", "Ready"),
				upd("a", "2", "Ready", "2", "Ready"), // resync at check 1
				upd("seed", "0", "", "0", ""),        // resync at check 1
				upd("a", "2", "Ready", "3", "Ready"),
				upd("a", "3", "Ready", "3", "Failed"),
				add("b", "1", "", false),
				upd("b", "1", "", "2", ""),
				del("a", "3", "Failed"),
				upd("b", "2", "", "3", ""),
			},
			"late": {
				add("b", "2", "", true),
				add("seed", "0", "", true),
				upd("b", "2", "", "3", ""),
				del("b", "4", "Ready"),
			},
		})
	})
}
