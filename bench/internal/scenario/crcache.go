package scenario

import (
	"context"
	"fmt"
	"net/http"
	"runtime"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/typedinformer/typedinformer/clientgo"
	"github.com/typedinformer/typedinformer/runtime/lean"
)

// Controller-runtime cache modes: which informers a controller-runtime
// cache builds.
const (
	// ModeCRDefault is controller-runtime's default: client-go's informers.
	ModeCRDefault = "cr-default"
	// ModeCROurs is clientgo.NewSharedIndexInformer as cache.Options.NewInformer.
	ModeCROurs = "cr-ours"
	// ModeCROursLean is ModeCROurs with clientgo.WithLean(lean.Default()).
	ModeCROursLean = "cr-ours-lean"
)

// CRCacheResult is one run of a controller-runtime cache over Pods decoded
// from the wire, events counted by a handler behind source.Kind.
type CRCacheResult struct {
	Mode string `json:"mode"`
	N    int    `json:"n"`
	// SyncSeconds runs from starting the cache to the handler having seen
	// all N adds and the cache having synced.
	SyncSeconds float64 `json:"syncSeconds"`
	// SyncPeakRSS is VmHWM right after the sync.
	SyncPeakRSS uint64 `json:"syncPeakRSS"`
	// BaseHeap and SyncedHeap are the live heap before the cache exists and
	// after the sync.
	BaseHeap   uint64 `json:"baseHeap"`
	SyncedHeap uint64 `json:"syncedHeap"`
	// Updates is how many watch updates the churn sent; UpdateSeconds how
	// long the handler took to see them all from their release.
	Updates       int     `json:"updates"`
	UpdateSeconds float64 `json:"updateSeconds"`
}

// SyncedPerObject is the heap per cached Pod after the sync.
func (r CRCacheResult) SyncedPerObject() float64 {
	return (float64(r.SyncedHeap) - float64(r.BaseHeap)) / float64(r.N)
}

// EventsPerSecond is the rate at which update events reached the handler.
func (r CRCacheResult) EventsPerSecond() float64 { return float64(r.Updates) / r.UpdateSeconds }

// crInformerFunc is the type of cache.Options.NewInformer.
type crInformerFunc = func(toolscache.ListerWatcher, kruntime.Object, time.Duration, toolscache.Indexers) toolscache.SharedIndexInformer

// crNewInformer returns the informer constructor mode names: for
// ModeCRDefault the one controller-runtime defaults to.
func crNewInformer(mode string) (crInformerFunc, error) {
	switch mode {
	case ModeCRDefault:
		return toolscache.NewSharedIndexInformer, nil
	case ModeCROurs:
		return clientgo.NewSharedIndexInformer, nil
	case ModeCROursLean:
		return clientgo.NewInformerFunc(clientgo.WithLean(lean.Default())), nil
	}
	return nil, fmt.Errorf("crcache: no mode %q (want %s, %s or %s)", mode, ModeCRDefault, ModeCROurs, ModeCROursLean)
}

// newCRCache builds a controller-runtime cache over Pods as a manager does,
// its REST client talking to transport and its informers built by
// newInformer (nil: controller-runtime's default). The RESTMapper is
// static: transport answers Pods only, no discovery.
func newCRCache(transport http.RoundTripper, newInformer crInformerFunc) (cache.Cache, error) {
	return newCacheWith(cache.New, transport, newInformer)
}

// newCacheWith is newCRCache with newCache (cache.New or crcache.New)
// building the cache.
func newCacheWith(newCache cache.NewCacheFunc, transport http.RoundTripper, newInformer crInformerFunc) (cache.Cache, error) {
	cfg := &rest.Config{Host: "http://decode.invalid", Transport: transport, QPS: -1}
	mapper := meta.NewDefaultRESTMapper(nil)
	mapper.Add(corev1.SchemeGroupVersion.WithKind("Pod"), meta.RESTScopeNamespace)
	return newCache(cfg, cache.Options{
		Scheme:      clientgoscheme.Scheme,
		HTTPClient:  &http.Client{Transport: transport},
		Mapper:      mapper,
		NewInformer: newInformer,
	})
}

// WriteTwoManagerFixture writes n Pods as WriteDecodeFixture does, but with
// only the two managedFields entries every Pod of a ReplicaSet has in a
// cluster: kube-controller-manager's (the same within a template) and the
// kubelet's (naming the Pod's own IP).
func WriteTwoManagerFixture(path string, n int) error {
	return writeLines(path, n, func(i int) any {
		p := DecodePod(i)
		p.ManagedFields = p.ManagedFields[:2]
		return &p
	})
}

// CRCache syncs a controller-runtime cache (sigs.k8s.io/controller-runtime
// pkg/cache, as a manager builds it) over the first n Pods of the fixture
// at path, served as API server JSON to controller-runtime's own REST
// client, with its informers built as mode says; a handler behind
// source.Kind counts the events. It then releases DecodeChurnPercent of the
// Pods as watch updates and times their delivery.
func CRCache(mode string, n int, path string) (CRCacheResult, error) {
	res := CRCacheResult{Mode: mode, N: n}
	newInformer, err := crNewInformer(mode)
	if err != nil {
		return res, err
	}
	if mode == ModeCRDefault {
		// Leave the choice to controller-runtime, as a manager does.
		newInformer = nil
	}
	churn := n * DecodeChurnPercent / 100
	srv := newPodServer(path, n, churn)

	res.BaseHeap = liveHeap()
	c, err := newCRCache(srv, newInformer)
	if err != nil {
		return res, fmt.Errorf("crcache %s: %w", mode, err)
	}

	var adds, updates atomic.Int64
	h := handler.TypedFuncs[*corev1.Pod, reconcile.Request]{
		CreateFunc: func(context.Context, event.TypedCreateEvent[*corev1.Pod], workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			adds.Add(1)
		},
		UpdateFunc: func(context.Context, event.TypedUpdateEvent[*corev1.Pod], workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			updates.Add(1)
		},
	}
	queue := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[reconcile.Request]())
	defer queue.ShutDown()

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	start := time.Now()
	go func() { done <- c.Start(ctx) }()
	defer func() { cancel(); <-done }()
	src := source.Kind[*corev1.Pod](c, &corev1.Pod{}, h)
	if err := src.Start(ctx, queue); err != nil {
		return res, fmt.Errorf("crcache %s: source.Kind: %w", mode, err)
	}
	wait := func(what string, cond func() bool) error {
		deadline := time.Now().Add(10 * time.Minute)
		for !cond() {
			if time.Now().After(deadline) {
				return fmt.Errorf("crcache %s n=%d: timed out waiting for %s (adds %d, updates %d)", mode, n, what, adds.Load(), updates.Load())
			}
			time.Sleep(time.Millisecond)
		}
		return nil
	}
	if !c.WaitForCacheSync(ctx) {
		return res, fmt.Errorf("crcache %s n=%d: the cache did not sync", mode, n)
	}
	if err := wait("the sync", func() bool { return adds.Load() == int64(n) }); err != nil {
		return res, err
	}
	res.SyncSeconds = time.Since(start).Seconds()
	res.SyncPeakRSS = peakRSS()
	res.SyncedHeap = liveHeap()

	churnStart := time.Now()
	srv.Churn()
	if err := wait("the churn", func() bool { return updates.Load() == int64(churn) }); err != nil {
		return res, err
	}
	res.UpdateSeconds = time.Since(churnStart).Seconds()
	res.Updates = churn
	runtime.KeepAlive(c)
	return res, nil
}
