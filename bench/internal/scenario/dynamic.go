package scenario

import (
	"context"
	"fmt"
	"runtime"
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	cgdynamicinformer "k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/rest"
	cgcache "k8s.io/client-go/tools/cache"

	"github.com/typedinformer/typedinformer/clientgo/dynamicinformer"
)

// DynamicResult is one run of a dynamic informer factory over unstructured
// Pods served over HTTP as JSON, read by client-go's dynamic client.
type DynamicResult struct {
	Side Side `json:"side"`
	N    int  `json:"n"`
	// SyncSeconds runs from Start to the handler having seen all N adds
	// and the factory's informer having synced.
	SyncSeconds float64 `json:"syncSeconds"`
	// SyncPeakRSS is VmHWM right after the sync.
	SyncPeakRSS uint64 `json:"syncPeakRSS"`
	// BaseHeap and SyncedHeap are the live heap before the dynamic client
	// exists and after the sync.
	BaseHeap   uint64         `json:"baseHeap"`
	SyncedHeap uint64         `json:"syncedHeap"`
	Lists      map[string]int `json:"lists"`
	WatchLists map[string]int `json:"watchLists"`
}

// SyncedPerObject is the heap per cached Pod after the sync.
func (r DynamicResult) SyncedPerObject() float64 {
	return (float64(r.SyncedHeap) - float64(r.BaseHeap)) / float64(r.N)
}

// Dynamic syncs side's dynamic informer factory (client-go's
// dynamicinformer, or clientgo/dynamicinformer) for Pods over the first n
// Pods of the wire fixture pods in dir, served as JSON (what the dynamic
// client asks for) to a dynamic.NewForConfig client. Both sides run their
// defaults: watch-list streaming, client-go's informer decoding through
// the dynamic client, ours reading the client's REST client through
// runtime/wire.
func Dynamic(side Side, pods string, n int, dir string) (DynamicResult, error) {
	res := DynamicResult{Side: side, N: n}
	srv := newWireServer(dir, pods, n)
	defer srv.Close()
	res.BaseHeap = liveHeap()
	dc, err := dynamic.NewForConfig(&rest.Config{Host: srv.URL, QPS: -1})
	if err != nil {
		return res, err
	}
	gvr := schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	var factory cgdynamicinformer.DynamicSharedInformerFactory
	switch side {
	case Ours:
		factory = dynamicinformer.NewDynamicSharedInformerFactory(dc, 0)
	default:
		factory = cgdynamicinformer.NewDynamicSharedInformerFactory(dc, 0)
	}
	inf := factory.ForResource(gvr).Informer()
	var adds atomic.Int64
	if _, err := inf.AddEventHandler(cgcache.ResourceEventHandlerFuncs{AddFunc: func(any) { adds.Add(1) }}); err != nil {
		return res, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer factory.Shutdown()
	defer cancel()
	start := time.Now()
	factory.Start(ctx.Done())
	deadline := start.Add(10 * time.Minute)
	for adds.Load() != int64(n) || !inf.HasSynced() {
		if time.Now().After(deadline) {
			return res, fmt.Errorf("dynamic %s n=%d: timed out waiting for the sync (%d adds)", side, n, adds.Load())
		}
		time.Sleep(time.Millisecond)
	}
	res.SyncSeconds = time.Since(start).Seconds()
	res.SyncPeakRSS = peakRSS()
	res.SyncedHeap = liveHeap()
	res.Lists, _, res.WatchLists, _ = srv.served()
	if got := len(inf.GetStore().ListKeys()); got != n {
		return res, fmt.Errorf("dynamic %s n=%d: the cache holds %d Pods", side, n, got)
	}
	runtime.KeepAlive(dc)
	return res, nil
}
