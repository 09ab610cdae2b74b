package clientgo_test

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/informers/internalinterfaces"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	appslisters "k8s.io/client-go/listers/apps/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/ptr"

	"github.com/typedinformer/typedinformer/clientgo"
)

// infoController is a controller written the way client-go's
// sample-controller is: for every Deployment a ConfigMap "<name>-info"
// holding its replica count, owned by the Deployment; ConfigMap events
// requeue their owner (also for deletes the informer missed); listers are
// read in syncHandler. It knows only client-go's interfaces.
type infoController struct {
	client      kubernetes.Interface
	deployments appslisters.DeploymentLister
	configMaps  corelisters.ConfigMapLister
	synced      []toolscache.InformerSynced
	queue       workqueue.TypedRateLimitingInterface[toolscache.ObjectName]
}

func newInfoController(client kubernetes.Interface, factory informers.SharedInformerFactory) (*infoController, error) {
	d := factory.Apps().V1().Deployments()
	cm := factory.Core().V1().ConfigMaps()
	c := &infoController{
		client:      client,
		deployments: d.Lister(),
		configMaps:  cm.Lister(),
		synced:      []toolscache.InformerSynced{d.Informer().HasSynced, cm.Informer().HasSynced},
		queue: workqueue.NewTypedRateLimitingQueue(
			workqueue.NewTypedItemExponentialFailureRateLimiter[toolscache.ObjectName](time.Millisecond, time.Second)),
	}
	if _, err := d.Informer().AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc:    c.enqueue,
		UpdateFunc: func(_, obj any) { c.enqueue(obj) },
	}); err != nil {
		return nil, err
	}
	if _, err := cm.Informer().AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc:    c.handleObject,
		UpdateFunc: func(_, obj any) { c.handleObject(obj) },
		DeleteFunc: c.handleObject,
	}); err != nil {
		return nil, err
	}
	return c, nil
}

func (c *infoController) enqueue(obj any) {
	if ref, err := toolscache.ObjectToName(obj); err == nil {
		c.queue.Add(ref)
	}
}

func (c *infoController) handleObject(obj any) {
	if tombstone, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
		obj = tombstone.Obj
	}
	o, ok := obj.(metav1.Object)
	if !ok {
		return
	}
	if owner := metav1.GetControllerOf(o); owner != nil && owner.Kind == "Deployment" {
		c.queue.Add(toolscache.ObjectName{Namespace: o.GetNamespace(), Name: owner.Name})
	}
}

func (c *infoController) run(ctx context.Context, workers int) error {
	defer c.queue.ShutDown()
	if !toolscache.WaitForCacheSync(ctx.Done(), c.synced...) {
		return fmt.Errorf("caches did not sync")
	}
	for range workers {
		go wait.UntilWithContext(ctx, func(ctx context.Context) {
			for c.processNext(ctx) {
			}
		}, time.Millisecond)
	}
	<-ctx.Done()
	return nil
}

func (c *infoController) processNext(ctx context.Context) bool {
	ref, shutdown := c.queue.Get()
	if shutdown {
		return false
	}
	defer c.queue.Done(ref)
	if err := c.sync(ctx, ref); err != nil {
		c.queue.AddRateLimited(ref)
		return true
	}
	c.queue.Forget(ref)
	return true
}

func (c *infoController) sync(ctx context.Context, ref toolscache.ObjectName) error {
	d, err := c.deployments.Deployments(ref.Namespace).Get(ref.Name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	want := map[string]string{"replicas": strconv.Itoa(int(ptr.Deref(d.Spec.Replicas, 1)))}
	cm, err := c.configMaps.ConfigMaps(d.Namespace).Get(d.Name + "-info")
	if apierrors.IsNotFound(err) {
		_, err = c.client.CoreV1().ConfigMaps(d.Namespace).Create(ctx, &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Namespace: d.Namespace, Name: d.Name + "-info",
				OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(d, appsv1.SchemeGroupVersion.WithKind("Deployment"))}},
			Data: want,
		}, metav1.CreateOptions{})
		return err
	}
	if err != nil {
		return err
	}
	if !metav1.IsControlledBy(cm, d) {
		return fmt.Errorf("configmap %s/%s is not controlled by its deployment", cm.Namespace, cm.Name)
	}
	if cm.Data["replicas"] == want["replicas"] {
		return nil
	}
	cm = cm.DeepCopy()
	cm.Data = want
	_, err = c.client.CoreV1().ConfigMaps(cm.Namespace).Update(ctx, cm, metav1.UpdateOptions{})
	return err
}

// ours is the InformerFor constructor of this package's informer for one
// type, over the ListerWatcher client-go's generated informer builds.
func ours(example runtime.Object,
	list func(kubernetes.Interface) func(context.Context, metav1.ListOptions) (runtime.Object, error),
	watchFn func(kubernetes.Interface) func(context.Context, metav1.ListOptions) (watch.Interface, error)) internalinterfaces.NewInformerFunc {
	return func(client kubernetes.Interface, resync time.Duration) toolscache.SharedIndexInformer {
		lw := toolscache.ToListWatcherWithWatchListSemantics(&toolscache.ListWatch{
			ListWithContextFunc:  list(client),
			WatchFuncWithContext: watchFn(client),
		}, client)
		return clientgo.NewSharedIndexInformer(lw, example, resync, toolscache.Indexers{toolscache.NamespaceIndex: toolscache.MetaNamespaceIndexFunc})
	}
}

func deployment(ns, name string, replicas int32) *appsv1.Deployment {
	return &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: types.UID("uid-" + name)},
		Spec: appsv1.DeploymentSpec{Replicas: ptr.To(replicas)}}
}

// runInfoController runs the controller on a fake clientset through a
// SharedInformerFactory, with this package's informers swapped in when
// swap is set, and returns the ConfigMaps' final state.
func runInfoController(t *testing.T, swap bool) []string {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	client := fake.NewClientset(deployment("a", "d1", 1), deployment("a", "d2", 2))
	factory := informers.NewSharedInformerFactory(client, 0)
	if swap {
		factory.InformerFor(&appsv1.Deployment{}, ours(&appsv1.Deployment{},
			func(c kubernetes.Interface) func(context.Context, metav1.ListOptions) (runtime.Object, error) {
				return func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
					return c.AppsV1().Deployments("").List(ctx, o)
				}
			},
			func(c kubernetes.Interface) func(context.Context, metav1.ListOptions) (watch.Interface, error) {
				return func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
					return c.AppsV1().Deployments("").Watch(ctx, o)
				}
			}))
		factory.InformerFor(&corev1.ConfigMap{}, ours(&corev1.ConfigMap{},
			func(c kubernetes.Interface) func(context.Context, metav1.ListOptions) (runtime.Object, error) {
				return func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
					return c.CoreV1().ConfigMaps("").List(ctx, o)
				}
			},
			func(c kubernetes.Interface) func(context.Context, metav1.ListOptions) (watch.Interface, error) {
				return func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
					return c.CoreV1().ConfigMaps("").Watch(ctx, o)
				}
			}))
	}
	c, err := newInfoController(client, factory)
	if err != nil {
		t.Fatal(err)
	}
	// InformerFor returns the informer the factory holds for a type (the
	// generated Informer() methods return a typed view of it).
	unexpected := func(kubernetes.Interface, time.Duration) toolscache.SharedIndexInformer {
		t.Fatal("the factory has no informer yet")
		return nil
	}
	for _, inf := range []toolscache.SharedIndexInformer{factory.InformerFor(&appsv1.Deployment{}, unexpected), factory.InformerFor(&corev1.ConfigMap{}, unexpected)} {
		if _, isOurs := inf.(lastErrorer); isOurs != swap {
			t.Fatalf("factory informer %T: swapped in = %v, want %v", inf, isOurs, swap)
		}
	}
	factory.Start(ctx.Done())
	defer factory.Shutdown()
	for typ, ok := range factory.WaitForCacheSync(ctx.Done()) {
		if !ok {
			t.Fatalf("%v did not sync", typ)
		}
	}
	done := make(chan error, 1)
	go func() { done <- c.run(ctx, 2) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()

	cms := client.CoreV1().ConfigMaps("a")
	state := func() []string {
		list, err := cms.List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, cm := range list.Items {
			out = append(out, fmt.Sprintf("%s replicas=%s owner=%s", cm.Name, cm.Data["replicas"], metav1.GetControllerOf(&cm).Name))
		}
		slices.Sort(out)
		return out
	}
	waitState := func(want ...string) {
		t.Helper()
		waitFor(t, fmt.Sprintf("ConfigMaps %q", want), func() bool { return slices.Equal(state(), want) })
	}
	waitState("d1-info replicas=1 owner=d1", "d2-info replicas=2 owner=d2")

	// An update from the fake clientset keeps resourceVersion "".
	if _, err := client.AppsV1().Deployments("a").Update(ctx, deployment("a", "d1", 3), metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitState("d1-info replicas=3 owner=d1", "d2-info replicas=2 owner=d2")
	// A deleted ConfigMap is recreated through its owner.
	if err := cms.Delete(ctx, "d2-info", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "d2-info recreated", func() bool {
		_, err := c.configMaps.ConfigMaps("a").Get("d2-info")
		return err == nil
	})
	waitState("d1-info replicas=3 owner=d1", "d2-info replicas=2 owner=d2")
	return state()
}

// TestSharedInformerFactoryInformerFor runs the same client-go controller on
// client-go's factory as is and with this package's informers swapped in
// through InformerFor: both must reach the same state.
func TestSharedInformerFactoryInformerFor(t *testing.T) {
	want := runInfoController(t, false)
	if got := runInfoController(t, true); !slices.Equal(got, want) {
		t.Errorf("with clientgo informers: %q, with client-go's: %q", got, want)
	}
}
