// Package controller holds the example's Foo controller: each Foo gets a
// ConfigMap with its data (merged over its FooClass's defaults), owned by the
// Foo, and the Foo's status says what happened. A MaintenanceWindow covering
// the Foo's namespace pauses it.
package controller

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"

	opsv1 "github.com/typedinformer/typedinformer/examples/crd/apis/ops/v1"
	samplesv1alpha1 "github.com/typedinformer/typedinformer/examples/crd/apis/samples/v1alpha1"
	"github.com/typedinformer/typedinformer/examples/crd/pkg/generated/clientset/versioned"
	opslisters "github.com/typedinformer/typedinformer/examples/crd/pkg/generated/listers/ops/v1"
	sampleslisters "github.com/typedinformer/typedinformer/examples/crd/pkg/generated/listers/samples/v1alpha1"
	corelisters "github.com/typedinformer/typedinformer/kube/listers/core/v1"
)

// FooLabel marks a ConfigMap with the name of the Foo that owns it, so that a
// deleted Foo's ConfigMap can be found without the Foo.
const FooLabel = "samples.typedinformer.dev/foo"

// Phases a Foo's status reports.
const (
	PhaseReady  = "Ready"
	PhasePaused = "Paused"
	PhaseFailed = "Failed"
)

// Outcome says what one reconcile did; tests and the demo print it.
type Outcome string

// Outcomes of Reconcile.
const (
	Created   Outcome = "created"
	Updated   Outcome = "updated"
	Unchanged Outcome = "unchanged"
	Deleted   Outcome = "deleted"
	Paused    Outcome = "paused"
	Conflict  Outcome = "conflict"
)

// ErrConflict marks a ConfigMap that exists but belongs to something else:
// retrying cannot fix it, the user must.
var ErrConflict = errors.New("configmap is not owned by this Foo")

// Reconciler turns Foos into ConfigMaps. It reads only from listers (the
// informers' caches) and writes through the clientsets. It is safe for
// concurrent use on different keys.
type Reconciler struct {
	Kube       kubernetes.Interface
	Samples    versioned.Interface
	Foos       sampleslisters.FooLister
	FooClasses sampleslisters.FooClassLister
	Windows    opslisters.MaintenanceWindowLister
	ConfigMaps corelisters.ConfigMapLister
	// Fence, when set, is asked before every reconcile whether this replica
	// may still write (e.g. whether its leader Lease is still its own). An
	// error skips the reconcile; the request is retried after FenceRetry.
	Fence func() error
}

// FenceRetry is how long a request a Fence turned away waits before it is
// tried again: by then the replica either renewed its Lease or stopped.
const FenceRetry = time.Second

// Reconcile brings the ConfigMap of Foo namespace/name in line with the Foo
// and records the result in the Foo's status. A returned error is retried
// with backoff unless it wraps ErrConflict.
func (r *Reconciler) Reconcile(ctx context.Context, namespace, name string) (Outcome, error) {
	logger := klog.FromContext(ctx).WithValues("foo", klog.KRef(namespace, name))
	foo, err := r.Foos.Foos(namespace).Get(name)
	if apierrors.IsNotFound(err) {
		return r.deleteOrphans(ctx, namespace, name)
	}
	if err != nil {
		return "", err
	}
	if window, paused := r.pausedBy(namespace); paused {
		logger.V(2).Info("paused by maintenance window", "window", window.Name)
		return Paused, r.setStatus(ctx, foo, "", PhasePaused, fmt.Sprintf("paused by MaintenanceWindow %s: %s", window.Name, window.Spec.Reason))
	}

	data, err := r.desiredData(foo)
	if err != nil {
		_ = r.setStatus(ctx, foo, "", PhaseFailed, err.Error())
		return "", err
	}
	cmName := foo.Spec.ConfigMapName
	if cmName == "" {
		cmName = foo.Name
	}
	outcome, err := r.applyConfigMap(ctx, foo, cmName, data)
	if errors.Is(err, ErrConflict) {
		return Conflict, errors.Join(err, r.setStatus(ctx, foo, cmName, PhaseFailed, err.Error()))
	}
	if err != nil {
		return "", err
	}
	logger.V(2).Info("reconciled", "configMap", cmName, "outcome", outcome)
	return outcome, r.setStatus(ctx, foo, cmName, PhaseReady, "")
}

// desiredData merges the Foo's data over its class's defaults.
func (r *Reconciler) desiredData(foo *samplesv1alpha1.Foo) (map[string]string, error) {
	data := map[string]string{}
	if foo.Spec.ClassName != "" {
		class, err := r.FooClasses.Get(foo.Spec.ClassName)
		if err != nil {
			return nil, fmt.Errorf("FooClass %q of Foo %s/%s: %w", foo.Spec.ClassName, foo.Namespace, foo.Name, err)
		}
		maps.Copy(data, class.Spec.Defaults)
	}
	maps.Copy(data, foo.Spec.Data)
	return data, nil
}

func (r *Reconciler) applyConfigMap(ctx context.Context, foo *samplesv1alpha1.Foo, cmName string, data map[string]string) (Outcome, error) {
	existing, err := r.ConfigMaps.ConfigMaps(foo.Namespace).Get(cmName)
	if apierrors.IsNotFound(err) {
		cm := &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{
				Namespace:       foo.Namespace,
				Name:            cmName,
				Labels:          map[string]string{FooLabel: foo.Name},
				OwnerReferences: []metav1.OwnerReference{ownerRef(foo)},
			},
			Data: data,
		}
		if _, err := r.Kube.CoreV1().ConfigMaps(foo.Namespace).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
			return "", fmt.Errorf("creating ConfigMap %s/%s: %w", foo.Namespace, cmName, err)
		}
		return Created, nil
	}
	if err != nil {
		return "", err
	}
	if !metav1.IsControlledBy(existing, foo) {
		return "", fmt.Errorf("ConfigMap %s/%s: %w", foo.Namespace, cmName, ErrConflict)
	}
	if maps.Equal(existing.Data, data) {
		return Unchanged, nil
	}
	cm := existing.DeepCopy() // the lister's object belongs to the cache
	cm.Data = data
	if _, err := r.Kube.CoreV1().ConfigMaps(foo.Namespace).Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
		return "", fmt.Errorf("updating ConfigMap %s/%s: %w", foo.Namespace, cmName, err)
	}
	return Updated, nil
}

// deleteOrphans removes the ConfigMaps a deleted Foo owned. On a real
// cluster the garbage collector would too; doing it here keeps the fake
// clientset demo and the controller's contract the same.
func (r *Reconciler) deleteOrphans(ctx context.Context, namespace, name string) (Outcome, error) {
	cms, err := r.ConfigMaps.ConfigMaps(namespace).List(labels.SelectorFromSet(labels.Set{FooLabel: name}))
	if err != nil {
		return "", err
	}
	if len(cms) == 0 {
		return Unchanged, nil
	}
	for _, cm := range cms {
		err := r.Kube.CoreV1().ConfigMaps(namespace).Delete(ctx, cm.Name, metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			return "", fmt.Errorf("deleting ConfigMap %s/%s of deleted Foo %s: %w", namespace, cm.Name, name, err)
		}
	}
	return Deleted, nil
}

func (r *Reconciler) pausedBy(namespace string) (*opsv1.MaintenanceWindow, bool) {
	windows, err := r.Windows.List(labels.Everything())
	if err != nil {
		return nil, false
	}
	slices.SortFunc(windows, func(a, b *opsv1.MaintenanceWindow) int {
		switch {
		case a.Name < b.Name:
			return -1
		case a.Name > b.Name:
			return 1
		}
		return 0
	})
	for _, w := range windows {
		if len(w.Spec.Namespaces) == 0 || slices.Contains(w.Spec.Namespaces, namespace) {
			return w, true
		}
	}
	return nil, false
}

// setStatus writes the Foo's status when it changed.
func (r *Reconciler) setStatus(ctx context.Context, foo *samplesv1alpha1.Foo, cmName, phase, message string) error {
	want := samplesv1alpha1.FooStatus{
		ObservedGeneration: foo.Generation,
		ConfigMapName:      cmName,
		Phase:              phase,
		Message:            message,
	}
	if foo.Status == want {
		return nil
	}
	updated := foo.DeepCopy()
	updated.Status = want
	if _, err := r.Samples.SamplesV1alpha1().Foos(foo.Namespace).UpdateStatus(ctx, updated, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("updating status of Foo %s/%s: %w", foo.Namespace, foo.Name, err)
	}
	return nil
}

func ownerRef(foo *samplesv1alpha1.Foo) metav1.OwnerReference {
	return *metav1.NewControllerRef(foo, schema.GroupVersion(samplesv1alpha1.GroupVersion).WithKind("Foo"))
}
