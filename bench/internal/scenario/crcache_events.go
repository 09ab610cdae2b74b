package scenario

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/typedinformer/typedinformer/bench/internal/fixture"
	"github.com/typedinformer/typedinformer/clientgo"
)

// CREventsResult is one run of CREvents.
type CREventsResult struct {
	Mode string `json:"mode"`
	EventsResult
}

// CREvents measures event throughput through a controller-runtime cache
// (cache.New, or crcache.New for ModeCRCache and ModeCRCacheLean) with its
// informers built as mode says: row 2's workload (keys Pods, then
// total distinct updates, all decoded beforehand and served by a
// fixture.Source) reaches `handlers` counting handlers, each behind a
// source.Kind of its own started on the cache, as a controller's Watches
// are. Every mode is handed the same Source through cache.Options.NewInformer
// in place of the ListerWatcher controller-runtime built, so no mode decodes
// anything and only the informer and controller-runtime's handler path are
// timed.
func CREvents(mode string, keys, handlers, total int) (CREventsResult, error) {
	res := CREventsResult{Mode: mode}
	newCache, opts, err := CRNewCache(mode)
	if err != nil {
		return res, fmt.Errorf("crevents: %w", err)
	}
	newInformer := opts.NewInformer
	switch {
	case newInformer != nil:
	case mode == ModeCRDefault:
		newInformer = toolscache.NewSharedIndexInformer
	default:
		newInformer = clientgo.NewSharedIndexInformer
	}
	side := Ours
	if mode == ModeCRDefault {
		side = ClientGo
	}
	var inf *crInformer
	res.EventsResult, err = events(side, keys, handlers, total, func(src *fixture.Source, hs []handlerCounters) (informerUnderTest, error) {
		fromSource := func(_ toolscache.ListerWatcher, obj kruntime.Object, resync time.Duration, indexers toolscache.Indexers) toolscache.SharedIndexInformer {
			return newInformer(src.ClientGo(), obj, resync, indexers)
		}
		c, err := newCacheWith(newCache, noAPIServer{}, fromSource)
		if err != nil {
			return nil, err
		}
		inf = &crInformer{cache: c}
		for _, h := range hs {
			inf.sources = append(inf.sources, source.Kind[*corev1.Pod](c, &corev1.Pod{}, handler.TypedFuncs[*corev1.Pod, reconcile.Request]{
				CreateFunc: func(context.Context, event.TypedCreateEvent[*corev1.Pod], workqueue.TypedRateLimitingInterface[reconcile.Request]) {
					h.adds.hit()
				},
				UpdateFunc: func(context.Context, event.TypedUpdateEvent[*corev1.Pod], workqueue.TypedRateLimitingInterface[reconcile.Request]) {
					h.updates.hit()
				},
			}))
		}
		return inf, nil
	})
	if err != nil && inf != nil {
		if why := inf.failure(); why != nil {
			err = fmt.Errorf("%w: %w", err, why)
		}
	}
	if err != nil {
		return res, fmt.Errorf("crevents %s: %w", mode, err)
	}
	return res, nil
}

// crInformer runs a controller-runtime cache and the source.Kind sources
// on it for events.
type crInformer struct {
	cache   cache.Cache
	sources []source.TypedSource[reconcile.Request]
	synced  atomic.Bool
	// err is why run returned before its context ended.
	err atomic.Pointer[error]
}

func (r *crInformer) fail(err error) { r.err.CompareAndSwap(nil, &err) }

// failure is the first error run met, or nil.
func (r *crInformer) failure() error {
	if p := r.err.Load(); p != nil {
		return *p
	}
	return nil
}

// run starts the cache and every source, marks the informer synced once
// each source's handler has been handed the initial list, and returns when
// ctx ends (or a source fails, recorded for failure) after the cache has stopped.
func (r *crInformer) run(ctx context.Context) {
	ctx, cancel := context.WithCancel(ctx)
	stopped := make(chan error, 1)
	go func() { stopped <- r.cache.Start(ctx) }()
	defer func() {
		cancel()
		if err := <-stopped; err != nil {
			r.fail(fmt.Errorf("cache: %w", err))
		}
	}()
	queue := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[reconcile.Request]())
	defer queue.ShutDown()
	for _, s := range r.sources {
		if err := s.Start(ctx, queue); err != nil {
			r.fail(fmt.Errorf("source.Kind: %w", err))
			return
		}
	}
	for _, s := range r.sources {
		if err := s.(source.TypedSyncingSource[reconcile.Request]).WaitForSync(ctx); err != nil {
			r.fail(fmt.Errorf("source.Kind: %w", err))
			return
		}
	}
	if ctx.Err() == nil {
		r.synced.Store(true)
	}
	<-ctx.Done()
}

func (r *crInformer) hasSynced() bool { return r.synced.Load() }

// noAPIServer is the transport of a cache whose informers never use its
// REST client: any request is an error naming the fact.
type noAPIServer struct{}

func (noAPIServer) RoundTrip(req *http.Request) (*http.Response, error) {
	return nil, errors.New("crevents: no API server behind this cache; " + req.Method + " " + req.URL.Path + " was not expected")
}
