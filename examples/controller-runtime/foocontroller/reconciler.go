// Package foocontroller is a controller-runtime Reconciler for examples/crd's Foo: each
// Foo gets a ConfigMap holding its data merged over its FooClass's defaults,
// controlled by the Foo, and the Foo's status says what happened.
//
// It is written as a kubebuilder project would write it. Nothing in it knows
// which cache backs the manager: NewManager's options choose crcache.New
// (the default) or controller-runtime's cache.New, and the informers of
// either (see Options).
package foocontroller

import (
	"context"
	"errors"
	"fmt"
	"maps"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"

	samplesv1alpha1 "github.com/typedinformer/typedinformer/examples/crd/apis/samples/v1alpha1"
)

// Phases a Foo's status reports.
const (
	PhaseReady  = "Ready"
	PhaseFailed = "Failed"
)

// ErrConflict marks a ConfigMap that exists but is controlled by something
// else: retrying cannot fix it, the user must.
var ErrConflict = errors.New("configmap is not controlled by this Foo")

// Reconciler turns Foos into ConfigMaps. It reads through the manager's
// client (the cache) and writes through it to the API server. It is safe for
// concurrent use on different keys.
type Reconciler struct {
	client.Client
}

// Reconcile brings the ConfigMap of the Foo named by req in line with the Foo
// and records the result in the Foo's status. A deleted Foo needs nothing:
// its ConfigMap carries an owner reference, so the garbage collector deletes
// it.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	logger := log.FromContext(ctx)
	foo := &samplesv1alpha1.Foo{}
	if err := r.Get(ctx, req.NamespacedName, foo); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	data, err := r.desiredData(ctx, foo)
	if err != nil {
		return ctrl.Result{}, errors.Join(err, r.setStatus(ctx, foo, "", PhaseFailed, err.Error()))
	}
	cmName := ConfigMapName(foo)
	op, err := r.applyConfigMap(ctx, foo, cmName, data)
	if errors.Is(err, ErrConflict) {
		// Not retried: the status tells the user.
		return ctrl.Result{}, r.setStatus(ctx, foo, cmName, PhaseFailed, err.Error())
	}
	if err != nil {
		return ctrl.Result{}, err
	}
	logger.V(1).Info("reconciled", "configMap", cmName, "operation", op)
	return ctrl.Result{}, r.setStatus(ctx, foo, cmName, PhaseReady, "")
}

// ConfigMapName is the name of the ConfigMap a Foo asks for.
func ConfigMapName(foo *samplesv1alpha1.Foo) string {
	if foo.Spec.ConfigMapName != "" {
		return foo.Spec.ConfigMapName
	}
	return foo.Name
}

// desiredData merges the Foo's data over its class's defaults.
func (r *Reconciler) desiredData(ctx context.Context, foo *samplesv1alpha1.Foo) (map[string]string, error) {
	data := map[string]string{}
	if foo.Spec.ClassName != "" {
		class := &samplesv1alpha1.FooClass{}
		if err := r.Get(ctx, types.NamespacedName{Name: foo.Spec.ClassName}, class); err != nil {
			return nil, fmt.Errorf("FooClass %q of Foo %s/%s: %w", foo.Spec.ClassName, foo.Namespace, foo.Name, err)
		}
		maps.Copy(data, class.Spec.Defaults)
	}
	maps.Copy(data, foo.Spec.Data)
	return data, nil
}

func (r *Reconciler) applyConfigMap(ctx context.Context, foo *samplesv1alpha1.Foo, name string, data map[string]string) (controllerutil.OperationResult, error) {
	existing := &corev1.ConfigMap{}
	err := r.Get(ctx, types.NamespacedName{Namespace: foo.Namespace, Name: name}, existing)
	switch {
	case apierrors.IsNotFound(err):
		cm := &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Namespace: foo.Namespace, Name: name},
			Data:       data,
		}
		if err := controllerutil.SetControllerReference(foo, cm, r.Scheme()); err != nil {
			return controllerutil.OperationResultNone, err
		}
		if err := r.Create(ctx, cm); err != nil {
			return controllerutil.OperationResultNone, fmt.Errorf("creating ConfigMap %s/%s: %w", foo.Namespace, name, err)
		}
		return controllerutil.OperationResultCreated, nil
	case err != nil:
		return controllerutil.OperationResultNone, err
	}
	if !metav1.IsControlledBy(existing, foo) {
		return controllerutil.OperationResultNone, fmt.Errorf("ConfigMap %s/%s: %w", foo.Namespace, name, ErrConflict)
	}
	if maps.Equal(existing.Data, data) {
		return controllerutil.OperationResultNone, nil
	}
	cm := existing.DeepCopy() // the cache's object is shared, never written
	cm.Data = data
	if err := r.Update(ctx, cm); err != nil {
		return controllerutil.OperationResultNone, fmt.Errorf("updating ConfigMap %s/%s: %w", foo.Namespace, name, err)
	}
	return controllerutil.OperationResultUpdated, nil
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
	if err := r.Status().Update(ctx, updated); err != nil && !apierrors.IsConflict(err) {
		return fmt.Errorf("updating status of Foo %s/%s: %w", foo.Namespace, foo.Name, err)
	}
	// A conflict means a newer Foo is on its way to the cache; its event
	// brings the key back.
	return nil
}

// SetupWithManager registers the Reconciler as controller name (default
// "foo"): Foos are the primary resource,
// the ConfigMaps they control are owned (a change or deletion of one brings
// its Foo back), and a FooClass change requeues every Foo that names it.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager, name string) error {
	if name == "" {
		name = "foo"
	}
	if err := mgr.GetFieldIndexer().IndexField(context.Background(), &samplesv1alpha1.Foo{}, ClassIndex,
		func(o client.Object) []string {
			if c := o.(*samplesv1alpha1.Foo).Spec.ClassName; c != "" {
				return []string{c}
			}
			return nil
		}); err != nil {
		return fmt.Errorf("indexing Foos by class: %w", err)
	}
	return ctrl.NewControllerManagedBy(mgr).
		Named(name).
		For(&samplesv1alpha1.Foo{}).
		Owns(&corev1.ConfigMap{}).
		Watches(&samplesv1alpha1.FooClass{}, handler.EnqueueRequestsFromMapFunc(r.foosOfClass)).
		Complete(r)
}

// ClassIndex is the field index of Foos by spec.className.
const ClassIndex = "spec.className"

func (r *Reconciler) foosOfClass(ctx context.Context, class client.Object) []ctrl.Request {
	foos := &samplesv1alpha1.FooList{}
	if err := r.List(ctx, foos, client.MatchingFields{ClassIndex: class.GetName()}); err != nil {
		log.FromContext(ctx).Error(err, "listing Foos of FooClass", "fooClass", class.GetName())
		return nil
	}
	reqs := make([]ctrl.Request, 0, len(foos.Items))
	for i := range foos.Items {
		reqs = append(reqs, ctrl.Request{NamespacedName: types.NamespacedName{Namespace: foos.Items[i].Namespace, Name: foos.Items[i].Name}})
	}
	return reqs
}
