package informers_test

import (
	"context"
	"errors"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/typedinformer/typedinformer/internal/testutil"
	"github.com/typedinformer/typedinformer/runtime/cache"
	"github.com/typedinformer/typedinformer/runtime/fake"
	"github.com/typedinformer/typedinformer/runtime/informers"
	"github.com/typedinformer/typedinformer/runtime/listers"
)

func mustView(t *testing.T, f *informers.Factory, label, field string) *informers.Factory {
	t.Helper()
	v, err := f.ForSelection(label, field)
	if err != nil {
		t.Fatalf("ForSelection(%q, %q): %v", label, field, err)
	}
	return v
}

func relabel(t *testing.T, srv *fake.Server[*corev1.Pod], ns, name string, kv ...string) {
	t.Helper()
	p, err := srv.Get(ns, name)
	if err != nil {
		t.Fatal(err)
	}
	p = p.DeepCopy()
	p.Labels = map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		p.Labels[kv[i]] = kv[i+1]
	}
	testutil.MustUpdate(t, srv, p)
}

// kindsByKey renders each key's calls as their kinds, in order, leaving out
// updates that change nothing (a relist's objects in both selections).
func kindsByKey(rec *testutil.Recorder[*corev1.Pod]) map[string]string {
	out := map[string]string{}
	for _, c := range rec.Calls() {
		if c.Resync() {
			continue
		}
		k := c.Kind
		if out[c.Key] != "" {
			k = out[c.Key] + " " + k
		}
		out[c.Key] = k
	}
	return out
}

func keysOf(objs []*corev1.Pod) string {
	ks := make([]string, 0, len(objs))
	for _, p := range objs {
		ks = append(ks, testutil.Key(p))
	}
	slices.Sort(ks)
	return strings.Join(ks, " ")
}

// TestFactoryViewsHoldOneInformerPerSelection runs two views of one
// factory, each with an informer of Pods, while Pods are created,
// relabelled and deleted and the views' and the factory's selections
// change. At every step each view's cache, its handler's mirror and the
// lister over the factory's union must hold exactly the Pods selected
// (the union each once, also while the selections overlap), and at the
// end each handler must have been told of each Pod's adds and deletes
// exactly once, in order.
func TestFactoryViewsHoldOneInformerPerSelection(t *testing.T) {
	srv := fake.NewServer[*corev1.Pod]()
	for _, p := range []*corev1.Pod{
		testutil.Pod("ns1", "w1", testutil.Labels("tier", "web")),
		testutil.Pod("ns1", "w2", testutil.Labels("tier", "web")),
		testutil.Pod("ns1", "a1", testutil.Labels("tier", "api")),
		testutil.Pod("ns2", "o1", testutil.Labels("tier", "other")),
	} {
		testutil.MustCreate(t, srv, p)
	}
	f := informers.NewFactory(0)
	web, api := mustView(t, f, "tier=web", ""), mustView(t, f, "tier=api", "")
	infs := map[string]cache.SharedIndexInformer[*corev1.Pod]{
		"web": informers.InformerFor(web, true, generatedStyle(web, srv)),
		"api": informers.InformerFor(api, true, generatedStyle(api, srv)),
	}
	if infs["web"] == infs["api"] {
		t.Fatal("two views got one informer")
	}
	if again := informers.InformerFor(web, true, generatedStyle(web, srv)); again != infs["web"] {
		t.Fatal("a view's second InformerFor built another informer")
	}
	recs := map[string]*testutil.Recorder[*corev1.Pod]{}
	for name, inf := range infs {
		recs[name] = testutil.NewRecorder[*corev1.Pod]()
		if _, err := inf.AddEventHandler(recs[name]); err != nil {
			t.Fatal(err)
		}
	}
	union := listers.New(informers.UnionIndexer[*corev1.Pod](f), podsGVR.GroupResource())
	ctx := factoryContext(t, f)
	f.Start(ctx)
	synced, err := f.WaitForCacheSync(ctx)
	if err != nil || !synced[reflect.TypeFor[*corev1.Pod]()] {
		t.Fatalf("WaitForCacheSync: %v, %v", synced, err)
	}

	steps := []struct {
		name     string
		do       func(t *testing.T)
		web, api string // each view's cache; "-" once the view's informer was removed
		union    string
	}{
		{"initial", func(*testing.T) {}, "ns1/w1 ns1/w2", "ns1/a1", "ns1/a1 ns1/w1 ns1/w2"},
		{"relabel w2 from web to api", func(t *testing.T) { relabel(t, srv, "ns1", "w2", "tier", "api") },
			"ns1/w1", "ns1/a1 ns1/w2", "ns1/a1 ns1/w1 ns1/w2"},
		{"widen api's selection", func(t *testing.T) {
			if err := api.SetSelectors("tier in (api,other)", ""); err != nil {
				t.Fatal(err)
			}
		}, "ns1/w1", "ns1/a1 ns1/w2 ns2/o1", "ns1/a1 ns1/w1 ns1/w2 ns2/o1"},
		{"delete a1, create w3", func(t *testing.T) {
			testutil.MustDelete(t, srv, "ns1", "a1")
			testutil.MustCreate(t, srv, testutil.Pod("ns1", "w3", testutil.Labels("tier", "web")))
		}, "ns1/w1 ns1/w3", "ns1/w2 ns2/o1", "ns1/w1 ns1/w2 ns1/w3 ns2/o1"},
		{"web's selection overlaps api's", func(t *testing.T) {
			if err := web.SetSelectors("tier=api", ""); err != nil {
				t.Fatal(err)
			}
		}, "ns1/w2", "ns1/w2 ns2/o1", "ns1/w2 ns2/o1"},
		{"the factory's selection narrows both", func(t *testing.T) {
			if err := f.SetSelectors("", "metadata.namespace=ns1"); err != nil {
				t.Fatal(err)
			}
		}, "ns1/w2", "ns1/w2", "ns1/w2"},
		{"remove web's informer", func(t *testing.T) {
			if err := web.RemoveInformer(&corev1.Pod{}); err != nil {
				t.Fatal(err)
			}
			if len(web.Informers()) != 0 || len(api.Informers()) != 1 || len(f.Informers()) != 0 {
				t.Errorf("informers after removing web's: web %v, api %v, factory %v", web.Informers(), api.Informers(), f.Informers())
			}
			// The removed informer no longer counts in the union.
			testutil.MustUpdate(t, srv, func() *corev1.Pod {
				p, _ := srv.Get("ns1", "w2")
				p = p.DeepCopy()
				p.Annotations = map[string]string{"touched": "yes"}
				return p
			}())
		}, "-", "ns1/w2", "ns1/w2"},
		{"delete w2", func(t *testing.T) { testutil.MustDelete(t, srv, "ns1", "w2") }, "-", "", ""},
	}
	for _, st := range steps {
		st.do(t)
		for name, want := range map[string]string{"web": st.web, "api": st.api} {
			if want == "-" {
				continue
			}
			testutil.Eventually(t, st.name+": "+name+"'s cache is "+want, func() bool { return keysOf(infs[name].GetStore().List()) == want })
			testutil.Eventually(t, st.name+": "+name+"'s handler mirrors "+want, func() bool {
				return strings.Join(slices.Sorted(maps.Keys(recs[name].View())), " ") == want
			})
		}
		testutil.Eventually(t, st.name+": the union lister lists "+st.union, func() bool {
			objs, err := union.List(labels.Everything())
			if err != nil {
				t.Fatal(err)
			}
			return keysOf(objs) == st.union && len(objs) == len(strings.Fields(st.union))
		})
		for _, k := range strings.Fields(st.union) {
			ns, name, _ := strings.Cut(k, "/")
			if _, err := union.Namespace(ns).Get(name); err != nil {
				t.Errorf("%s: union Get(%s): %v", st.name, k, err)
			}
		}
	}
	if p, err := union.Namespace("ns1").Get("w2"); err == nil {
		t.Errorf("the union still returns deleted ns1/w2 (%s)", p.ResourceVersion)
	}
	want := map[string]map[string]string{
		"web": {"ns1/w1": "add delete", "ns1/w2": "add delete add", "ns1/w3": "add delete"},
		"api": {"ns1/a1": "add delete", "ns1/w2": "add update delete", "ns2/o1": "add delete"},
	}
	for name, rec := range recs {
		if err := rec.Err(); err != nil {
			t.Errorf("%s's handler: %v", name, err)
		}
		if got := kindsByKey(rec); !reflect.DeepEqual(got, want[name]) {
			t.Errorf("%s's handler was told %v, want %v\n%s", name, got, want[name], strings.Join(rec.Events(), "\n"))
		}
	}
}

// selectionChanger builds a started factory whose informer (of the factory
// itself or of a view of it) selects label, and changes that selection.
type selectionChanger struct {
	name string
	// build returns the factory to start and the one (it or a view of
	// it) whose informer is read, selecting label.
	build  func(t *testing.T, tracker *cache.WriteTracker, label string) (*informers.Factory, *informers.Factory)
	change func(f *informers.Factory, label string) error
}

// start builds the factory selecting label, with tracker, over srv's Pods,
// starts it and waits for it to sync; it returns the factory whose
// informer is read, that informer and a lister over it.
func (c selectionChanger) start(t *testing.T, srv *fake.Server[*corev1.Pod], tracker *cache.WriteTracker, label string) (*informers.Factory, cache.SharedIndexInformer[*corev1.Pod], *listers.ResourceLister[*corev1.Pod]) {
	t.Helper()
	f, sel := c.build(t, tracker, label)
	inf := informers.InformerFor(sel, true, generatedStyle(sel, srv))
	ctx := factoryContext(t, f)
	f.Start(ctx)
	if _, err := f.WaitForCacheSync(ctx); err != nil {
		t.Fatal(err)
	}
	return sel, inf, listers.New(inf.GetIndexer(), podsGVR.GroupResource())
}

// selectionChangers: through the factory's tweak, and through a view's
// selectors.
func selectionChangers() []selectionChanger {
	tweak := func(label string) informers.TweakListOptionsFunc {
		return func(o *metav1.ListOptions) { o.LabelSelector = label }
	}
	return []selectionChanger{
		{
			name: "factory tweak",
			build: func(t *testing.T, tracker *cache.WriteTracker, label string) (*informers.Factory, *informers.Factory) {
				f := informers.NewFactory(0, informers.WithWriteTracker(tracker), informers.WithTweakListOptions(tweak(label)))
				return f, f
			},
			change: func(f *informers.Factory, label string) error { return f.SetTweakListOptions(tweak(label)) },
		},
		{
			name: "view selectors",
			build: func(t *testing.T, tracker *cache.WriteTracker, label string) (*informers.Factory, *informers.Factory) {
				f := informers.NewFactory(0, informers.WithWriteTracker(tracker))
				return f, mustView(t, f, label, "")
			},
			change: func(f *informers.Factory, label string) error { return f.SetSelectors(label, "") },
		},
	}
}

// TestWriteTrackerFollowsSelectionChanges: a factory's WithWriteTracker
// judges each write by the selection current at the time of the write.
// After a change moves an object out of the informer's selection, a read
// of it must not wait for the program's write of it (which the informer
// will never see); after a change moves objects in, a read of one the
// program then creates must wait until the informer has it. The change is
// made through the factory's tweak and through a view's selectors.
func TestWriteTrackerFollowsSelectionChanges(t *testing.T) {
	for _, tc := range selectionChangers() {
		for _, dir := range []string{"out", "in"} {
			t.Run(tc.name+"/moved "+dir, func(t *testing.T) {
				srv := fake.NewServer[*corev1.Pod]()
				web1 := testutil.MustCreate(t, srv, testutil.Pod("ns1", "web1", testutil.Labels("tier", "web")))
				testutil.MustCreate(t, srv, testutil.Pod("ns1", "api1", testutil.Labels("tier", "api")))
				tracker := cache.NewWriteTracker(cache.WriteTrackerOptions{Timeout: 3 * time.Second})
				from, to, want := "tier=web", "tier=api", "ns1/api1"
				if dir == "in" {
					from, to, want = to, from, "ns1/web1"
				}
				sel, inf, lister := tc.start(t, srv, tracker, from)
				if err := tc.change(sel, to); err != nil {
					t.Fatal(err)
				}
				testutil.Eventually(t, "the informer to hold "+want, func() bool { return keysOf(inf.GetStore().List()) == want })
				srv.HoldWatchEvents()
				defer srv.ReleaseWatchEvents()

				if dir == "out" {
					// web1 left the selection; the program writes it.
					upd := web1.DeepCopy()
					upd.Annotations = map[string]string{"v": "2"}
					tracker.Wrote(podsGVR.GroupResource(), testutil.MustUpdate(t, srv, upd))
					start := time.Now()
					_, err := lister.Namespace("ns1").Get("web1")
					if !apierrors.IsNotFound(err) || time.Since(start) > time.Second {
						t.Fatalf("Get of a Pod written after it left the selection: %v after %v; want NotFound at once", err, time.Since(start))
					}
					if _, err := lister.List(labels.Everything()); err != nil {
						t.Fatalf("List waited for a write outside the selection: %v", err)
					}
					return
				}
				// The selection now takes tier=web; the program creates one.
				created := testutil.MustCreate(t, srv, testutil.Pod("ns1", "web2", testutil.Labels("tier", "web")))
				tracker.Wrote(podsGVR.GroupResource(), created)
				type result struct {
					pod *corev1.Pod
					err error
				}
				done := make(chan result, 1)
				go func() {
					p, err := lister.Namespace("ns1").Get("web2")
					done <- result{p, err}
				}()
				select {
				case r := <-done:
					t.Fatalf("Get of a Pod created in the new selection returned before the informer had it: %v, %v", r.pod, r.err)
				case <-time.After(200 * time.Millisecond):
				}
				srv.ReleaseWatchEvents()
				select {
				case r := <-done:
					if r.err != nil || r.pod.ResourceVersion != created.ResourceVersion {
						t.Fatalf("Get(web2) = %v, %v; want resourceVersion %s", r.pod, r.err, created.ResourceVersion)
					}
				case <-time.After(10 * time.Second):
					t.Fatal("Get(web2) did not return after the watch events were released")
				}
			})
		}
	}
}

// TestWriteTrackerRemembersWritesOutsideTheSelection: the program writes
// an object while it is outside the informer's selection, then writes
// another object the informer has, so that the store's resourceVersion
// passes the first write. A change then brings the first object in. Until
// the relist is applied the store holds the old selection, so a Get or
// List must wait for it and return the write; a Get of an object the
// program did not write must not wait. With RecentWrites < 0 the tracker
// remembers nothing, and every read of an object the store lacks, and
// every List, waits for the relist instead.
func TestWriteTrackerRemembersWritesOutsideTheSelection(t *testing.T) {
	const hold = 300 * time.Millisecond
	for _, tc := range selectionChangers() {
		for _, remembered := range []bool{true, false} {
			name := tc.name + "/remembered"
			opts := cache.WriteTrackerOptions{Timeout: 10 * time.Second}
			if !remembered {
				name, opts.RecentWrites = tc.name+"/forgotten", -1
			}
			t.Run(name, func(t *testing.T) {
				srv := fake.NewServer[*corev1.Pod]()
				web1 := testutil.MustCreate(t, srv, testutil.Pod("ns1", "web1", testutil.Labels("tier", "web")))
				api1 := testutil.MustCreate(t, srv, testutil.Pod("ns1", "api1", testutil.Labels("tier", "api")))
				tracker := cache.NewWriteTracker(opts)
				sel, inf, lister := tc.start(t, srv, tracker, "tier=api")
				gr := podsGVR.GroupResource()
				annotate := func(p *corev1.Pod) *corev1.Pod {
					p = p.DeepCopy()
					p.Annotations = map[string]string{"v": "2"}
					w := testutil.MustUpdate(t, srv, p)
					tracker.Wrote(gr, w)
					return w
				}
				outside := annotate(web1)
				inside := annotate(api1)
				if got, err := lister.Namespace("ns1").Get("api1"); err != nil || got.ResourceVersion != inside.ResourceVersion {
					t.Fatalf("Get(api1) = %v, %v; want resourceVersion %s", got, err, inside.ResourceVersion)
				}
				if at := inf.GetIndexer().LastStoreSyncResourceVersion(); at != inside.ResourceVersion {
					t.Fatalf("the store is at resourceVersion %q, want %s (past the write outside the selection)", at, inside.ResourceVersion)
				}

				// The relist is held: a list is delayed, a watch-list's events held.
				srv.SetListDelay(3 * hold)
				srv.HoldWatchEvents()
				defer srv.ReleaseWatchEvents()
				if err := tc.change(sel, "tier=web"); err != nil {
					t.Fatal(err)
				}
				if remembered {
					start := time.Now()
					_, err := lister.Namespace("ns1").Get("absent")
					if !apierrors.IsNotFound(err) || time.Since(start) > hold {
						t.Fatalf("Get of an object the program did not write: %v after %v; want NotFound at once", err, time.Since(start))
					}
				}
				type result struct {
					what string
					rv   string
					err  error
				}
				done := make(chan result, 3)
				go func() {
					p, err := lister.Namespace("ns1").Get("web1")
					r := result{what: "Get(web1)", err: err}
					if err == nil {
						r.rv = p.ResourceVersion
					}
					done <- r
				}()
				go func() {
					ps, err := lister.List(labels.Everything())
					r := result{what: "List", err: err}
					for _, p := range ps {
						if p.Name == "web1" {
							r.rv = p.ResourceVersion
						}
					}
					done <- r
				}()
				if !remembered {
					go func() {
						_, err := lister.Namespace("ns1").Get("absent")
						done <- result{what: "Get(absent)", err: err}
					}()
				}
				select {
				case r := <-done:
					t.Fatalf("%s returned before the relist: resourceVersion %q, %v", r.what, r.rv, r.err)
				case <-time.After(hold):
				}
				srv.SetListDelay(0)
				srv.ReleaseWatchEvents()
				reads := 2
				if !remembered {
					reads++
				}
				for range reads {
					select {
					case r := <-done:
						switch {
						case r.what == "Get(absent)":
							if !apierrors.IsNotFound(r.err) {
								t.Errorf("Get(absent) after the relist: %v, want NotFound", r.err)
							}
						case r.err != nil || r.rv != outside.ResourceVersion:
							t.Errorf("%s after the relist: web1 at resourceVersion %q, %v; want %s", r.what, r.rv, r.err, outside.ResourceVersion)
						}
					case <-time.After(10 * time.Second):
						t.Fatal("a read did not return after the relist was released")
					}
				}
			})
		}
	}
}

// TestSelectionFollowersAreRunningInformers counts the informers
// subscribed to a factory's and a view's Selection: an informer the
// factory built but never ran is not one, a running one is until it is
// removed or the factory shut down.
func TestSelectionFollowersAreRunningInformers(t *testing.T) {
	for _, tc := range []struct {
		name     string
		opts     []informers.Option
		children int // informers per InformerFor
	}{
		{"all namespaces", nil, 1},
		{"two namespaces", []informers.Option{informers.WithNamespaces("ns1", "ns2")}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := fake.NewServer[*corev1.Pod]()
			f := informers.NewFactory(0, tc.opts...)
			view := mustView(t, f, "tier=web", "")
			followers := func(what string, factory, v int) {
				t.Helper()
				testutil.Eventually(t, what, func() bool {
					return f.Selection().Followers() == factory*tc.children && view.Selection().Followers() == v*tc.children
				})
			}
			// Built, never run, removed: never subscribed.
			informers.InformerFor(f, true, generatedStyle(f, srv))
			informers.InformerFor(view, true, generatedStyle(view, srv))
			if n, m := f.Selection().Followers(), view.Selection().Followers(); n != 0 || m != 0 {
				t.Fatalf("informers never run: the factory's Selection has %d followers, the view's %d; want 0", n, m)
			}
			if err := f.RemoveInformer(&corev1.Pod{}); err != nil {
				t.Fatal(err)
			}
			if err := view.RemoveInformer(&corev1.Pod{}); err != nil {
				t.Fatal(err)
			}
			followers("no followers after removing informers never run", 0, 0)

			informers.InformerFor(f, true, generatedStyle(f, srv))
			informers.InformerFor(view, true, generatedStyle(view, srv))
			ctx := factoryContext(t, f)
			f.Start(ctx)
			followers("both informers subscribed once running", 2, 1)
			if err := f.RemoveInformer(&corev1.Pod{}); err != nil {
				t.Fatal(err)
			}
			followers("the removed informer unsubscribed", 1, 1)
			view.Shutdown()
			followers("the view's informer unsubscribed on its Shutdown", 0, 0)
			informers.InformerFor(f, true, generatedStyle(f, srv))
			f.Start(ctx)
			followers("a new informer subscribed", 1, 0)
			f.Shutdown()
			followers("no followers after Shutdown", 0, 0)
		})
	}
}

// TestForSelectionBadInput: a selector that does not parse, and a view of
// a factory or view that was shut down, are errors naming them; no view is
// made. WithSelectionOf reports the same through the factory it returns.
func TestForSelectionBadInput(t *testing.T) {
	f := informers.NewFactory(0)
	closedView := mustView(t, f, "a=b", "")
	closedView.Shutdown()
	down := informers.NewFactory(0)
	down.Shutdown()
	for _, tc := range []struct {
		name         string
		of           *informers.Factory
		label, field string
		want         string
		is           error
	}{
		{"label selector", f, "tier in (", "", `label selector "tier in ("`, nil},
		{"field selector", f, "", "spec.nodeName", `field selector "spec.nodeName"`, nil},
		{"shut-down factory", down, "a=b", "", `ForSelection("a=b", "")`, informers.ErrShutdown},
		{"shut-down view", closedView, "c=d", "", `ForSelection("c=d", "")`, informers.ErrShutdown},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := tc.of.ForSelection(tc.label, tc.field)
			if err == nil || v != nil || !strings.Contains(err.Error(), tc.want) || (tc.is != nil && !errors.Is(err, tc.is)) {
				t.Fatalf("ForSelection(%q, %q) = %v, %v; want an error naming %s", tc.label, tc.field, v, err, tc.want)
			}
			// Through WithSelectionOf: the factory's informers report it,
			// and so does WaitForCacheSync.
			bad := informers.NewFactory(0, informers.WithSelectionOf(tc.of, tc.label, tc.field))
			inf := informers.InformerFor(bad, true, generatedStyle(bad, fake.NewServer[*corev1.Pod]()))
			if err := inf.LastError(); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("InformerFor of the bad view: LastError %v, want one naming %s", err, tc.want)
			}
			if _, err := bad.WaitForCacheSync(context.Background()); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("WaitForCacheSync of the bad view: %v, want an error naming %s", err, tc.want)
			}
		})
	}
	// The parent's selection is unchanged and its views still work.
	if _, err := f.ForSelection("x=y", ""); err != nil {
		t.Fatal(err)
	}
	if l, fs := f.Selection().Selectors(); l != "" || fs != "" {
		t.Errorf("the factory's selectors changed to %q, %q", l, fs)
	}
	if _, err := closedView.ForSelection("x=y", ""); !errors.Is(err, informers.ErrShutdown) {
		t.Errorf("view of a shut-down view: %v", err)
	}
	if err := closedView.SetSelectors("x=y", ""); !errors.Is(err, informers.ErrShutdown) {
		t.Errorf("SetSelectors on a shut-down view: %v", err)
	}
	inf := informers.InformerFor(closedView, true, generatedStyle(closedView, fake.NewServer[*corev1.Pod]()))
	if !errors.Is(inf.LastError(), informers.ErrShutdown) {
		t.Errorf("InformerFor on a shut-down view: LastError %v, want ErrShutdown", inf.LastError())
	}
}
