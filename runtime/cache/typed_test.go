package cache_test

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/klog/v2"

	"github.com/typedinformer/typedinformer/runtime/cache"
)

func TestDeletedObjectNames(t *testing.T) {
	p := newPod("ns", "web")
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}}
	cases := []struct {
		name       string
		d          cache.DeletedObject[*corev1.Pod]
		key, nsOut string
		nameOut    string
	}{
		{"final state", cache.DeletedObject[*corev1.Pod]{OptionalObj: p}, "ns/web", "ns", "web"},
		{"tombstone", cache.DeletedObject[*corev1.Pod]{OptionalObj: p, FinalStateUnknown: &cache.DeletedFinalStateUnknown{Key: "ns/web", Obj: p}}, "ns/web", "ns", "web"},
		{"tombstone without object", cache.DeletedObject[*corev1.Pod]{FinalStateUnknown: &cache.DeletedFinalStateUnknown{Key: "ns/gone"}}, "ns/gone", "ns", "gone"},
		{"tombstone key of a cluster-scoped name", cache.DeletedObject[*corev1.Pod]{FinalStateUnknown: &cache.DeletedFinalStateUnknown{Key: "solo"}}, "solo", "", "solo"},
		{"tombstone key with two slashes keeps the rest in the name", cache.DeletedObject[*corev1.Pod]{FinalStateUnknown: &cache.DeletedFinalStateUnknown{Key: "a/b/c"}}, "a/b/c", "a", "b/c"},
		{"nothing at all", cache.DeletedObject[*corev1.Pod]{}, "", "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := c.d.GetKey(); got != c.key {
				t.Errorf("GetKey() = %q, want %q", got, c.key)
			}
			if got := c.d.GetNamespace(); got != c.nsOut {
				t.Errorf("GetNamespace() = %q, want %q", got, c.nsOut)
			}
			if got := c.d.GetName(); got != c.nameOut {
				t.Errorf("GetName() = %q, want %q", got, c.nameOut)
			}
			if got, want := c.d.GetObjectName(), (cache.ObjectName{Namespace: c.nsOut, Name: c.nameOut}); got != want {
				t.Errorf("GetObjectName() = %v, want %v", got, want)
			}
			// klog.KObj takes the DeletedObject itself.
			if got, want := klog.KObj(c.d).String(), cache.NewObjectName(c.nsOut, c.nameOut).String(); got != want {
				t.Errorf("klog.KObj = %q, want %q", got, want)
			}
		})
	}
	if got := (cache.DeletedObject[*corev1.Node]{OptionalObj: node}).GetKey(); got != "n1" {
		t.Errorf("cluster-scoped GetKey() = %q, want n1", got)
	}
}

// typedCall is one call a typed handler received, as a string.
type typedRecorder struct {
	mu    sync.Mutex
	calls []string
}

func (r *typedRecorder) add(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, s)
}

func (r *typedRecorder) get() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.calls)
}

func deletedString(d cache.DeletedObject[*corev1.Pod]) string {
	s := "delete " + d.GetKey() + "@" + d.OptionalObj.ResourceVersion
	if d.FinalStateUnknown != nil {
		obj, ok := d.FinalStateUnknown.Obj.(*corev1.Pod)
		s += fmt.Sprintf(" tombstone key=%s obj-same=%t", d.FinalStateUnknown.Key, ok && obj == d.OptionalObj)
	}
	return s
}

func (r *typedRecorder) funcs() cache.TypedResourceEventHandlerFuncs[*corev1.Pod] {
	return cache.TypedResourceEventHandlerFuncs[*corev1.Pod]{
		AddFunc:    func(p *corev1.Pod) { r.add("add " + key(p)) },
		UpdateFunc: func(o, n *corev1.Pod) { r.add("update " + key(n) + " " + o.ResourceVersion + "->" + n.ResourceVersion) },
		DeleteFunc: func(d cache.DeletedObject[*corev1.Pod]) { r.add(deletedString(d)) },
	}
}

func (r *typedRecorder) detailed() cache.TypedResourceEventHandlerDetailedFuncs[*corev1.Pod] {
	f := r.funcs()
	return cache.TypedResourceEventHandlerDetailedFuncs[*corev1.Pod]{
		AddFunc:    func(p *corev1.Pod, initial bool) { r.add(fmt.Sprintf("add %s initial=%t", key(p), initial)) },
		UpdateFunc: f.UpdateFunc,
		DeleteFunc: f.DeleteFunc,
	}
}

func waitCalls(t *testing.T, r *typedRecorder, n int) []string {
	t.Helper()
	eventually(t, fmt.Sprintf("%d typed calls", n), func() bool { return len(r.get()) >= n })
	return r.get()
}

// The typed handler API delivers what the plain one does, with deletes as
// DeletedObject: a watched delete without a tombstone, a missed one with a
// tombstone whose key and Obj match OptionalObj.
func TestAddTypedEventHandlerDeliversDeletedObjects(t *testing.T) {
	srv := seedServer(t) // a/p1, a/p2, a/p3
	inf := cache.NewTypedSharedIndexInformer(podInformer(srv, cache.SharedIndexInformerOptions[*corev1.Pod]{Reflector: fastReflector()}))
	plain, detailed := &typedRecorder{}, &typedRecorder{}
	if _, err := inf.AddTypedEventHandler(plain.funcs()); err != nil {
		t.Fatal(err)
	}
	if _, err := inf.AddTypedEventHandler(detailed.detailed(), cache.HandlerOptions{}); err != nil {
		t.Fatal(err)
	}
	run(t, inf)
	waitSynced(t, inf)
	p1 := update(t, srv, mustGet(t, srv, "a", "p1"))
	p2 := mustGet(t, srv, "a", "p2")
	p3 := mustGet(t, srv, "a", "p3")
	relistAfter(t, srv, func() { del(t, srv, "a", "p2") })
	del(t, srv, "a", "p3")
	deleteRV := srv.ResourceVersion()

	wantPlain := []string{
		"add a/p1", "add a/p2", "add a/p3",
		"update a/p1 " + p1.ResourceVersion, // completed below
	}
	got := waitCalls(t, plain, 8)
	wantPlain[3] = got[3] // the old RV is the seed's; checked by prefix
	if !strings.HasPrefix(got[3], "update a/p1 ") || !strings.HasSuffix(got[3], "->"+p1.ResourceVersion) {
		t.Fatalf("call 3 = %q, want the update of a/p1 to %s", got[3], p1.ResourceVersion)
	}
	// The relist delivers the tombstone, then re-delivers the unchanged
	// objects (as client-go does to a handler with no resync period).
	wantPlain = append(wantPlain,
		"delete a/p2@"+p2.ResourceVersion+" tombstone key=a/p2 obj-same=true",
		"update a/p1 "+p1.ResourceVersion+"->"+p1.ResourceVersion,
		"update a/p3 "+p3.ResourceVersion+"->"+p3.ResourceVersion,
		"delete a/p3@"+deleteRV,
	)
	if !slices.Equal(got, wantPlain) {
		t.Fatalf("typed funcs got\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(wantPlain, "\n  "))
	}
	gotD := waitCalls(t, detailed, 8)
	for i, w := range []string{"add a/p1 initial=true", "add a/p2 initial=true", "add a/p3 initial=true"} {
		if gotD[i] != w {
			t.Fatalf("detailed call %d = %q, want %q", i, gotD[i], w)
		}
	}
	if !slices.Equal(gotD[3:], got[3:]) {
		t.Fatalf("detailed calls after the initial list %v, want %v", gotD[3:], got[3:])
	}
}

// TypedFilteringResourceEventHandler translates updates across the filter
// into adds and deletes (the delete carries no tombstone) and is rejected at
// registration when incomplete.
func TestTypedFilteringResourceEventHandler(t *testing.T) {
	srv := seedServer(t)
	inf := cache.NewTypedSharedIndexInformer(podInformer(srv, cache.SharedIndexInformerOptions[*corev1.Pod]{Reflector: fastReflector()}))
	rec := &typedRecorder{}
	f := cache.TypedFilteringResourceEventHandler[*corev1.Pod]{
		FilterFunc: func(p *corev1.Pod) bool { return p.Labels["keep"] == "yes" },
		Handler:    rec.funcs(),
	}
	if _, err := inf.AddTypedEventHandler(f); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []cache.TypedFilteringResourceEventHandler[*corev1.Pod]{{Handler: rec.funcs()}, {FilterFunc: f.FilterFunc}} {
		if _, err := inf.AddTypedEventHandler(bad); err == nil || !strings.Contains(err.Error(), "TypedFilteringResourceEventHandler with a nil") {
			t.Fatalf("incomplete filter registered: %v", err)
		}
	}
	run(t, inf)
	waitSynced(t, inf)
	in := mustGet(t, srv, "a", "p1").DeepCopy()
	in.Labels = map[string]string{"keep": "yes"}
	in = update(t, srv, in) // enters: add
	out := in.DeepCopy()
	out.Labels = nil
	update(t, srv, out) // leaves: delete of the old object, no tombstone
	got := waitCalls(t, rec, 2)
	want := []string{"add a/p1", "delete a/p1@" + in.ResourceVersion}
	if !slices.Equal(got, want) {
		t.Fatalf("filtered calls %v, want %v", got, want)
	}
}

func TestAddTypedEventHandlerOptions(t *testing.T) {
	srv := seedServer(t)
	inf := cache.NewTypedSharedIndexInformer(podInformer(srv, cache.SharedIndexInformerOptions[*corev1.Pod]{}))
	rec := &typedRecorder{}
	if _, err := inf.AddTypedEventHandler(rec.funcs(), cache.HandlerOptions{}, cache.HandlerOptions{}); err == nil || !strings.Contains(err.Error(), "at most one HandlerOptions") {
		t.Fatalf("two HandlerOptions: %v, want an error", err)
	}
	if _, err := inf.AddTypedEventHandler(nil); err == nil {
		t.Fatal("nil typed handler registered")
	}
	// A handler's own logger reports its panics.
	var logged strings.Builder
	var mu sync.Mutex
	logger := klog.New(funcSink(func(msg string) {
		mu.Lock()
		defer mu.Unlock()
		logged.WriteString(msg + "\n")
	}))
	period := time.Duration(0)
	reg, err := inf.AddTypedEventHandler(cache.TypedResourceEventHandlerFuncs[*corev1.Pod]{
		AddFunc: func(p *corev1.Pod) { panic("boom " + p.Name) },
	}, cache.HandlerOptions{Logger: &logger, ResyncPeriod: &period})
	if err != nil {
		t.Fatal(err)
	}
	run(t, inf)
	waitSynced(t, inf, reg)
	mu.Lock()
	defer mu.Unlock()
	if !strings.Contains(logged.String(), "Event handler panicked") {
		t.Fatalf("the handler's logger got %q, want its panics", logged.String())
	}
}

func TestTypedIndexer(t *testing.T) {
	srv := seedServer(t)
	inf := cache.NewTypedSharedIndexInformer(podInformer(srv, cache.SharedIndexInformerOptions[*corev1.Pod]{
		Indexers: cache.TypedIndexersToIndexers(cache.TypedIndexers[*corev1.Pod]{
			"node": cache.TypedIndexerFuncToIndexerFunc(func(p *corev1.Pod) ([]string, error) { return []string{p.Spec.NodeName}, nil }),
		}),
	}))
	if err := inf.AddTypedIndexers(cache.TypedIndexers[*corev1.Pod]{
		"name": func(p *corev1.Pod) ([]string, error) { return []string{p.Name}, nil },
	}); err != nil {
		t.Fatal(err)
	}
	run(t, inf)
	waitSynced(t, inf)
	idx := inf.GetTypedIndexer()
	byName, err := idx.ByTypedIndex("name", "p2")
	if err != nil || len(byName) != 1 || key(byName[0]) != "a/p2" {
		t.Fatalf("ByTypedIndex(name, p2) = %v, %v", byName, err)
	}
	p1 := mustGet(t, srv, "a", "p1")
	same, err := idx.TypedIndex("node", p1)
	want, _ := idx.ByIndex("node", p1.Spec.NodeName)
	if err != nil || len(same) != len(want) || len(same) == 0 {
		t.Fatalf("TypedIndex(node, p1) = %d objects, %v; ByIndex gives %d", len(same), err, len(want))
	}
	if _, err := idx.ByTypedIndex("missing", "x"); err == nil {
		t.Fatal("ByTypedIndex of an unknown index succeeded")
	}
	if err := idx.AddTypedIndexers(cache.TypedIndexers[*corev1.Pod]{"name": nil}); err == nil {
		t.Fatal("AddTypedIndexers re-added an existing index")
	}
}

// NewTypedSharedIndexInformer returns this package's informers as they are
// and wraps other implementations.
func TestNewTypedSharedIndexInformerReturnsTheInformerItself(t *testing.T) {
	inf := podInformer(seedServer(t), cache.SharedIndexInformerOptions[*corev1.Pod]{})
	if got := cache.NewTypedSharedIndexInformer(inf); any(got) != any(inf) {
		t.Fatalf("NewTypedSharedIndexInformer wrapped the package's own informer (%T)", got)
	}
	wrapped := cache.NewTypedSharedIndexInformer[*corev1.Pod](onlyPlain{inf})
	if any(wrapped) == any(inf) {
		t.Fatal("a foreign implementation came back unwrapped")
	}
	if wrapped.Name() != inf.Name() || wrapped.GetTypedIndexer() == nil {
		t.Fatal("the view does not forward to the informer")
	}
}

// onlyPlain hides the Typed methods of an informer.
type onlyPlain struct {
	cache.SharedIndexInformer[*corev1.Pod]
}

func TestInformerName(t *testing.T) {
	if _, err := cache.NewInformerName(""); err == nil {
		t.Fatal("empty informer name accepted")
	}
	pods := schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	n, err := cache.NewInformerName("kube-controller-manager")
	if err != nil {
		t.Fatal(err)
	}
	// No process-wide registry: a second name of the same text is fine.
	n2, err := cache.NewInformerName("kube-controller-manager")
	if err != nil {
		t.Fatal(err)
	}
	first, dup, other := n.WithResource(pods), n.WithResource(pods), n2.WithResource(pods)
	if !first.Reserved() || dup.Reserved() || !other.Reserved() {
		t.Fatalf("reserved: first %t dup %t other name %t; want true false true", first.Reserved(), dup.Reserved(), other.Reserved())
	}
	if first.Name() != "kube-controller-manager" || first.GroupVersionResource() != pods {
		t.Fatalf("identity %q %v", first.Name(), first.GroupVersionResource())
	}
	n.Release()
	n.Release()
	if first.Reserved() || n.WithResource(schema.GroupVersionResource{Resource: "nodes"}).Reserved() {
		t.Fatal("reservation survived Release")
	}
	if !other.Reserved() {
		t.Fatal("releasing one name released another")
	}
	var none *cache.InformerName
	if none.Name() != "" || none.WithResource(pods).Reserved() {
		t.Fatal("a nil InformerName reserved something")
	}
	none.Release()
}

// funcSink is a minimal logr sink that hands every message to a function.
type funcSink func(msg string)

func (funcSink) Init(logr.RuntimeInfo)                   {}
func (funcSink) Enabled(int) bool                        { return true }
func (f funcSink) Info(_ int, msg string, _ ...any)      { f(msg) }
func (f funcSink) Error(err error, msg string, _ ...any) { f(msg + ": " + fmt.Sprint(err)) }
func (f funcSink) WithValues(...any) logr.LogSink        { return f }
func (f funcSink) WithName(string) logr.LogSink          { return f }

// AnyIndexers carries an Indexers[T] through a non-generic options struct;
// another type's indexers, or a name given twice, keep the informer from
// starting with an error that says so.
func TestAnyIndexers(t *testing.T) {
	byNode := cache.TypedIndexers[*corev1.Pod]{"node": func(p *corev1.Pod) ([]string, error) { return []string{p.Spec.NodeName}, nil }}
	srv := seedServer(t)
	inf := podInformer(srv, cache.SharedIndexInformerOptions[*corev1.Pod]{AnyIndexers: cache.TypedIndexersToIndexers(byNode)})
	run(t, inf)
	waitSynced(t, inf)
	if _, err := inf.GetIndexer().ByIndex("node", ""); err != nil {
		t.Fatalf("the AnyIndexers index is missing: %v", err)
	}
	for _, c := range []struct {
		name string
		opts cache.SharedIndexInformerOptions[*corev1.Pod]
		want string
	}{
		{"another type", cache.SharedIndexInformerOptions[*corev1.Pod]{AnyIndexers: cache.Indexers[*corev1.Node]{}},
			"AnyIndexers holds cache.Indexers[*k8s.io/api/core/v1.Node], want cache.Indexers[*k8s.io/api/core/v1.Pod]"},
		{"a name twice", cache.SharedIndexInformerOptions[*corev1.Pod]{Indexers: byNode, AnyIndexers: byNode},
			`index "node" given in both Indexers and AnyIndexers`},
	} {
		t.Run(c.name, func(t *testing.T) {
			bad := podInformer(seedServer(t), c.opts)
			if err := bad.LastError(); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("LastError() = %v, want it to contain %q", err, c.want)
			}
		})
	}
}
