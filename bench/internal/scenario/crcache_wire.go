package scenario

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"runtime"
	"runtime/pprof"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/typedinformer/typedinformer/bench/internal/fixture"
	"github.com/typedinformer/typedinformer/crcache"
	samplesv1alpha1 "github.com/typedinformer/typedinformer/examples/crd/apis/samples/v1alpha1"
)

// Whole-cache modes: which cache.NewCacheFunc builds a manager's cache.
// ModeCRDefault (controller-runtime's cache.New with its defaults) is the
// anchor.
const (
	// ModeCRCache is crcache.New with its defaults.
	ModeCRCache = "crcache"
	// ModeCRCacheLean is crcache.New with its lean informers:
	// cache.Options.NewInformer set to
	// clientgo.NewInformerFunc(clientgo.WithLean(lean.Default())).
	ModeCRCacheLean = "crcache-lean"
)

// Objects a whole cache is asked for in CRWire.
const (
	// CRObjPods is typed Pods, served as protobuf.
	CRObjPods = "pods"
	// CRObjFoos is examples/crd's Foo custom resource, served as JSON.
	CRObjFoos = "foos"
	// CRObjUnstructured is Pods as *unstructured.Unstructured, served as JSON.
	CRObjUnstructured = "unstructured"
)

// FoosFixture names the Foo fixture files WriteFooFixture writes.
const FoosFixture = "foos"

// fooPath is the collection path of Foos across all namespaces.
const fooPath = "/apis/" + samplesv1alpha1.GroupName + "/v1alpha1/foos"

// CRNewCache returns the cache.NewCacheFunc and options a manager in mode
// would use: cache.New or crcache.New, with the lean informers for
// ModeCRCacheLean, and for ModeCROurs and ModeCROursLean cache.New with the
// informers crNewInformer names.
func CRNewCache(mode string) (cache.NewCacheFunc, cache.Options, error) {
	switch mode {
	case ModeCRDefault:
		return cache.New, cache.Options{}, nil
	case ModeCROurs, ModeCROursLean:
		f, err := crNewInformer(mode)
		return cache.New, cache.Options{NewInformer: f}, err
	case ModeCRCache:
		return crcache.New, cache.Options{}, nil
	case ModeCRCacheLean:
		f, err := crNewInformer(ModeCROursLean)
		return crcache.New, cache.Options{NewInformer: f}, err
	}
	return nil, cache.Options{}, fmt.Errorf("no cache mode %q (want %s, %s, %s, %s or %s)", mode, ModeCRDefault, ModeCROurs, ModeCROursLean, ModeCRCache, ModeCRCacheLean)
}

// CRWireOptions selects one CRWire run.
type CRWireOptions struct {
	Mode   string // ModeCRDefault, ModeCRCache or ModeCRCacheLean
	Object string // CRObjPods, CRObjFoos or CRObjUnstructured
	N      int
	// Dir holds WriteWireFixture's PodsTwoManagers files and
	// WriteFooFixture's, both of size N.
	Dir string
	// ReadFor is the least time each read (CRObjPods only) is timed for;
	// zero skips the reads.
	ReadFor time.Duration
	// SyncTimeout bounds the wait for the sync; zero is ten minutes.
	SyncTimeout time.Duration
	// HeapProfile, when set, is a file to write a heap profile to right
	// after the sync, while the cache holds every object.
	HeapProfile string
}

// CRWireResult is one CRWire run.
type CRWireResult struct {
	Mode   string `json:"mode"`
	Object string `json:"object"`
	N      int    `json:"n"`
	// SyncSeconds runs from starting the cache to its informer's HasSynced
	// (WaitForCacheSync then returns true).
	SyncSeconds float64 `json:"syncSeconds"`
	// SyncCPUSeconds is the process's user and system CPU time over the
	// same span (the in-process server's share included, the same for
	// every mode).
	SyncCPUSeconds float64 `json:"syncCPUSeconds"`
	// SyncPeakRSS is VmHWM right after the sync, BaseRSS VmRSS when the
	// cache starts.
	SyncPeakRSS uint64 `json:"syncPeakRSS"`
	BaseRSS     uint64 `json:"baseRSS"`
	// BaseHeap and SyncedHeap are the live heap before the cache exists and
	// after the sync.
	BaseHeap   uint64 `json:"baseHeap"`
	SyncedHeap uint64 `json:"syncedHeap"`
	// CachePkg and InformerPkg are the packages of the cache's and the
	// informer's types: which implementation ran.
	CachePkg    string `json:"cachePkg"`
	InformerPkg string `json:"informerPkg"`
	// Lists and WatchLists count the lists and watch-lists served per
	// encoding.
	Lists      map[string]int `json:"lists"`
	WatchLists map[string]int `json:"watchLists"`
	// The reads (CRObjPods with ReadFor set): List of one namespace
	// (ListItems Pods each), Get of single Pods; wall time, the process's
	// CPU time and heap allocations per call, and the Gets timed.
	ListItems   int     `json:"listItems,omitempty"`
	ListNs      float64 `json:"listNs,omitempty"`
	ListCPUNs   float64 `json:"listCPUNs,omitempty"`
	ListAllocs  float64 `json:"listAllocs,omitempty"`
	GetNs       float64 `json:"getNs,omitempty"`
	GetCPUNs    float64 `json:"getCPUNs,omitempty"`
	GetAllocs   float64 `json:"getAllocs,omitempty"`
	ReadLookups int     `json:"readLookups,omitempty"`
	// GotManagedFields is how many managedFields entries the first Pod Get
	// returned had (none when the cache is lean).
	GotManagedFields int `json:"gotManagedFields,omitempty"`
}

// SyncedPerObject is the heap per cached object after the sync.
func (r CRWireResult) SyncedPerObject() float64 {
	return (float64(r.SyncedHeap) - float64(r.BaseHeap)) / float64(r.N)
}

// crWireScheme is client-go's scheme plus examples/crd's samples group.
func crWireScheme() (*kruntime.Scheme, error) {
	s := kruntime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		return nil, err
	}
	if err := samplesv1alpha1.Install(s); err != nil {
		return nil, err
	}
	return s, nil
}

// CRWire builds a manager's cache in o.Mode over a real HTTP server (in
// this process) serving the first o.N objects of o.Object, asks it for an
// informer of that object, starts it and waits for it to sync; for Pods it
// then times List of one namespace and Get. The RESTMapper is static
// (Pods and Foos, namespaced): no discovery. Every other option is the
// NewCacheFunc's default, as a manager leaves it.
func CRWire(o CRWireOptions) (CRWireResult, error) {
	res := CRWireResult{Mode: o.Mode, Object: o.Object, N: o.N}
	if o.Mode != ModeCRDefault && o.Mode != ModeCRCache && o.Mode != ModeCRCacheLean {
		return res, fmt.Errorf("crwire: no mode %q (want %s, %s or %s)", o.Mode, ModeCRDefault, ModeCRCache, ModeCRCacheLean)
	}
	newCache, opts, err := CRNewCache(o.Mode)
	if err != nil {
		return res, err
	}
	var obj client.Object
	var srv *wireServer
	switch o.Object {
	case CRObjPods:
		obj, srv = &corev1.Pod{}, newWireServer(o.Dir, PodsTwoManagers, o.N)
	case CRObjUnstructured:
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("Pod"))
		obj, srv = u, newWireServer(o.Dir, PodsTwoManagers, o.N)
	case CRObjFoos:
		obj, srv = &samplesv1alpha1.Foo{}, newWireServerFor(o.Dir, FoosFixture, fooPath, o.N)
	default:
		return res, fmt.Errorf("crwire: no object %q (want %s, %s or %s)", o.Object, CRObjPods, CRObjFoos, CRObjUnstructured)
	}
	defer srv.Close()

	res.BaseHeap = liveHeap()
	scheme, err := crWireScheme()
	if err != nil {
		return res, err
	}
	mapper := meta.NewDefaultRESTMapper(nil)
	mapper.Add(corev1.SchemeGroupVersion.WithKind("Pod"), meta.RESTScopeNamespace)
	mapper.Add(schema.GroupVersion(samplesv1alpha1.GroupVersion).WithKind("Foo"), meta.RESTScopeNamespace)
	opts.Scheme, opts.Mapper = scheme, mapper
	c, err := newCache(&rest.Config{Host: srv.URL, QPS: -1}, opts)
	if err != nil {
		return res, fmt.Errorf("crwire %s: %w", o.Mode, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	inf, err := c.GetInformer(ctx, obj)
	if err != nil {
		cancel()
		return res, fmt.Errorf("crwire %s %s: GetInformer: %w", o.Mode, o.Object, err)
	}
	done := make(chan error, 1)
	res.BaseRSS = currentRSS()
	cpu0 := cpuSeconds()
	start := time.Now()
	go func() { done <- c.Start(ctx) }()
	defer func() { cancel(); <-done }()
	timeout := o.SyncTimeout
	if timeout == 0 {
		timeout = 10 * time.Minute
	}
	// WaitForCacheSync polls every 100 ms on both sides: the informer's
	// HasSynced, polled every millisecond, times the sync itself.
	deadline := start.Add(timeout)
	for !inf.HasSynced() && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	res.SyncSeconds = time.Since(start).Seconds()
	res.SyncCPUSeconds = cpuSeconds() - cpu0
	syncCtx, syncCancel := context.WithDeadline(ctx, deadline)
	synced := c.WaitForCacheSync(syncCtx)
	syncCancel()
	if !synced {
		return res, fmt.Errorf("crwire %s %s n=%d: the cache did not sync", o.Mode, o.Object, o.N)
	}
	res.SyncPeakRSS = peakRSS()
	res.SyncedHeap = liveHeap()
	if err := writeHeapProfile(o.HeapProfile); err != nil {
		return res, err
	}
	res.Lists, _, res.WatchLists, _ = srv.served()
	res.CachePkg, res.InformerPkg = pkgOf(c), pkgOf(inf)

	st, ok := inf.(interface{ GetStore() toolscache.Store })
	if !ok {
		return res, fmt.Errorf("crwire %s: the informer %T has no store to count", o.Mode, inf)
	}
	if got := len(st.GetStore().ListKeys()); got != o.N {
		return res, fmt.Errorf("crwire %s %s: the synced cache holds %d objects, want %d", o.Mode, o.Object, got, o.N)
	}
	if o.Object == CRObjPods && o.ReadFor > 0 {
		if err := crReads(ctx, c, o, &res); err != nil {
			return res, fmt.Errorf("crwire %s: %w", o.Mode, err)
		}
	}
	runtime.KeepAlive(c)
	return res, nil
}

// crReads times List of namespace fixture.NamespaceOf(0) and Get of Pods
// spread over the fixture, each for at least o.ReadFor, checking what
// they return.
func crReads(ctx context.Context, c client.Reader, o CRWireOptions, res *CRWireResult) error {
	ns := fixture.NamespaceOf(0)
	want := (o.N + fixture.Namespaces - 1) / fixture.Namespaces
	var list corev1.PodList
	listOnce := func(int) error {
		list = corev1.PodList{}
		if err := c.List(ctx, &list, client.InNamespace(ns)); err != nil {
			return fmt.Errorf("list in %s: %w", ns, err)
		}
		if len(list.Items) != want {
			return fmt.Errorf("list in %s: %d Pods, want %d", ns, len(list.Items), want)
		}
		return nil
	}
	rt, err := timeRead(o.ReadFor, listOnce)
	if err != nil {
		return err
	}
	res.ListNs, res.ListCPUNs, res.ListAllocs, res.ListItems = rt.ns, rt.cpuNs, rt.allocs, want

	keys := make([]types.NamespacedName, 0, 1000)
	for i := 0; i < o.N && len(keys) < cap(keys); i += max(1, o.N/cap(keys)) {
		p := WirePod(i)
		keys = append(keys, types.NamespacedName{Namespace: p.Namespace, Name: p.Name})
	}
	var pod corev1.Pod
	getOnce := func(i int) error {
		k := keys[i%len(keys)]
		pod = corev1.Pod{}
		if err := c.Get(ctx, k, &pod); err != nil {
			return fmt.Errorf("get %s: %w", k, err)
		}
		if pod.Name != k.Name || pod.Namespace != k.Namespace {
			return fmt.Errorf("get %s: got %s/%s", k, pod.Namespace, pod.Name)
		}
		return nil
	}
	if err := getOnce(0); err != nil {
		return err
	}
	res.GotManagedFields = len(pod.ManagedFields)
	if rt, err = timeRead(o.ReadFor, getOnce); err != nil {
		return err
	}
	res.GetNs, res.GetCPUNs, res.GetAllocs, res.ReadLookups = rt.ns, rt.cpuNs, rt.allocs, rt.calls
	return nil
}

// writeHeapProfile writes the heap profile to path, if set.
func writeHeapProfile(path string) error {
	if path == "" {
		return nil
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("heap profile: %w", err)
	}
	if err := pprof.WriteHeapProfile(f); err != nil {
		f.Close()
		return fmt.Errorf("heap profile %s: %w", path, err)
	}
	return f.Close()
}

// pkgOf is the import path of the package declaring v's type (its element
// type for a pointer).
func pkgOf(v any) string {
	t := reflect.TypeOf(v)
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.PkgPath()
}

// readTiming is what timeRead measures per call: wall time, the process's
// CPU time (user and system, the GC's included), heap allocations.
type readTiming struct {
	ns, cpuNs, allocs float64
	calls             int
}

// timeRead calls op (with the call's number) once to warm up, then in
// doubling batches until at least minDur has passed.
func timeRead(minDur time.Duration, op func(int) error) (rt readTiming, err error) {
	if err := op(0); err != nil {
		return rt, err
	}
	runtime.GC()
	m0, _ := mallocs()
	cpu0 := cpuSeconds()
	start := time.Now()
	calls := 0
	for batch := 1; ; batch *= 2 {
		for i := 0; i < batch; i++ {
			if err := op(calls); err != nil {
				return rt, err
			}
			calls++
		}
		if time.Since(start) >= minDur {
			break
		}
	}
	elapsed := time.Since(start)
	cpu := cpuSeconds() - cpu0
	m1, _ := mallocs()
	c := float64(calls)
	return readTiming{ns: float64(elapsed.Nanoseconds()) / c, cpuNs: cpu * 1e9 / c, allocs: float64(m1-m0) / c, calls: calls}, nil
}

// WireFoo is Foo i of the Foo fixture: examples/crd's Foo as an API server
// stores one a controller has reconciled, with the managedFields of the
// client that created it (the same document for every Foo) and of the
// controller's status updates.
func WireFoo(i int) samplesv1alpha1.Foo {
	name := fmt.Sprintf("foo-%06d", i)
	at := metav1.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC).Add(time.Duration(i) * time.Second))
	class := "class-" + strconv.Itoa(i%10)
	return samplesv1alpha1.Foo{
		TypeMeta: metav1.TypeMeta{Kind: "Foo", APIVersion: samplesv1alpha1.GroupVersion.String()},
		ObjectMeta: metav1.ObjectMeta{
			Name:              name,
			Namespace:         fixture.NamespaceOf(i),
			UID:               types.UID(fmt.Sprintf("8a1e2b3c-4d5e-4f60-8172-%012d", i)),
			ResourceVersion:   strconv.Itoa(decodeRV),
			Generation:        1,
			CreationTimestamp: at,
			Labels:            map[string]string{"app.kubernetes.io/name": "svc-" + strconv.Itoa(i%500), "app.kubernetes.io/part-of": "shop"},
			ManagedFields: []metav1.ManagedFieldsEntry{
				{Manager: "kubectl-client-side-apply", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: samplesv1alpha1.GroupVersion.String(),
					Time: &at, FieldsType: "FieldsV1", FieldsV1: metav1.NewFieldsV1(
						`{"f:metadata":{"f:labels":{".":{},"f:app.kubernetes.io/name":{},"f:app.kubernetes.io/part-of":{}}},"f:spec":{".":{},"f:className":{},"f:configMapName":{},"f:data":{".":{},"f:mode":{},"f:replicas":{},"f:tier":{}}}}`)},
				{Manager: "foo-controller", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: samplesv1alpha1.GroupVersion.String(),
					Time: &at, FieldsType: "FieldsV1", Subresource: "status", FieldsV1: metav1.NewFieldsV1(
						`{"f:status":{".":{},"f:configMapName":{},"f:message":{},"f:observedGeneration":{},"f:phase":{}}}`)},
			},
		},
		Spec: samplesv1alpha1.FooSpec{
			ConfigMapName: name + "-config",
			Data:          map[string]string{"mode": "active", "replicas": strconv.Itoa(1 + i%5), "tier": "backend"},
			ClassName:     class,
		},
		Status: samplesv1alpha1.FooStatus{
			ObservedGeneration: 1,
			ConfigMapName:      name + "-config",
			Phase:              "Ready",
			Message:            "ConfigMap " + name + "-config matches the spec and " + class,
		},
	}
}

// WriteFooFixture writes, for each size, the JSON list response and the
// JSON watch-list stream of the first n WireFoo into dir, as the API server
// writes them for a custom resource (every item with its kind and
// apiVersion), for a wireServer of the Foo collection.
func WriteFooFixture(dir string, sizes ...int) error {
	for _, n := range sizes {
		if err := writeFooList(wireListPath(dir, FoosFixture, EncJSON, n), n); err != nil {
			return fmt.Errorf("the list of %d Foos: %w", n, err)
		}
		if err := writeFooStream(wireStreamPath(dir, FoosFixture, EncJSON, n), n); err != nil {
			return fmt.Errorf("the watch-list stream of %d Foos: %w", n, err)
		}
	}
	return nil
}

func writeFooList(path string, n int) error {
	return writeJSONList(path, "FooList", samplesv1alpha1.GroupVersion.String(), n, WireFoo)
}

func writeFooStream(path string, n int) (err error) {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	w := bufio.NewWriterSize(f, 1<<20)
	event := func(typ string, foo *samplesv1alpha1.Foo) error {
		b, err := json.Marshal(foo)
		if err != nil {
			return err
		}
		e, err := json.Marshal(&metav1.WatchEvent{Type: typ, Object: kruntime.RawExtension{Raw: b}})
		if err != nil {
			return err
		}
		w.Write(e)
		return w.WriteByte('\n')
	}
	for i := 0; i < n; i++ {
		foo := WireFoo(i)
		if err := event(string(watch.Added), &foo); err != nil {
			return fmt.Errorf("item %d: %w", i, err)
		}
	}
	bookmark := &samplesv1alpha1.Foo{
		TypeMeta: metav1.TypeMeta{Kind: "Foo", APIVersion: samplesv1alpha1.GroupVersion.String()},
		ObjectMeta: metav1.ObjectMeta{ResourceVersion: strconv.Itoa(decodeRV),
			Annotations: map[string]string{metav1.InitialEventsAnnotationKey: "true"}},
	}
	if err := event(string(watch.Bookmark), bookmark); err != nil {
		return fmt.Errorf("bookmark: %w", err)
	}
	return w.Flush()
}
