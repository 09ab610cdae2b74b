package main

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes"

	"github.com/typedinformer/typedinformer/examples/crd/pkg/controller"
	"github.com/typedinformer/typedinformer/examples/crd/pkg/generated/clientset/versioned"
	"github.com/typedinformer/typedinformer/runtime/cache"
	runtimecontroller "github.com/typedinformer/typedinformer/runtime/controller"
)

// demoActivity tells the demo when the informers' handlers and the
// controller's workers are idle: it is the informers' metrics provider
// (only the handler backlogs matter) and the controller's metrics (active
// workers, and the reconcile totals for the summary).
type demoActivity struct {
	mu       sync.Mutex
	backlogs []*atomic.Int64

	// workersStarted is closed when the controller starts its workers
	// (its handlers are registered and the caches synced by then).
	workersStarted chan struct{}
	startOnce      sync.Once

	active     atomic.Int64
	reconciles atomic.Int64
	errors     atomic.Int64
}

// idle reports whether no worker is inside Reconcile and every handler has
// been handed all its notifications and returned from the last one.
func (a *demoActivity) idle() bool {
	if a.active.Load() != 0 {
		return false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, b := range a.backlogs {
		if b.Load() != 0 {
			return false
		}
	}
	return true
}

// totals returns the reconciles observed and how many of them failed.
func (a *demoActivity) totals() (reconciles, failed int64) {
	return a.reconciles.Load(), a.errors.Load()
}

// NewInformerMetrics implements cache.DetailedInformerMetricsProvider.
func (a *demoActivity) NewInformerMetrics(string) cache.InformerMetrics { return a }

// IncLists implements cache.InformerMetrics; the demo ignores it.
func (a *demoActivity) IncLists() {}

// IncWatches implements cache.InformerMetrics; the demo ignores it.
func (a *demoActivity) IncWatches() {}

// IncRelistsAfterExpired implements cache.InformerMetrics; ignored.
func (a *demoActivity) IncRelistsAfterExpired() {}

// IncWatchRestarts implements cache.InformerMetrics; ignored.
func (a *demoActivity) IncWatchRestarts(string) {}

// IncErrors implements cache.InformerMetrics; ignored.
func (a *demoActivity) IncErrors(string) {}

// SetObjects implements cache.InformerMetrics; ignored.
func (a *demoActivity) SetObjects(int) {}

// SetQueueDepth implements cache.InformerMetrics; ignored (caughtUp
// compares the stores with the server instead).
func (a *demoActivity) SetQueueDepth(int) {}

// ObserveEvent implements cache.InformerMetrics; ignored.
func (a *demoActivity) ObserveEvent(time.Time, string) {}

// NewHandlerMetrics implements cache.InformerMetrics: one backlog per handler.
func (a *demoActivity) NewHandlerMetrics(string) cache.HandlerMetrics {
	b := &handlerBacklog{}
	a.mu.Lock()
	a.backlogs = append(a.backlogs, &b.n)
	a.mu.Unlock()
	return b
}

// handlerBacklog is one handler's backlog.
type handlerBacklog struct{ n atomic.Int64 }

// SetBacklog implements cache.HandlerMetrics.
func (b *handlerBacklog) SetBacklog(n int) { b.n.Store(int64(n)) }

// ObserveLatency implements cache.HandlerMetrics; ignored.
func (b *handlerBacklog) ObserveLatency(time.Duration) {}

// ObserveReconcile implements runtimecontroller.Metrics: counts for the
// summary.
func (a *demoActivity) ObserveReconcile(_ string, _ runtimecontroller.Outcome, err error, _ time.Duration) {
	a.reconciles.Add(1)
	if err != nil {
		a.errors.Add(1)
	}
}

// SetActiveWorkers implements runtimecontroller.Metrics.
func (a *demoActivity) SetActiveWorkers(_ string, n int) { a.active.Store(int64(n)) }

// SetMaxWorkers implements runtimecontroller.Metrics: the workers start.
func (a *demoActivity) SetMaxWorkers(string, int) {
	a.startOnce.Do(func() { close(a.workersStarted) })
}

// caughtUp reports whether each informer's store holds exactly what the
// (fake) server holds, at the same resourceVersions: every write of the
// step has reached the caches.
func caughtUp(ctx context.Context, kube kubernetes.Interface, samples versioned.Interface, inf controller.Informers) bool {
	all := labels.Everything()
	s := samples.SamplesV1alpha1()
	foos, err := s.Foos("").List(ctx, metav1.ListOptions{})
	if err != nil {
		return false
	}
	cachedFoos, _ := inf.Samples.Samples().V1alpha1().Foos().Lister().List(all)
	if !sameVersions(metaOf(foos.Items), metaPtrs(cachedFoos)) {
		return false
	}
	classes, err := s.FooClasses().List(ctx, metav1.ListOptions{})
	if err != nil {
		return false
	}
	cachedClasses, _ := inf.Samples.Samples().V1alpha1().FooClasses().Lister().List(all)
	if !sameVersions(metaOf(classes.Items), metaPtrs(cachedClasses)) {
		return false
	}
	windows, err := samples.OpsV1().MaintenanceWindows().List(ctx, metav1.ListOptions{})
	if err != nil {
		return false
	}
	cachedWindows, _ := inf.Samples.Ops().V1().MaintenanceWindows().Lister().List(all)
	if !sameVersions(metaOf(windows.Items), metaPtrs(cachedWindows)) {
		return false
	}
	cms, err := kube.CoreV1().ConfigMaps("").List(ctx, metav1.ListOptions{})
	if err != nil {
		return false
	}
	cachedCMs, _ := inf.Kube.Core().V1().ConfigMaps().Lister().List(all)
	return sameVersions(metaOf(cms.Items), metaPtrs(cachedCMs))
}

// metaOf returns the object metadata of a list's items.
func metaOf[T any, PT interface {
	*T
	metav1.Object
}](items []T) []metav1.Object {
	out := make([]metav1.Object, len(items))
	for i := range items {
		out[i] = PT(&items[i])
	}
	return out
}

// metaPtrs returns the object metadata of cached objects.
func metaPtrs[PT metav1.Object](objs []PT) []metav1.Object {
	out := make([]metav1.Object, len(objs))
	for i, o := range objs {
		out[i] = o
	}
	return out
}

// sameVersions reports whether a and b hold the same keys at the same
// resourceVersions.
func sameVersions(a, b []metav1.Object) bool {
	if len(a) != len(b) {
		return false
	}
	rv := make(map[string]string, len(a))
	for _, o := range a {
		rv[o.GetNamespace()+"/"+o.GetName()] = o.GetResourceVersion()
	}
	for _, o := range b {
		if v, ok := rv[o.GetNamespace()+"/"+o.GetName()]; !ok || v != o.GetResourceVersion() {
			return false
		}
	}
	return true
}
