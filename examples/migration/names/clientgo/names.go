// Package names uses client-go's workqueue and cache names the way a
// controller does and records what it observes. The same file exists
// twice: clientgo/ imports client-go, typed/ imports typedinformer's
// runtime; names_test.go checks that the two differ only in their import
// paths and observe the same things.
package names

import (
	"fmt"
	"time"

	"golang.org/x/time/rate"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	testingclock "k8s.io/utils/clock/testing"

	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
)

// Controller holds what a client-go controller keeps: a typed rate-limited
// queue of object names and the sync checks of its informers.
type Controller struct {
	queue       workqueue.TypedRateLimitingInterface[cache.ObjectName]
	foosSynced  cache.InformerSynced
	otherSynced cache.InformerSynced
}

// recordingQueue is a delaying queue that records the delays asked of it,
// as controller tests inject through TypedRateLimitingQueueConfig.
type recordingQueue struct {
	workqueue.TypedDelayingInterface[cache.ObjectName]
	delays []string
}

func (q *recordingQueue) AddAfter(item cache.ObjectName, d time.Duration) {
	q.delays = append(q.delays, fmt.Sprintf("%s after %v", item, d))
	q.TypedDelayingInterface.AddAfter(item, d)
}

// coarse rounds a token bucket's wait (just under an hour, by however long
// the call took) to minutes and keeps shorter delays exact.
func coarse(d time.Duration) time.Duration {
	if d > time.Minute {
		return d.Round(time.Minute)
	}
	return d
}

// Observe runs the names and returns one line per observation.
func Observe() []string {
	var out []string
	log := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }

	// Rate limiters.
	var limiters = map[string]workqueue.TypedRateLimiter[string]{
		"exponential": workqueue.NewTypedItemExponentialFailureRateLimiter[string](time.Millisecond, 3*time.Millisecond),
		"fastslow":    workqueue.NewTypedItemFastSlowRateLimiter[string](time.Millisecond, time.Second, 2),
		"maxof": workqueue.NewTypedMaxOfRateLimiter(
			workqueue.NewTypedItemExponentialFailureRateLimiter[string](time.Millisecond, time.Hour),
			&workqueue.TypedBucketRateLimiter[string]{Limiter: rate.NewLimiter(rate.Every(time.Hour), 2)},
		),
		"maxwait":    workqueue.NewTypedWithMaxWaitRateLimiter(workqueue.NewTypedItemExponentialFailureRateLimiter[string](time.Millisecond, time.Hour), 2*time.Millisecond),
		"controller": workqueue.DefaultTypedControllerRateLimiter[string](),
		"itembased":  workqueue.DefaultTypedItemBasedRateLimiter[string](),
	}
	for _, name := range []string{"exponential", "fastslow", "maxof", "maxwait", "controller", "itembased"} {
		rl := limiters[name]
		var ds []time.Duration
		for range 4 {
			ds = append(ds, coarse(rl.When("a")))
		}
		n := rl.NumRequeues("a")
		rl.Forget("a")
		log("%s: delays %v, requeues %d, after forget %d", name, ds, n, rl.NumRequeues("a"))
	}

	// A plain queue and a delaying one.
	q := workqueue.NewTyped[string]()
	q.Add("x")
	q.Add("y")
	q.Add("x")
	item, _ := q.Get()
	q.Add(item) // re-added while processing: queued again on Done
	log("plain: got %s, len %d", item, q.Len())
	q.Done(item)
	log("plain: after done len %d", q.Len())
	q.ShutDown()
	log("plain: shutting down %v", q.ShuttingDown())

	cq := workqueue.NewTypedWithConfig(workqueue.TypedQueueConfig[string]{Name: ""})
	cq.Add("z")
	log("configured: len %d", cq.Len())
	cq.ShutDownWithDrain()

	clk := testingclock.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	var dq workqueue.TypedDelayingInterface[string] = workqueue.NewTypedDelayingQueueWithConfig(workqueue.TypedDelayingQueueConfig[string]{Clock: clk}) //nolint:staticcheck // the file uses every name a controller does, this interface's too
	dq.AddAfter("later", time.Hour)
	dq.AddAfter("now", 0)
	log("delaying: len %d", dq.Len())
	dq.ShutDown()
	var plainDelaying workqueue.TypedInterface[string] = workqueue.NewTypedDelayingQueue[string]()
	plainDelaying.ShutDown()

	// A controller's rate-limited queue of object names.
	rec := &recordingQueue{TypedDelayingInterface: workqueue.NewTypedDelayingQueue[cache.ObjectName]()}
	c := &Controller{
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(
			workqueue.NewTypedItemExponentialFailureRateLimiter[cache.ObjectName](5*time.Millisecond, time.Minute),
			workqueue.TypedRateLimitingQueueConfig[cache.ObjectName]{DelayingQueue: rec},
		),
	}
	alwaysReady := func() bool { return true }
	c.foosSynced = alwaysReady
	c.otherSynced = func() bool { return false }

	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web"}}
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}}
	ref, err := cache.ObjectToName(pod)
	log("ObjectToName: %v %v", ref, err)
	c.queue.AddRateLimited(ref)
	c.queue.AddRateLimited(ref)
	log("rate limited: %v, requeues %d", rec.delays, c.queue.NumRequeues(ref))
	c.queue.Forget(ref)
	log("forgotten: requeues %d", c.queue.NumRequeues(ref))
	c.queue.ShutDown()
	simple := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[cache.ObjectName]())
	simple.Add(cache.MetaObjectToName(node))
	got, _ := simple.Get()
	log("rate-limiting queue: got %q", got.String())
	simple.Done(got)
	simple.ShutDown()

	// Names and keys.
	ns, name := cache.NewObjectName("shop", "web").Parts()
	log("Parts: %q %q", ns, name)
	for _, key := range []string{"shop/web", "n1", "shop/", "a/b/c"} {
		n, err := cache.ParseObjectName(key)
		sns, sname, serr := cache.SplitMetaNamespaceKey(key)
		log("parse %q: %q %v; split %q %q %v", key, n.String(), err != nil, sns, sname, serr != nil)
	}
	for _, obj := range []any{pod, node, "not an object"} {
		k1, err1 := cache.MetaNamespaceKeyFunc(obj)
		k2, err2 := cache.DeletionHandlingMetaNamespaceKeyFunc(obj)
		log("keys of %T: %q %v %q %v", obj, k1, err1 != nil, k2, err2 != nil)
	}
	log("MetaObjectToName: %v, index %q", cache.MetaObjectToName(node), cache.NamespaceIndex)

	// Waiting for caches.
	stopped := make(chan struct{})
	close(stopped)
	log("WaitForCacheSync ready: %v", cache.WaitForCacheSync(stopped, c.foosSynced))
	log("WaitForCacheSync not ready, stopped: %v", cache.WaitForCacheSync(stopped, c.foosSynced, c.otherSynced))
	log("WaitForNamedCacheSync not ready, stopped: %v", cache.WaitForNamedCacheSync("names", stopped, c.otherSynced))
	return out
}
