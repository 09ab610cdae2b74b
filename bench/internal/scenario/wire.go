package scenario

import (
	"context"
	"fmt"
	"os"
	"runtime"
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
	"github.com/typedinformer/typedinformer/runtime/wire"
)

// WireResult is one wire run: Pods served over HTTP by a real server in
// this process, read by a real client-go clientset, cached by side.
type WireResult struct {
	Side Side   `json:"side"`
	Enc  string `json:"enc"`
	N    int    `json:"n"`
	// SyncSeconds runs from starting the informer to its handler having
	// seen all N adds and HasSynced; SyncCPUSeconds is the process's user
	// and system CPU time over the same span (the server's share included,
	// the same on both sides).
	SyncSeconds    float64 `json:"syncSeconds"`
	SyncCPUSeconds float64 `json:"syncCPUSeconds"`
	// SyncPeakRSS is the process's peak RSS (VmHWM) right after the sync.
	SyncPeakRSS uint64 `json:"syncPeakRSS"`
	// BaseHeap and SyncedHeap are the live heap (after two GCs) before the
	// clientset exists and after the sync.
	BaseHeap   uint64 `json:"baseHeap"`
	SyncedHeap uint64 `json:"syncedHeap"`
	// Lists counts the lists served per encoding, Watches the watches,
	// WatchLists the watch-list requests refused (none when the side's
	// watch-list streaming is off, as it is in a fresh process), and
	// Accepts holds the lists' Accept headers.
	Lists      map[string]int `json:"lists"`
	Watches    int            `json:"watches"`
	WatchLists int            `json:"watchLists"`
	Accepts    []string       `json:"accepts"`
}

// SyncedPerObject is the heap per cached object after the sync.
func (r WireResult) SyncedPerObject() float64 {
	return (float64(r.SyncedHeap) - float64(r.BaseHeap)) / float64(r.N)
}

// Wire syncs side's Pod informer, list+watch, over the first n WirePods
// served from the fixture in dir (WriteWireFixture) as enc: for JSON both
// sides' rest.Config set ContentType to JSON; for protobuf neither sets it,
// and both prefer protobuf as client-go's clientset does for Pods. Ours
// lists through runtime/wire over the clientset's REST client; client-go
// through the typed clientset. It must run in a fresh process: it turns
// client-go's (and so ours) watch-list streaming off through the
// environment.
func Wire(side Side, enc string, n int, dir string) (WireResult, error) {
	res := WireResult{Side: side, Enc: enc, N: n}
	if enc != EncJSON && enc != EncProtobuf {
		return res, fmt.Errorf("wire: unknown encoding %q", enc)
	}
	os.Setenv("KUBE_FEATURE_WatchListClient", "false")
	srv := newWireServer(dir, n)
	defer srv.Close()

	res.BaseHeap = liveHeap()
	cfg := &rest.Config{Host: srv.URL, QPS: -1}
	ourCT := ""
	if enc == EncJSON {
		cfg.ContentType = "application/json"
		ourCT = wire.ContentTypeJSON
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return res, err
	}
	var adds atomic.Int64
	var run func(ctx context.Context)
	var synced func() bool
	switch side {
	case Ours:
		lw, err := wire.NewListWatch[corev1.Pod](wirerest.Fetch(cs.CoreV1().RESTClient(), metav1.NamespaceAll, "pods", scheme.ParameterCodec),
			wire.Options{ContentType: ourCT})
		if err != nil {
			return res, err
		}
		inf := cache.NewSharedIndexInformerWithOptions[*corev1.Pod](lw,
			cache.SharedIndexInformerOptions[*corev1.Pod]{Reflector: cache.ReflectorOptions{DisableWatchList: true}})
		if _, err := inf.AddEventHandler(cache.ResourceEventHandlerDetailedFuncs[*corev1.Pod]{
			AddFunc: func(*corev1.Pod, bool) { adds.Add(1) },
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
		if _, err := inf.AddEventHandler(cgcache.ResourceEventHandlerFuncs{AddFunc: func(any) { adds.Add(1) }}); err != nil {
			return res, err
		}
		run, synced = inf.RunWithContext, inf.HasSynced
	}

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	cpu0 := cpuSeconds()
	start := time.Now()
	go func() { defer close(done); run(ctx) }()
	defer func() { cancel(); <-done }()
	deadline := time.Now().Add(10 * time.Minute)
	for adds.Load() != int64(n) || !synced() {
		if time.Now().After(deadline) {
			return res, fmt.Errorf("wire %s %s n=%d: timed out waiting for the sync (%d adds)", side, enc, n, adds.Load())
		}
		time.Sleep(time.Millisecond)
	}
	res.SyncSeconds = time.Since(start).Seconds()
	res.SyncCPUSeconds = cpuSeconds() - cpu0
	res.SyncPeakRSS = peakRSS()
	res.SyncedHeap = liveHeap()
	res.Lists, res.Watches, res.WatchLists, res.Accepts = srv.served()
	runtime.KeepAlive(cs)
	return res, nil
}
