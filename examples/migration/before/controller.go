// Package controller is a Foo controller for the API of examples/crd:
// every Foo gets a ConfigMap holding its spec's data, owned by the Foo, and
// the Foo's status says whether the ConfigMap is in place. It is written
// the way client-go's sample-controller is: a rate-limited workqueue of
// cache.ObjectName, a handler that requeues a ConfigMap's owner (also for
// deletes the informer missed), listers read in syncHandler.
//
// This file exists twice for the migration guide (docs/migration.md):
// before/ against client-go and upstream-generated informers, after/ ported
// onto typedinformer. Their diff is the port.
package controller

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"time"

	"golang.org/x/time/rate"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"

	samplesv1alpha1 "github.com/typedinformer/typedinformer/examples/crd/apis/samples/v1alpha1"
	clientset "github.com/typedinformer/typedinformer/examples/crd/pkg/generated/clientset/versioned"
	informers "github.com/typedinformer/typedinformer/examples/migration/before/generated/informers/externalversions/samples/v1alpha1"
	listers "github.com/typedinformer/typedinformer/examples/migration/before/generated/listers/samples/v1alpha1"
)

// Phases written to FooStatus.Phase.
const (
	PhaseReady  = "Ready"
	PhaseFailed = "Failed"
)

// ErrConfigMapNotOwned is the sync error for a Foo whose ConfigMap name is
// taken by a ConfigMap that the Foo does not control.
var ErrConfigMapNotOwned = errors.New("configmap exists and is not owned by the foo")

// Controller reconciles Foos with their ConfigMaps. Create it with
// NewController and start it with Run.
type Controller struct {
	kubeclientset   kubernetes.Interface
	sampleclientset clientset.Interface

	configMapsLister corelisters.ConfigMapLister
	configMapsSynced cache.InformerSynced
	foosLister       listers.FooLister
	foosSynced       cache.InformerSynced

	// workqueue holds the names of Foos to sync. Handlers add to it; the
	// workers take a name at a time, so that one Foo is never synced by two
	// workers at once.
	workqueue workqueue.TypedRateLimitingInterface[cache.ObjectName]
}

// NewController registers the controller's handlers on the two informers
// and returns it; the informers' factories must be started by the caller.
func NewController(
	ctx context.Context,
	kubeclientset kubernetes.Interface,
	sampleclientset clientset.Interface,
	configMapInformer coreinformers.ConfigMapInformer,
	fooInformer informers.FooInformer) (*Controller, error) {
	logger := klog.FromContext(ctx)
	ratelimiter := workqueue.NewTypedMaxOfRateLimiter(
		workqueue.NewTypedItemExponentialFailureRateLimiter[cache.ObjectName](5*time.Millisecond, 1000*time.Second),
		&workqueue.TypedBucketRateLimiter[cache.ObjectName]{Limiter: rate.NewLimiter(rate.Limit(50), 300)},
	)

	c := &Controller{
		kubeclientset:    kubeclientset,
		sampleclientset:  sampleclientset,
		configMapsLister: configMapInformer.Lister(),
		configMapsSynced: configMapInformer.Informer().HasSynced,
		foosLister:       fooInformer.Lister(),
		foosSynced:       fooInformer.Informer().HasSynced,
		workqueue:        workqueue.NewTypedRateLimitingQueue(ratelimiter),
	}

	logger.Info("Setting up event handlers")
	if _, err := fooInformer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: c.enqueueFoo,
		UpdateFunc: func(old, new interface{}) {
			c.enqueueFoo(new)
		},
	}); err != nil {
		return nil, fmt.Errorf("adding the Foo handler: %w", err)
	}
	// A ConfigMap owned by a Foo that changes or goes away requeues its Foo,
	// so that the ConfigMap is put back.
	if _, err := configMapInformer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: c.handleObject,
		UpdateFunc: func(old, new interface{}) {
			newConfigMap := new.(*corev1.ConfigMap)
			oldConfigMap := old.(*corev1.ConfigMap)
			if newConfigMap.ResourceVersion == oldConfigMap.ResourceVersion {
				// A resync: nothing changed.
				return
			}
			c.handleObject(new)
		},
		DeleteFunc: c.handleObject,
	}); err != nil {
		return nil, fmt.Errorf("adding the ConfigMap handler: %w", err)
	}
	return c, nil
}

// Run waits for the caches, starts workers goroutines and blocks until ctx
// is done; then it shuts the queue down and waits for the workers.
func (c *Controller) Run(ctx context.Context, workers int) error {
	defer utilruntime.HandleCrash()
	defer c.workqueue.ShutDown()
	logger := klog.FromContext(ctx)

	logger.Info("Waiting for informer caches to sync")
	if ok := cache.WaitForCacheSync(ctx.Done(), c.configMapsSynced, c.foosSynced); !ok {
		return fmt.Errorf("failed to wait for caches to sync")
	}

	logger.Info("Starting workers", "count", workers)
	for i := 0; i < workers; i++ {
		go wait.UntilWithContext(ctx, c.runWorker, time.Second)
	}

	logger.Info("Started workers")
	<-ctx.Done()
	logger.Info("Shutting down workers")
	return nil
}

// runWorker processes queue items until the queue shuts down.
func (c *Controller) runWorker(ctx context.Context) {
	for c.processNextWorkItem(ctx) {
	}
}

// processNextWorkItem syncs one Foo; a failed sync is retried with backoff,
// a successful one resets the Foo's backoff.
func (c *Controller) processNextWorkItem(ctx context.Context) bool {
	objRef, shutdown := c.workqueue.Get()
	logger := klog.FromContext(ctx)

	if shutdown {
		return false
	}
	defer c.workqueue.Done(objRef)

	err := c.syncHandler(ctx, objRef)
	if err == nil {
		c.workqueue.Forget(objRef)
		logger.Info("Successfully synced", "objectName", objRef)
		return true
	}
	utilruntime.HandleErrorWithContext(ctx, err, "Error syncing; requeuing for later retry", "objectReference", objRef)
	c.workqueue.AddRateLimited(objRef)
	return true
}

// syncHandler makes the Foo's ConfigMap match its spec and records the
// outcome in the Foo's status.
func (c *Controller) syncHandler(ctx context.Context, objectRef cache.ObjectName) error {
	logger := klog.LoggerWithValues(klog.FromContext(ctx), "objectRef", objectRef)

	foo, err := c.foosLister.Foos(objectRef.Namespace).Get(objectRef.Name)
	if err != nil {
		if apierrors.IsNotFound(err) {
			// Deleted: the garbage collector removes the owned ConfigMap.
			logger.V(4).Info("Foo no longer exists")
			return nil
		}
		return err
	}

	configMapName := foo.Spec.ConfigMapName
	if configMapName == "" {
		configMapName = foo.Name
	}

	configMap, err := c.configMapsLister.ConfigMaps(foo.Namespace).Get(configMapName)
	if apierrors.IsNotFound(err) {
		configMap, err = c.kubeclientset.CoreV1().ConfigMaps(foo.Namespace).Create(ctx, configMapFor(foo, configMapName), metav1.CreateOptions{FieldManager: FieldManager})
	}
	if err != nil {
		return err
	}

	if !metav1.IsControlledBy(configMap, foo) {
		if statusErr := c.updateFooStatus(ctx, foo, configMapName, PhaseFailed, fmt.Sprintf("ConfigMap %q already exists and is not managed by this Foo", configMapName)); statusErr != nil {
			return statusErr
		}
		return fmt.Errorf("%w: %s/%s", ErrConfigMapNotOwned, foo.Namespace, configMapName)
	}

	if !maps.Equal(configMap.Data, foo.Spec.Data) {
		logger.V(4).Info("Updating ConfigMap data", "configMap", configMapName)
		configMap, err = c.kubeclientset.CoreV1().ConfigMaps(foo.Namespace).Update(ctx, configMapFor(foo, configMapName), metav1.UpdateOptions{FieldManager: FieldManager})
		if err != nil {
			return err
		}
	}

	return c.updateFooStatus(ctx, foo, configMap.Name, PhaseReady, "")
}

// FieldManager names this controller in the objects it writes.
const FieldManager = "foo-controller"

// updateFooStatus writes status unless it is already there. The Foo comes
// from the cache, so it is copied before it is changed.
func (c *Controller) updateFooStatus(ctx context.Context, foo *samplesv1alpha1.Foo, configMapName, phase, message string) error {
	want := samplesv1alpha1.FooStatus{ObservedGeneration: foo.Generation, ConfigMapName: configMapName, Phase: phase, Message: message}
	if foo.Status == want {
		return nil
	}
	fooCopy := foo.DeepCopy()
	fooCopy.Status = want
	_, err := c.sampleclientset.SamplesV1alpha1().Foos(foo.Namespace).UpdateStatus(ctx, fooCopy, metav1.UpdateOptions{FieldManager: FieldManager})
	return err
}

// enqueueFoo adds a Foo's name to the workqueue.
func (c *Controller) enqueueFoo(obj interface{}) {
	if objectRef, err := cache.ObjectToName(obj); err != nil {
		utilruntime.HandleError(err)
		return
	} else {
		c.workqueue.Add(objectRef)
	}
}

// handleObject requeues the Foo that controls a ConfigMap, if any. For a
// delete the informer may only know the ConfigMap's last state.
func (c *Controller) handleObject(obj interface{}) {
	var object metav1.Object
	var ok bool
	logger := klog.FromContext(context.Background())
	if object, ok = obj.(metav1.Object); !ok {
		tombstone, ok := obj.(cache.DeletedFinalStateUnknown)
		if !ok {
			utilruntime.HandleError(fmt.Errorf("error decoding object, invalid type %T", obj))
			return
		}
		object, ok = tombstone.Obj.(metav1.Object)
		if !ok {
			utilruntime.HandleError(fmt.Errorf("error decoding object tombstone, invalid type %T", tombstone.Obj))
			return
		}
		logger.V(4).Info("Recovered deleted object", "resourceName", object.GetName())
	}
	logger.V(4).Info("Processing object", "object", klog.KObj(object))
	ownerRef := metav1.GetControllerOf(object)
	if ownerRef == nil || ownerRef.Kind != "Foo" {
		return
	}
	foo, err := c.foosLister.Foos(object.GetNamespace()).Get(ownerRef.Name)
	if err != nil {
		logger.V(4).Info("Ignore orphaned object", "object", klog.KObj(object), "foo", ownerRef.Name)
		return
	}
	c.enqueueFoo(foo)
}

// configMapFor returns the ConfigMap a Foo asks for, controlled by the Foo.
func configMapFor(foo *samplesv1alpha1.Foo, name string) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{
			Name:      name,
			Namespace: foo.Namespace,
			Labels:    map[string]string{"foo": foo.Name},
			OwnerReferences: []metav1.OwnerReference{
				*metav1.NewControllerRef(foo, schema.GroupVersion(samplesv1alpha1.GroupVersion).WithKind("Foo")),
			},
		},
		Data: maps.Clone(foo.Spec.Data),
	}
}
