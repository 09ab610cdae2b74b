package scenario

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	cgcache "k8s.io/client-go/tools/cache"

	"github.com/typedinformer/typedinformer/bench/wirerest"
	"github.com/typedinformer/typedinformer/runtime/cache"
	"github.com/typedinformer/typedinformer/runtime/lean"
	"github.com/typedinformer/typedinformer/runtime/wire"
)

// Wire sync modes: how a side syncs in the wire scenario.
const (
	// WireList lists, then watches (client-go with its WatchListClient gate
	// off; ours with DisableWatchList).
	WireList = "list"
	// WireWatchList streams the initial state: both sides' default.
	WireWatchList = "watchlist"
	// WireLean is ours streaming, with the lean.Default() transform.
	WireLean = "lean"
	// WireFloor is no informer and no HTTP: the generated
	// (*corev1.Pod).Unmarshal over the bytes of every item of the protobuf
	// list response, read into memory first.
	WireFloor = "floor"
)

// WireOptions selects one wire run.
type WireOptions struct {
	Side Side
	Enc  string // EncJSON or EncProtobuf
	Sync string // WireList, WireWatchList, WireLean or WireFloor
	Pods string // PodsTwoManagers or PodsRich
	N    int
	Dir  string // written by WriteWireFixture
	// CPUProfile, when set, is a file to write a CPU profile of the sync
	// span (from starting the informer until it synced) to.
	CPUProfile string
}

// WireResult is one wire run: Pods served over HTTP by a real server in
// this process, read by a real client-go clientset, cached by side.
type WireResult struct {
	Side Side   `json:"side"`
	Enc  string `json:"enc"`
	Sync string `json:"sync"`
	Pods string `json:"pods"`
	N    int    `json:"n"`
	// SyncSeconds runs from starting the informer to its handler having
	// seen all N adds and HasSynced (for WireFloor: the time to unmarshal
	// every item); SyncCPUSeconds is the process's user and system CPU time
	// over the same span (the server's share included, the same on both
	// sides).
	SyncSeconds    float64 `json:"syncSeconds"`
	SyncCPUSeconds float64 `json:"syncCPUSeconds"`
	// SyncPeakRSS is the process's peak RSS (VmHWM) right after the sync;
	// BaseRSS its RSS when the informer starts (the program, the runtime,
	// the server and the clientset, before any Pod).
	SyncPeakRSS uint64 `json:"syncPeakRSS"`
	BaseRSS     uint64 `json:"baseRSS"`
	// BaseHeap and SyncedHeap are the live heap (after two GCs) before the
	// clientset exists and after the sync.
	BaseHeap   uint64 `json:"baseHeap"`
	SyncedHeap uint64 `json:"syncedHeap"`
	// Lists and WatchLists count the lists and watch-lists served per
	// encoding, Watches the plain watches, and Accepts holds the Accept
	// headers of the lists and watch-lists.
	Lists   map[string]int `json:"lists"`
	Watches int            `json:"watches"`
	// WithManagedFields counts the added Pods that still had managedFields
	// when the handler saw them (none in lean mode).
	WithManagedFields int            `json:"withManagedFields"`
	WatchLists        map[string]int `json:"watchLists"`
	Accepts           []string       `json:"accepts"`
}

// SyncedPerObject is the heap per cached object after the sync.
func (r WireResult) SyncedPerObject() float64 {
	return (float64(r.SyncedHeap) - float64(r.BaseHeap)) / float64(r.N)
}

// Wire syncs o.Side's Pod informer in mode o.Sync over the first o.N Pods
// of the fixture o.Pods served from o.Dir as o.Enc: for JSON both sides'
// rest.Config set ContentType to JSON; for protobuf neither sets it, and
// both prefer protobuf as client-go's clientset does for Pods. Ours lists
// and watches through runtime/wire over the clientset's REST client;
// client-go through the typed clientset. It must run in a fresh process:
// for WireList it turns client-go's watch-list streaming off through the
// environment, which client-go reads once per process.
func Wire(o WireOptions) (WireResult, error) {
	res := WireResult{Side: o.Side, Enc: o.Enc, Sync: o.Sync, Pods: o.Pods, N: o.N}
	if o.Enc != EncJSON && o.Enc != EncProtobuf {
		return res, fmt.Errorf("wire: unknown encoding %q", o.Enc)
	}
	if _, err := wirePodFunc(o.Pods); err != nil {
		return res, err
	}
	switch {
	case o.Sync == WireFloor && o.Enc == EncProtobuf:
		return wireFloor(o, res)
	case o.Sync == WireList:
		os.Setenv("KUBE_FEATURE_WatchListClient", "false")
	case o.Sync == WireWatchList, o.Sync == WireLean && o.Side == Ours:
	default:
		return res, fmt.Errorf("wire: no sync mode %q for %s over %s", o.Sync, o.Side, o.Enc)
	}
	srv := newWireServer(o.Dir, o.Pods, o.N)
	defer srv.Close()

	res.BaseHeap = liveHeap()
	cfg := &rest.Config{Host: srv.URL, QPS: -1}
	ourCT := ""
	if o.Enc == EncJSON {
		cfg.ContentType = "application/json"
		ourCT = wire.ContentTypeJSON
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return res, err
	}
	var adds, withMF atomic.Int64
	add := func(p *corev1.Pod) {
		if len(p.ManagedFields) > 0 {
			withMF.Add(1)
		}
		adds.Add(1)
	}
	var run func(ctx context.Context)
	var synced func() bool
	switch o.Side {
	case Ours:
		lw, err := wire.NewListWatch[corev1.Pod](wirerest.Fetch(cs.CoreV1().RESTClient(), metav1.NamespaceAll, "pods", scheme.ParameterCodec),
			wire.Options{ContentType: ourCT})
		if err != nil {
			return res, err
		}
		inf := cache.NewSharedIndexInformerWithOptions[*corev1.Pod](lw,
			cache.SharedIndexInformerOptions[*corev1.Pod]{Reflector: cache.ReflectorOptions{DisableWatchList: o.Sync == WireList}})
		if o.Sync == WireLean {
			if err := inf.SetTransform(lean.Transform[*corev1.Pod](lean.Default())); err != nil {
				return res, err
			}
		}
		if _, err := inf.AddEventHandler(cache.ResourceEventHandlerDetailedFuncs[*corev1.Pod]{
			AddFunc: func(p *corev1.Pod, _ bool) { add(p) },
		}); err != nil {
			return res, err
		}
		run, synced = inf.Run, inf.HasSynced
	default:
		pods := cs.CoreV1().Pods(metav1.NamespaceAll)
		lw := cgcache.ToListWatcherWithWatchListSemantics(&cgcache.ListWatch{
			ListWithContextFunc:  func(ctx context.Context, o metav1.ListOptions) (k8sruntime.Object, error) { return pods.List(ctx, o) },
			WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) { return pods.Watch(ctx, o) },
		}, cs)
		inf := cgcache.NewSharedIndexInformer(lw, &corev1.Pod{}, 0, cgcache.Indexers{cgcache.NamespaceIndex: cgcache.MetaNamespaceIndexFunc})
		if _, err := inf.AddEventHandler(cgcache.ResourceEventHandlerFuncs{AddFunc: func(obj any) { add(obj.(*corev1.Pod)) }}); err != nil {
			return res, err
		}
		run, synced = inf.RunWithContext, inf.HasSynced
	}

	stopProfile, err := startCPUProfile(o.CPUProfile)
	if err != nil {
		return res, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	res.BaseRSS = currentRSS()
	cpu0 := cpuSeconds()
	start := time.Now()
	go func() { defer close(done); run(ctx) }()
	defer func() { cancel(); <-done }()
	deadline := time.Now().Add(10 * time.Minute)
	for adds.Load() != int64(o.N) || !synced() {
		if time.Now().After(deadline) {
			stopProfile() //nolint:errcheck // the timeout is the error
			return res, fmt.Errorf("wire %s %s %s n=%d: timed out waiting for the sync (%d adds)", o.Side, o.Sync, o.Enc, o.N, adds.Load())
		}
		time.Sleep(time.Millisecond)
	}
	res.SyncSeconds = time.Since(start).Seconds()
	res.SyncCPUSeconds = cpuSeconds() - cpu0
	if err := stopProfile(); err != nil {
		return res, err
	}
	res.WithManagedFields = int(withMF.Load())
	res.SyncPeakRSS = peakRSS()
	res.SyncedHeap = liveHeap()
	res.Lists, res.Watches, res.WatchLists, res.Accepts = srv.served()
	runtime.KeepAlive(cs)
	return res, nil
}

// startCPUProfile starts a CPU profile into path, if set, and returns what
// stops it and closes the file.
func startCPUProfile(path string) (stop func() error, err error) {
	if path == "" {
		return func() error { return nil }, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("CPU profile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("CPU profile %s: %w", path, err)
	}
	return func() error {
		pprof.StopCPUProfile()
		return f.Close()
	}, nil
}

// wireFloor times the generated (*corev1.Pod).Unmarshal over the bytes of
// every item of the protobuf list response, read into memory first, keeping
// every Pod as a cache would.
func wireFloor(o WireOptions, res WireResult) (WireResult, error) {
	b, err := os.ReadFile(wireListPath(o.Dir, o.Pods, EncProtobuf, o.N))
	if err != nil {
		return res, err
	}
	items, err := protoListItems(b)
	if err != nil {
		return res, fmt.Errorf("wire floor: %w", err)
	}
	if len(items) != o.N {
		return res, fmt.Errorf("wire floor: the list holds %d items, want %d", len(items), o.N)
	}
	res.BaseHeap = liveHeap()
	pods := make([]*corev1.Pod, 0, len(items))
	stopProfile, err := startCPUProfile(o.CPUProfile)
	if err != nil {
		return res, err
	}
	cpu0 := cpuSeconds()
	start := time.Now()
	for i, it := range items {
		p := &corev1.Pod{}
		if err := p.Unmarshal(it); err != nil {
			stopProfile() //nolint:errcheck // the decoding error is the error
			return res, fmt.Errorf("wire floor: item %d: %w", i, err)
		}
		pods = append(pods, p)
	}
	res.SyncSeconds = time.Since(start).Seconds()
	res.SyncCPUSeconds = cpuSeconds() - cpu0
	if err := stopProfile(); err != nil {
		return res, err
	}
	res.SyncPeakRSS = peakRSS()
	res.SyncedHeap = liveHeap()
	runtime.KeepAlive(pods)
	runtime.KeepAlive(b)
	return res, nil
}

// protoListItems returns the bytes of every item of a protobuf list
// response ("k8s\x00", a runtime.Unknown whose raw bytes are a list with
// its items in field 2); the slices alias b.
func protoListItems(b []byte) ([][]byte, error) {
	raw, ok := bytes.CutPrefix(b, []byte("k8s\x00"))
	if !ok {
		return nil, errors.New("the response does not start with the Kubernetes protobuf prefix")
	}
	list, err := protoFieldBytes(raw, 2, nil)
	if err != nil {
		return nil, fmt.Errorf("runtime.Unknown: %w", err)
	}
	var items [][]byte
	if _, err := protoFieldBytes(list, 2, func(v []byte) { items = append(items, v) }); err != nil {
		return nil, fmt.Errorf("list: %w", err)
	}
	return items, nil
}

// protoFieldBytes walks the fields of the protobuf message b, calls each
// (if set) with every length-delimited value of field, and returns the
// last one. Only the wire types the API's messages use are accepted.
func protoFieldBytes(b []byte, field uint64, each func([]byte)) ([]byte, error) {
	var last []byte
	for len(b) > 0 {
		key, n := binary.Uvarint(b)
		if n <= 0 {
			return nil, errors.New("a malformed field key")
		}
		b = b[n:]
		switch key & 7 {
		case 0:
			if _, n = binary.Uvarint(b); n <= 0 {
				return nil, fmt.Errorf("field %d: a malformed varint", key>>3)
			}
			b = b[n:]
		case 2:
			l, n := binary.Uvarint(b)
			if n <= 0 || l > uint64(len(b)-n) {
				return nil, fmt.Errorf("field %d: a malformed length", key>>3)
			}
			v := b[n : n+int(l)]
			b = b[n+int(l):]
			if key>>3 == field {
				last = v
				if each != nil {
					each(v)
				}
			}
		default:
			return nil, fmt.Errorf("field %d: unexpected wire type %d", key>>3, key&7)
		}
	}
	return last, nil
}
