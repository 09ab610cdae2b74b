package e2e

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net/http"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	samplesfake "github.com/typedinformer/typedinformer/examples/crd/pkg/generated/clientset/versioned/fake"
	"github.com/typedinformer/typedinformer/test/e2e/framework"
)

// Frames of an allocation's stack that tell which path decoded it.
const (
	// typedListOrWatch: a typed client's List or Watch (client-go's gentype,
	// which client-gen's clientsets and their fakes are built on), or the
	// goroutine that decodes a client-go watch stream.
	gentypePrefix      = "k8s.io/client-go/gentype."
	clientGoWatchFrame = "k8s.io/apimachinery/pkg/watch.(*StreamWatcher).receive"
	// wireFrame: runtime/wire, which decodes items straight into T.
	wirePrefix = "github.com/typedinformer/typedinformer/runtime/wire."
)

// TestGeneratedInformersSyncFromTheWire syncs generated informers over a
// real clientset (examples/crd's Foos, served as JSON, and kube/'s
// ConfigMaps, served as protobuf) with every allocation profiled, in both
// of the reflector's modes (a list then a watch, and a watch-list stream),
// and then receives one watch event. No allocation may happen under a
// typed client's List or Watch (so no list object, no Items array was
// built by the clientset, and no watch event decoded by client-go), and
// the objects must be allocated by runtime/wire. The same sync over
// examples/crd's fake clientset, which keeps the typed client's path, must
// allocate under the typed List and never under runtime/wire: the check
// sees the old path when it is taken.
func TestGeneratedInformersSyncFromTheWire(t *testing.T) {
	ctx := context.Background()
	ensureExampleCRDs(t)
	c, ns, label, foos := inNewNamespace(t, fooOps)
	cms := configMapOps(c, label)
	const n = 20
	foos.createN(t, ctx, ns, "foo-%d", n)
	cms.createN(t, ctx, ns, "cm-%d", n)

	type scenario struct {
		name      string
		watchList bool
		// run starts an informer and returns how many objects it caches and
		// a function creating one more object named name, which it then
		// receives.
		run func(t *testing.T) (cached func() int, more func(name string) error)
		// wire is whether the sync must go through runtime/wire (else
		// through the typed client).
		wire bool
	}
	fooInformerOf := func(t *testing.T) (func() int, func(string) error) {
		f := newSamplesFactory(c, withLabel(label))
		inf := fooInformer(f)
		runFactory(t, f)
		waitSynced(t, inf)
		return func() int { return len(inf.GetStore().List()) },
			func(name string) error { _, err := foos.create(ctx, ns, name, n); return err }
	}
	cmInformerOf := func(t *testing.T) (func() int, func(string) error) {
		f := newKubeFactory(c, withLabel(label))
		inf := configMapInformer(f)
		runFactory(t, f)
		waitSynced(t, inf)
		return func() int { return len(inf.GetStore().List()) },
			func(name string) error { _, err := cms.create(ctx, ns, name, n); return err }
	}
	fakeFooInformerOf := func(t *testing.T) (func() int, func(string) error) {
		objs, err := foos.list(ctx)
		if err != nil {
			t.Fatal(err)
		}
		client := samplesfake.NewClientset()
		for _, o := range objs {
			if _, err := client.SamplesV1alpha1().Foos(ns).Create(ctx, withoutTypeMeta(o), metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		f := newSamplesFactory(clients{samples: client}, withLabel(label))
		inf := fooInformer(f)
		runFactory(t, f)
		waitSynced(t, inf)
		return func() int { return len(inf.GetStore().List()) },
			func(name string) error {
				_, err := client.SamplesV1alpha1().Foos(ns).Create(ctx, &foo{ObjectMeta: metav1.ObjectMeta{
					Namespace: ns, Name: name, Labels: map[string]string{labelKey: label}}}, metav1.CreateOptions{})
				return err
			}
	}
	var scenarios []scenario
	for _, wl := range []bool{false, true} {
		scenarios = append(scenarios,
			scenario{name: "Foos as JSON", watchList: wl, run: fooInformerOf, wire: true},
			scenario{name: "ConfigMaps as protobuf", watchList: wl, run: cmInformerOf, wire: true})
	}
	scenarios = append(scenarios, scenario{name: "Foos over the fake clientset", run: fakeFooInformerOf})

	created := map[bool]int{} // objects created so far, by whether Foos
	for i, sc := range scenarios {
		foo := sc.name != "ConfigMaps as protobuf"
		want := n + created[foo]
		created[foo]++
		mode := "list then watch"
		if sc.watchList {
			mode = "watch-list"
		}
		t.Run(sc.name+", "+mode, func(t *testing.T) {
			t.Setenv("KUBE_FEATURE_WatchListClient", strconv.FormatBool(sc.watchList))
			var cached func() int
			stacks := profileAllocations(t, func() {
				var more func(string) error
				cached, more = sc.run(t)
				if got := cached(); got != want {
					t.Fatalf("synced %d objects, want %d", got, want)
				}
				if err := more(fmt.Sprintf("more-%d", i)); err != nil {
					t.Fatal(err)
				}
				eventually(t, time.Minute, "the informer receives the new object", func() error {
					if got := cached(); got != want+1 {
						return fmt.Errorf("%d objects cached, want %d", got, want+1)
					}
					return nil
				})
			})
			var typed, wire int64
			var firstTyped string
			for _, s := range stacks {
				if s.under(func(f string) bool {
					return f == clientGoWatchFrame || strings.HasPrefix(f, gentypePrefix) && (strings.HasSuffix(f, ").List") || strings.HasSuffix(f, ").Watch"))
				}) {
					if typed == 0 {
						firstTyped = s.String()
					}
					typed += s.objects
				}
				if s.under(func(f string) bool { return strings.HasPrefix(f, wirePrefix) }) {
					wire += s.objects
				}
			}
			t.Logf("objects allocated during the sync: %d under a typed List or Watch, %d under runtime/wire", typed, wire)
			switch {
			case sc.wire && typed > 0:
				t.Errorf("%d objects were allocated under a typed client's List or Watch; the first stack:\n%s", typed, firstTyped)
			case sc.wire && wire < int64(want):
				t.Errorf("only %d objects were allocated under runtime/wire, want at least the %d synced", wire, want)
			case !sc.wire && typed == 0:
				t.Error("nothing was allocated under the fake clientset's typed List: the check cannot see the typed client's path")
			case !sc.wire && wire > 0:
				t.Errorf("%d objects were allocated under runtime/wire over the fake clientset", wire)
			}
		})
	}
}

// allocStack is one stack of the allocation profile and how many objects
// were allocated there.
type allocStack struct {
	objects int64
	frames  []string // innermost first
}

// under reports whether a frame of s satisfies match.
func (s allocStack) under(match func(frame string) bool) bool {
	for _, f := range s.frames {
		if match(f) {
			return true
		}
	}
	return false
}

func (s allocStack) String() string {
	return fmt.Sprintf("%d objects at\n\t%s", s.objects, strings.Join(s.frames, "\n\t"))
}

// profileAllocations runs fn with every allocation sampled
// (runtime.MemProfileRate 1) and returns the stacks of what fn's run
// allocated: the allocation profile after it minus the one before. The
// tests of this package run one at a time, so nothing else allocates under
// the frames the caller looks for.
func profileAllocations(t *testing.T, fn func()) []allocStack {
	t.Helper()
	rate := runtime.MemProfileRate
	runtime.MemProfileRate = 1
	defer func() { runtime.MemProfileRate = rate }()
	before := allocProfile(t)
	fn()
	after := allocProfile(t)
	var out []allocStack
	for key, s := range after {
		if b, ok := before[key]; ok {
			s.objects -= b.objects
		}
		if s.objects > 0 {
			out = append(out, s)
		}
	}
	return out
}

// allocProfile reads the "allocs" profile (cumulative allocations) once
// the garbage collector has published every allocation made so far, keyed
// by the stack's program counters.
func allocProfile(t *testing.T) map[string]allocStack {
	t.Helper()
	// A profile is published at the end of a GC cycle and may be two
	// cycles old.
	for range 3 {
		runtime.GC()
	}
	var buf bytes.Buffer
	if err := pprof.Lookup("allocs").WriteTo(&buf, 1); err != nil {
		t.Fatal(err)
	}
	out := map[string]allocStack{}
	var key string
	var cur allocStack
	flush := func() {
		if key != "" {
			prev := out[key]
			cur.objects += prev.objects
			out[key] = cur
		}
		key, cur = "", allocStack{}
	}
	sc := bufio.NewScanner(&buf)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "#\t"):
			// #	0x4a1b2c	pkg.Func+0x1c	/path/file.go:12
			if key == "" {
				continue
			}
			if f := strings.Fields(line); len(f) >= 3 {
				fn := f[2]
				if i := strings.LastIndex(fn, "+0x"); i > 0 {
					fn = fn[:i]
				}
				cur.frames = append(cur.frames, fn)
			}
		case strings.Contains(line, " @ ") && strings.Contains(line, "["):
			// in-use objects: bytes [allocated objects: bytes] @ pc...
			flush()
			counts, pcs, _ := strings.Cut(line, " @ ")
			_, allocated, _ := strings.Cut(counts, "[")
			objects, _, _ := strings.Cut(allocated, ":")
			if n, err := strconv.ParseInt(strings.TrimSpace(objects), 10, 64); err == nil {
				cur.objects = n
				key = pcs
			}
		case line == "":
			flush()
		}
	}
	flush()
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestCompactionRelistsGeneratedInformer is TestCompactionForcesRelist
// through kube/'s generated PodTemplate informer on a real clientset, so
// on runtime/wire: cut off from the server while objects change and etcd
// is compacted past its resourceVersion, the informer must find its watch
// expired once it reconnects and relist (a list or watch-list request
// after the heal) to exactly the server's objects, the deletes it missed
// arriving as OnDelete with finalStateUnknown, which only a relist
// produces. PodTemplates have no watch cache in this cluster, so the watch
// is served by etcd and sees the compaction.
func TestCompactionRelistsGeneratedInformer(t *testing.T) {
	ctx := context.Background()
	c := admin(t)
	label := testLabel(t)
	partition := framework.NewPartition()
	log := &requestLog{}
	cfg := log.recording(cluster.AdminConfig())
	cfg.Dial = partition.Dial
	f := newKubeFactory(newClients(t, cfg), withLabel(label))
	inf := factoryPodTemplateInformer(f)
	s := &outage[*podTemplate]{
		watched:    watched[*podTemplate]{label: label, o: podTemplateOps(c, label), inf: inf, start: func() { runFactory(t, f) }},
		namespaces: testNamespaces(t, c, 2),
	}
	s.prepare(t)
	watchedRV := syncedRV(t, inf)

	partition.Cut()
	s.change(t, s.o)
	rev := compactPast(ctx, t, watchedRV)
	before := len(log.of("podtemplates"))
	partition.Heal()

	s.verify(t)
	after := log.of("podtemplates")[before:]
	relisted := false
	for _, r := range after {
		if (!r.watch || r.sendInitial) && r.status == http.StatusOK {
			relisted = true
		}
	}
	if !relisted {
		t.Errorf("no successful list or watch-list after compacting etcd at %d past resourceVersion %d: %v", rev, watchedRV, after)
	}
	t.Logf("PodTemplate requests after the heal: %v", after)
}
