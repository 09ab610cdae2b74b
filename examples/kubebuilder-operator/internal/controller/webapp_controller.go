/*
Copyright 2026 The typedinformer Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package controller

import (
	"context"
	"fmt"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/recorder"

	webv1alpha1 "github.com/typedinformer/typedinformer/examples/kubebuilder-operator/api/v1alpha1"
)

const (
	// Finalizer is the finalizer the Reconciler puts on every Webapp, so
	// that it sees the Webapp's deletion before the Webapp is gone.
	Finalizer = "web.example.com/finalizer"

	// Labels on a Webapp's Deployment, Service and pods.
	labelName      = "app.kubernetes.io/name"
	labelInstance  = "app.kubernetes.io/instance"
	labelManagedBy = "app.kubernetes.io/managed-by"

	appName     = "webapp"
	managerName = "kubebuilder-operator"
	// containerName is the Deployment's one container.
	containerName = "app"
	portName      = "http"
)

// WebappReconciler keeps each Webapp's Deployment and Service (same name and
// namespace, controlled by the Webapp) as its spec says, and reports the
// Deployment's availability and the Webapp's pods in its status.
type WebappReconciler struct {
	client.Client
	Scheme   *runtime.Scheme
	Recorder recorder.EventRecorder
}

// +kubebuilder:rbac:groups=web.example.com,resources=webapps,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=web.example.com,resources=webapps/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=web.example.com,resources=webapps/finalizers,verbs=update
// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups="",resources=services,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups="",resources=pods,verbs=get;list;watch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// Reconcile brings the Webapp req names to its desired state: its finalizer
// on, or, once it is being deleted, its finalizer run and taken off; its
// Deployment and Service created or updated; its status set.
func (r *WebappReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	log := logf.FromContext(ctx)

	app := &webv1alpha1.Webapp{}
	if err := r.Get(ctx, req.NamespacedName, app); err != nil {
		// Deleted: its Deployment and Service go with it (owner references).
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}

	if !app.DeletionTimestamp.IsZero() {
		// NotFound: a stale read of a Webapp whose finalizer already ran.
		return ctrl.Result{}, client.IgnoreNotFound(r.finalize(ctx, app))
	}
	if controllerutil.AddFinalizer(app, Finalizer) {
		// The update's event brings the Webapp back.
		return ctrl.Result{}, r.Update(ctx, app)
	}

	dep, err := r.reconcileDeployment(ctx, app)
	if err != nil {
		return ctrl.Result{}, r.degraded(ctx, app, "DeploymentFailed", err)
	}
	if err := r.reconcileService(ctx, app); err != nil {
		return ctrl.Result{}, r.degraded(ctx, app, "ServiceFailed", err)
	}

	pods := &corev1.PodList{}
	if err := r.List(ctx, pods, client.InNamespace(app.Namespace), client.MatchingLabels(selectorLabels(app))); err != nil {
		return ctrl.Result{}, fmt.Errorf("listing the pods of Webapp %s: %w", req.NamespacedName, err)
	}
	names := make([]string, 0, len(pods.Items))
	for i := range pods.Items {
		names = append(names, pods.Items[i].Name)
	}
	slices.Sort(names)

	before := app.Status.DeepCopy()
	app.Status.Pods = names
	want := replicas(app)
	if dep.Status.AvailableReplicas >= want {
		meta.SetStatusCondition(&app.Status.Conditions, metav1.Condition{
			Type: webv1alpha1.TypeAvailable, Status: metav1.ConditionTrue, Reason: "DeploymentAvailable",
			Message:            fmt.Sprintf("%d of %d replicas available", dep.Status.AvailableReplicas, want),
			ObservedGeneration: app.Generation,
		})
	} else {
		meta.SetStatusCondition(&app.Status.Conditions, metav1.Condition{
			Type: webv1alpha1.TypeAvailable, Status: metav1.ConditionFalse, Reason: "DeploymentUnavailable",
			Message:            fmt.Sprintf("%d of %d replicas available", dep.Status.AvailableReplicas, want),
			ObservedGeneration: app.Generation,
		})
	}
	meta.SetStatusCondition(&app.Status.Conditions, metav1.Condition{
		Type: webv1alpha1.TypeDegraded, Status: metav1.ConditionFalse, Reason: "Reconciled",
		Message: "the Deployment and the Service are as the spec says", ObservedGeneration: app.Generation,
	})
	if equalStatus(before, &app.Status) {
		return ctrl.Result{}, nil
	}
	log.V(1).Info("updating status", "pods", len(names), "availableReplicas", dep.Status.AvailableReplicas)
	return ctrl.Result{}, r.Status().Update(ctx, app)
}

// finalize runs a deleted Webapp's finalizer: it reports the deletion
// (status and an event) and takes the finalizer off, after which the API
// server removes the Webapp and the garbage collector its Deployment and
// Service.
func (r *WebappReconciler) finalize(ctx context.Context, app *webv1alpha1.Webapp) error {
	if !controllerutil.ContainsFinalizer(app, Finalizer) {
		return nil
	}
	if meta.SetStatusCondition(&app.Status.Conditions, metav1.Condition{
		Type: webv1alpha1.TypeDegraded, Status: metav1.ConditionTrue, Reason: "Finalizing",
		Message: "the Webapp is being deleted", ObservedGeneration: app.Generation,
	}) {
		if err := r.Status().Update(ctx, app); err != nil {
			return err
		}
	}
	r.Recorder.Eventf(app, nil, corev1.EventTypeNormal, "Finalizing", "Delete",
		"Webapp %s/%s is being deleted", app.Namespace, app.Name)
	controllerutil.RemoveFinalizer(app, Finalizer)
	return r.Update(ctx, app)
}

// degraded sets the Degraded condition for cause and returns cause, so that
// the request is retried.
func (r *WebappReconciler) degraded(ctx context.Context, app *webv1alpha1.Webapp, reason string, cause error) error {
	if meta.SetStatusCondition(&app.Status.Conditions, metav1.Condition{
		Type: webv1alpha1.TypeDegraded, Status: metav1.ConditionTrue, Reason: reason,
		Message: cause.Error(), ObservedGeneration: app.Generation,
	}) {
		if err := r.Status().Update(ctx, app); err != nil {
			logf.FromContext(ctx).Error(err, "setting the Degraded condition")
		}
	}
	return cause
}

// reconcileDeployment creates or updates the Webapp's Deployment, setting
// only the fields the operator owns so that the API server's defaults are
// left as they are.
func (r *WebappReconciler) reconcileDeployment(ctx context.Context, app *webv1alpha1.Webapp) (*appsv1.Deployment, error) {
	dep := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: app.Name, Namespace: app.Namespace}}
	_, err := controllerutil.CreateOrUpdate(ctx, r.Client, dep, func() error {
		if err := controllerutil.SetControllerReference(app, dep, r.Scheme); err != nil {
			return err
		}
		dep.Labels = withLabels(dep.Labels, app)
		if dep.CreationTimestamp.IsZero() {
			// The selector cannot change once the Deployment exists.
			dep.Spec.Selector = &metav1.LabelSelector{MatchLabels: selectorLabels(app)}
		}
		dep.Spec.Replicas = new(replicas(app))
		dep.Spec.Template.Labels = withLabels(dep.Spec.Template.Labels, app)
		i := slices.IndexFunc(dep.Spec.Template.Spec.Containers, func(c corev1.Container) bool { return c.Name == containerName })
		if i < 0 {
			dep.Spec.Template.Spec.Containers = append(dep.Spec.Template.Spec.Containers, corev1.Container{Name: containerName})
			i = len(dep.Spec.Template.Spec.Containers) - 1
		}
		c := &dep.Spec.Template.Spec.Containers[i]
		c.Image = app.Spec.Image
		c.Ports = []corev1.ContainerPort{{Name: portName, ContainerPort: port(app), Protocol: corev1.ProtocolTCP}}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("the Deployment %s/%s: %w", dep.Namespace, dep.Name, err)
	}
	return dep, nil
}

// reconcileService creates or updates the Webapp's Service, which sends its
// port to the pods' port.
func (r *WebappReconciler) reconcileService(ctx context.Context, app *webv1alpha1.Webapp) error {
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: app.Name, Namespace: app.Namespace}}
	_, err := controllerutil.CreateOrUpdate(ctx, r.Client, svc, func() error {
		if err := controllerutil.SetControllerReference(app, svc, r.Scheme); err != nil {
			return err
		}
		svc.Labels = withLabels(svc.Labels, app)
		svc.Spec.Selector = selectorLabels(app)
		svc.Spec.Ports = []corev1.ServicePort{{
			Name: portName, Protocol: corev1.ProtocolTCP, Port: port(app), TargetPort: intstr.FromInt32(port(app)),
		}}
		return nil
	})
	if err != nil {
		return fmt.Errorf("the Service %s/%s: %w", svc.Namespace, svc.Name, err)
	}
	return nil
}

// SetupWithManager registers the Reconciler with mgr: it reconciles
// Webapps, the Deployments and Services they control, and the Webapps whose
// instance label a pod carries.
func (r *WebappReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		For(&webv1alpha1.Webapp{}).
		Owns(&appsv1.Deployment{}).
		Owns(&corev1.Service{}).
		Watches(&corev1.Pod{}, handler.EnqueueRequestsFromMapFunc(podToWebapp)).
		Named("webapp").
		Complete(r)
}

// podToWebapp maps a pod to the Webapp its labels name, in its namespace.
func podToWebapp(_ context.Context, pod client.Object) []reconcile.Request {
	l := pod.GetLabels()
	if l[labelName] != appName || l[labelInstance] == "" {
		return nil
	}
	return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: pod.GetNamespace(), Name: l[labelInstance]}}}
}

// selectorLabels are the labels that select a Webapp's pods.
func selectorLabels(app *webv1alpha1.Webapp) map[string]string {
	return map[string]string{labelName: appName, labelInstance: app.Name}
}

// withLabels returns l with the Webapp's labels set, keeping the others.
func withLabels(l map[string]string, app *webv1alpha1.Webapp) map[string]string {
	if l == nil {
		l = map[string]string{}
	}
	for k, v := range selectorLabels(app) {
		l[k] = v
	}
	l[labelManagedBy] = managerName
	return l
}

func replicas(app *webv1alpha1.Webapp) int32 {
	if app.Spec.Replicas == nil {
		return 1
	}
	return *app.Spec.Replicas
}

func port(app *webv1alpha1.Webapp) int32 {
	if app.Spec.Port == 0 {
		return 8080
	}
	return app.Spec.Port
}

// equalStatus reports whether two statuses hold the same pods and the same
// conditions, ignoring the conditions' transition times (SetStatusCondition
// keeps them while a condition's status is unchanged).
func equalStatus(a, b *webv1alpha1.WebappStatus) bool {
	if !slices.Equal(a.Pods, b.Pods) || len(a.Conditions) != len(b.Conditions) {
		return false
	}
	for _, c := range a.Conditions {
		d := meta.FindStatusCondition(b.Conditions, c.Type)
		if d == nil || c.Status != d.Status || c.Reason != d.Reason || c.Message != d.Message || c.ObservedGeneration != d.ObservedGeneration {
			return false
		}
	}
	return true
}
