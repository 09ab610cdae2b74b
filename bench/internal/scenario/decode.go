package scenario

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
	cgcache "k8s.io/client-go/tools/cache"

	"github.com/typedinformer/typedinformer/runtime/cache"
	"github.com/typedinformer/typedinformer/runtime/lean"
	"github.com/typedinformer/typedinformer/runtime/metadatainformer"
)

// Decode modes: how a side syncs in the decode scenario.
const (
	// ModeList lists, then watches (client-go with its WatchListClient gate
	// off; ours with DisableWatchList).
	ModeList = "list"
	// ModeWatchList streams the initial state (both sides' default).
	ModeWatchList = "watchlist"
	// ModeLean is ours streaming with lean.Default() (managedFields stripped,
	// strings interned).
	ModeLean = "lean"
	// ModeMetadata is ours: a metadata-only informer (runtime/metadatainformer)
	// fed by client-go's metadata client, streaming.
	ModeMetadata = "metadata"
	// ModeMetadataLean is ModeMetadata with lean.Default().
	ModeMetadataLean = "metadata-lean"
)

// DecodeChurnPercent is the share of the objects the churn phase replaces.
const DecodeChurnPercent = 90

// DecodeResult is one decode run: a real client-go clientset decoding API
// server JSON in this process, feeding side's informer.
type DecodeResult struct {
	Side Side   `json:"side"`
	Mode string `json:"mode"`
	N    int    `json:"n"`
	// SyncSeconds runs from starting the informer to its handler having
	// seen all N objects and HasSynced.
	SyncSeconds float64 `json:"syncSeconds"`
	// SyncPeakRSS is the process's peak RSS (VmHWM) right after the sync,
	// before the churn: the cost of the initial sync.
	SyncPeakRSS uint64 `json:"syncPeakRSS"`
	// BaseHeap is the live heap before the informer and clientset exist.
	BaseHeap uint64 `json:"baseHeap"`
	// SyncedHeap and ChurnedHeap are the live heap (after two GCs) after the
	// sync and after the churn updates all reached the handler.
	SyncedHeap  uint64 `json:"syncedHeap"`
	ChurnedHeap uint64 `json:"churnedHeap"`
	// Lists, WatchLists, Watches count the requests the server saw.
	Lists, WatchLists, Watches int
}

// SyncedPerObject and ChurnedPerObject are the heap per cached object.
func (r DecodeResult) SyncedPerObject() float64 {
	return (float64(r.SyncedHeap) - float64(r.BaseHeap)) / float64(r.N)
}

// ChurnedPerObject is the heap per cached object after the churn.
func (r DecodeResult) ChurnedPerObject() float64 {
	return (float64(r.ChurnedHeap) - float64(r.BaseHeap)) / float64(r.N)
}

// Decode syncs side's informer in mode over the first n Pods of the
// fixture file at path (WriteDecodeFixture), then replaces
// DecodeChurnPercent of them through watch updates, measuring heap and RSS.
// It must run in a fresh process: it sets client-go's WatchListClient
// environment switch for the client-go list mode.
func Decode(side Side, mode string, n int, path string) (DecodeResult, error) {
	res := DecodeResult{Side: side, Mode: mode, N: n}
	switch {
	case side == ClientGo && mode == ModeList:
		// client-go v0.37 streams by default; its list+watch needs the gate off.
		os.Setenv("KUBE_FEATURE_WatchListClient", "false")
	case side == ClientGo && mode == ModeWatchList,
		side == Ours && (mode == ModeList || mode == ModeWatchList || mode == ModeLean || mode == ModeMetadata || mode == ModeMetadataLean):
	default:
		return res, fmt.Errorf("decode: no mode %q for side %s", mode, side)
	}
	churn := n * DecodeChurnPercent / 100
	srv := newPodServer(path, n, churn)

	res.BaseHeap = liveHeap()
	cfg := &rest.Config{Host: "http://decode.invalid", Transport: srv, QPS: -1}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return res, err
	}
	var adds, updates atomic.Int64
	var run func(ctx context.Context)
	var synced func() bool
	pods := cs.CoreV1().Pods(metav1.NamespaceAll)
	switch {
	case mode == ModeMetadata || mode == ModeMetadataLean:
		mc, err := metadata.NewForConfig(cfg)
		if err != nil {
			return res, err
		}
		inf := metadatainformer.NewFilteredInformer(metadatainformer.ClientFuncs{
			ListFunc: func(ctx context.Context, gvr schema.GroupVersionResource, ns string, o metav1.ListOptions) (*metav1.PartialObjectMetadataList, error) {
				return mc.Resource(gvr).Namespace(ns).List(ctx, o)
			},
			WatchFunc: func(ctx context.Context, gvr schema.GroupVersionResource, ns string, o metav1.ListOptions) (watch.Interface, error) {
				return mc.Resource(gvr).Namespace(ns).Watch(ctx, o)
			},
		}, corev1.SchemeGroupVersion.WithResource("pods"), metav1.NamespaceAll, 0, nil, nil)
		if mode == ModeMetadataLean {
			if err := inf.SetTransform(lean.Transform[*metav1.PartialObjectMetadata](lean.Default())); err != nil {
				return res, err
			}
		}
		if _, err := inf.AddEventHandler(cache.ResourceEventHandlerDetailedFuncs[*metav1.PartialObjectMetadata]{
			AddFunc:    func(*metav1.PartialObjectMetadata, bool) { adds.Add(1) },
			UpdateFunc: func(_, _ *metav1.PartialObjectMetadata) { updates.Add(1) },
		}); err != nil {
			return res, err
		}
		run, synced = inf.Run, inf.HasSynced
	case side == Ours:
		inf := cache.NewSharedIndexInformerWithOptions[*corev1.Pod](&cache.ListWatch{
			ListFunc: func(ctx context.Context, o metav1.ListOptions) (k8sruntime.Object, error) { return pods.List(ctx, o) },
			WatchFunc: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
				return pods.Watch(ctx, o)
			},
		}, cache.SharedIndexInformerOptions[*corev1.Pod]{Reflector: cache.ReflectorOptions{DisableWatchList: mode == ModeList}})
		if mode == ModeLean {
			if err := inf.SetTransform(lean.Transform[*corev1.Pod](lean.Default())); err != nil {
				return res, err
			}
		}
		if _, err := inf.AddEventHandler(cache.ResourceEventHandlerDetailedFuncs[*corev1.Pod]{
			AddFunc:    func(*corev1.Pod, bool) { adds.Add(1) },
			UpdateFunc: func(_, _ *corev1.Pod) { updates.Add(1) },
		}); err != nil {
			return res, err
		}
		run, synced = inf.Run, inf.HasSynced
	default:
		// As client-go's generated informers build it.
		lw := cgcache.ToListWatcherWithWatchListSemantics(&cgcache.ListWatch{
			ListWithContextFunc:  func(ctx context.Context, o metav1.ListOptions) (k8sruntime.Object, error) { return pods.List(ctx, o) },
			WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) { return pods.Watch(ctx, o) },
		}, cs)
		inf := cgcache.NewSharedIndexInformer(lw, &corev1.Pod{}, 0, cgcache.Indexers{cgcache.NamespaceIndex: cgcache.MetaNamespaceIndexFunc})
		if _, err := inf.AddEventHandler(cgcache.ResourceEventHandlerFuncs{
			AddFunc:    func(any) { adds.Add(1) },
			UpdateFunc: func(_, _ any) { updates.Add(1) },
		}); err != nil {
			return res, err
		}
		run, synced = inf.RunWithContext, inf.HasSynced
	}

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	start := time.Now()
	go func() { defer close(done); run(ctx) }()
	defer func() { cancel(); <-done }()
	wait := func(what string, cond func() bool) error {
		deadline := time.Now().Add(10 * time.Minute)
		for !cond() {
			if time.Now().After(deadline) {
				return fmt.Errorf("%s %s n=%d: timed out waiting for %s", side, mode, n, what)
			}
			time.Sleep(time.Millisecond)
		}
		return nil
	}
	if err := wait("the sync", func() bool { return adds.Load() == int64(n) && synced() }); err != nil {
		return res, err
	}
	res.SyncSeconds = time.Since(start).Seconds()
	res.SyncPeakRSS = peakRSS()
	res.SyncedHeap = liveHeap()
	srv.Churn()
	if err := wait("the churn", func() bool { return updates.Load() == int64(churn) }); err != nil {
		return res, err
	}
	res.ChurnedHeap = liveHeap()
	res.Lists, res.WatchLists, res.Watches = srv.counts()
	runtime.KeepAlive(cs)
	return res, nil
}

// peakRSS returns this process's peak resident set size so far (VmHWM).
func peakRSS() uint64 { return statusKB("VmHWM:") }

// currentRSS returns this process's resident set size now (VmRSS).
func currentRSS() uint64 { return statusKB("VmRSS:") }

// statusKB returns the field of /proc/self/status that starts with name, in
// bytes (0 when it cannot be read).
func statusKB(name string) uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, name); ok {
			kb, _ := strconv.ParseUint(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb * 1024
		}
	}
	return 0
}
