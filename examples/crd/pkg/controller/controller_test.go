package controller

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	kubefake "k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"

	"github.com/typedinformer/typedinformer/examples/crd/pkg/fakecluster"
	samplesfake "github.com/typedinformer/typedinformer/examples/crd/pkg/generated/clientset/versioned/fake"
	"github.com/typedinformer/typedinformer/internal/testutil"
	kubeinformers "github.com/typedinformer/typedinformer/kube/informers"
	"github.com/typedinformer/typedinformer/runtime/cache"
	"github.com/typedinformer/typedinformer/runtime/controller"
	"github.com/typedinformer/typedinformer/runtime/fake"
	"github.com/typedinformer/typedinformer/runtime/informers"
	"github.com/typedinformer/typedinformer/runtime/workqueue"
)

type reconcileEvent struct {
	req     controller.Request
	outcome Outcome
	err     error
}

// recorder collects reconciles in order and lets a test wait for one.
type recorder struct {
	mu     sync.Mutex
	events []reconcileEvent
}

func (r *recorder) observe(req controller.Request, outcome Outcome, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, reconcileEvent{req, outcome, err})
}

func (r *recorder) snapshot() []reconcileEvent {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.events)
}

func (r *recorder) waitOutcome(t *testing.T, key string, outcome Outcome) {
	t.Helper()
	testutil.Eventually(t, fmt.Sprintf("%s to be %s", key, outcome), func() bool {
		for _, e := range r.snapshot() {
			if e.req.String() == key && e.outcome == outcome && e.err == nil {
				return true
			}
		}
		return false
	})
}

// recordingLimiter wraps a rate limiter and records the delays it hands
// out, so retries can be checked without timing anything.
type recordingLimiter struct {
	workqueue.TypedRateLimiter[controller.Request]
	mu     sync.Mutex
	delays []time.Duration
}

func (l *recordingLimiter) When(item controller.Request) time.Duration {
	d := l.TypedRateLimiter.When(item)
	l.mu.Lock()
	l.delays = append(l.delays, d)
	l.mu.Unlock()
	return d
}

func (l *recordingLimiter) recorded() []time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.delays)
}

// runController starts factories and the controller; both stop at cleanup.
func runController(t *testing.T, kube *kubefake.Clientset, samples *samplesfake.Clientset, inf Informers, opts controller.Options) *recorder {
	t.Helper()
	fakecluster.Simulate(kube, samples)
	rec := &recorder{}
	r := NewReconciler(kube, samples, inf)
	c, err := New(r, inf, opts, rec.observe)
	if err != nil {
		t.Fatal(err)
	}
	testutil.RunController(t, inf, c)
	return rec
}

func TestControllerCreateUpdateDeleteProduceReconciles(t *testing.T) {
	kube, samples := kubefake.NewClientset(), samplesfake.NewSimpleClientset()
	rec := runController(t, kube, samples, NewInformers(kube, samples, 0), controller.Options{MaxConcurrentReconciles: 2})
	ctx := context.Background()
	foos := samples.SamplesV1alpha1().Foos("shop")

	if _, err := foos.Create(ctx, foo("shop", "web", map[string]string{"v": "1"}), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	rec.waitOutcome(t, "shop/web", Created)

	testutil.Eventually(t, "status written", func() bool {
		got, _ := foos.Get(ctx, "web", metav1.GetOptions{})
		return got.Status.Phase == PhaseReady
	})
	f, _ := foos.Get(ctx, "web", metav1.GetOptions{})
	f.Spec.Data["v"] = "2"
	if _, err := foos.Update(ctx, f, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	rec.waitOutcome(t, "shop/web", Updated)
	cm, _ := kube.CoreV1().ConfigMaps("shop").Get(ctx, "web", metav1.GetOptions{})
	if cm.Data["v"] != "2" {
		t.Fatalf("ConfigMap data = %v after update", cm.Data)
	}

	if err := foos.Delete(ctx, "web", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	rec.waitOutcome(t, "shop/web", Deleted)
	if _, err := kube.CoreV1().ConfigMaps("shop").Get(ctx, "web", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("ConfigMap of deleted Foo: %v", err)
	}
}

func TestControllerFailuresRetryWithGrowingDelays(t *testing.T) {
	kube, samples := kubefake.NewClientset(), samplesfake.NewSimpleClientset(foo("shop", "web", nil))
	var mu sync.Mutex
	failures := 3
	kube.PrependReactor("create", "configmaps", func(clienttesting.Action) (bool, runtime.Object, error) {
		mu.Lock()
		defer mu.Unlock()
		if failures > 0 {
			failures--
			return true, nil, apierrors.NewServiceUnavailable("try later")
		}
		return false, nil, nil
	})
	limiter := &recordingLimiter{TypedRateLimiter: workqueue.NewTypedItemExponentialFailureRateLimiter[controller.Request](time.Millisecond, time.Second)}
	rec := runController(t, kube, samples, NewInformers(kube, samples, 0), controller.Options{RateLimiter: limiter})

	rec.waitOutcome(t, "shop/web", Created)
	var errs int
	for _, e := range rec.snapshot() {
		if e.req.String() == "shop/web" && e.err != nil {
			errs++
		}
	}
	if errs != 3 {
		t.Fatalf("saw %d failed reconciles before success, want 3", errs)
	}
	if got, want := limiter.recorded()[:3], []time.Duration{time.Millisecond, 2 * time.Millisecond, 4 * time.Millisecond}; !slices.Equal(got, want) {
		t.Fatalf("retry delays = %v, want %v", got, want)
	}
}

func TestControllerConflictIsNotRetried(t *testing.T) {
	foreign := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web"}}
	kube, samples := kubefake.NewClientset(foreign), samplesfake.NewSimpleClientset(foo("shop", "web", nil))
	limiter := &recordingLimiter{TypedRateLimiter: workqueue.NewTypedItemExponentialFailureRateLimiter[controller.Request](time.Millisecond, time.Second)}
	rec := runController(t, kube, samples, NewInformers(kube, samples, 0), controller.Options{RateLimiter: limiter})
	testutil.Eventually(t, "the conflict", func() bool {
		for _, e := range rec.snapshot() {
			if errors.Is(e.err, ErrConflict) {
				return true
			}
		}
		return false
	})
	if d := limiter.recorded(); len(d) != 0 {
		t.Fatalf("a terminal conflict was retried with delays %v", d)
	}
}

// The ConfigMap informer here is fed by the runtime's fake API server, whose
// watches expire (410) while the controller runs; the kube fake clientset's
// ConfigMap writes are forwarded to that server. A ConfigMap deleted behind
// the controller's back while its watch is broken must still be recreated.
func TestControllerRecoversFromExpiredWatchesOnTheRuntimeFake(t *testing.T) {
	srv := fake.NewServer[*corev1.ConfigMap](fake.WithResource(corev1.Resource("configmaps")))
	kube := kubefake.NewClientset()
	forwardConfigMaps(kube, srv)
	samples := samplesfake.NewSimpleClientset(foo("shop", "web", map[string]string{"k": "v"}))

	inf := NewInformers(kube, samples, 0)
	// Replace the factory's ConfigMap informer with one on the runtime fake.
	inf.Kube = withConfigMapsFrom(inf.Kube, srv)
	rec := runController(t, kube, samples, inf, controller.Options{})
	rec.waitOutcome(t, "shop/web", Created)

	srv.ExpireWatches()
	if err := srv.Delete("shop", "web"); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, "the ConfigMap to be recreated", func() bool {
		var created int
		for _, e := range rec.snapshot() {
			if e.outcome == Created {
				created++
			}
		}
		_, err := srv.Get("shop", "web")
		return created == 2 && err == nil
	})
}

// forwardConfigMaps makes the kube fake clientset write ConfigMaps to srv.
func forwardConfigMaps(kube *kubefake.Clientset, srv *fake.Server[*corev1.ConfigMap]) {
	kube.PrependReactor("*", "configmaps", func(a clienttesting.Action) (bool, runtime.Object, error) {
		switch a := a.(type) {
		case clienttesting.UpdateAction:
			// CreateAction has the same methods: only the verb tells them apart.
			if a.GetVerb() == "update" {
				obj, err := srv.Update(a.GetObject().(*corev1.ConfigMap))
				return true, obj, err
			}
			obj, err := srv.Create(a.GetObject().(*corev1.ConfigMap))
			return true, obj, err
		case clienttesting.DeleteAction:
			return true, nil, srv.Delete(a.GetNamespace(), a.GetName())
		case clienttesting.GetAction:
			obj, err := srv.Get(a.GetNamespace(), a.GetName())
			return true, obj, err
		}
		return false, nil, nil
	})
	kube.PrependWatchReactor("configmaps", func(clienttesting.Action) (bool, watch.Interface, error) {
		return true, nil, errors.New("configmaps are served by the runtime fake in this test")
	})
}

// withConfigMapsFrom registers, before anything asks for it, a ConfigMap
// informer on srv as the factory's informer for ConfigMaps: InformerFor
// keeps the first informer of a type, so the generated accessors return it.
func withConfigMapsFrom(f kubeinformers.SharedInformerFactory, srv *fake.Server[*corev1.ConfigMap]) kubeinformers.SharedInformerFactory {
	informers.InformerFor(f.Base(), true, func(namespace string, resync time.Duration) cache.SharedIndexInformer[*corev1.ConfigMap] {
		return cache.NewSharedIndexInformer[*corev1.ConfigMap](srv.ListerWatcher(namespace), resync, nil)
	})
	return f
}
