package controller

import (
	"context"
	"errors"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/klog/v2"

	opsv1 "github.com/typedinformer/typedinformer/examples/crd/apis/ops/v1"
	samplesv1alpha1 "github.com/typedinformer/typedinformer/examples/crd/apis/samples/v1alpha1"
	"github.com/typedinformer/typedinformer/runtime/controller"
)

// ObserveFunc is told about every reconcile: the request, what it did and
// its error. The demo prints it; tests record it. It must not block.
type ObserveFunc func(req controller.Request, outcome Outcome, err error)

// New builds the Foo controller over the factories' informers: Foos
// themselves (spec changes, creates, deletes), the ConfigMaps they own
// (drift or deletion), FooClasses (to every Foo of the class) and
// MaintenanceWindows (to every Foo). observe may be nil. Start the
// factories and then the returned controller.
func New(r *Reconciler, inf Informers, opts controller.Options, observe ObserveFunc) (*controller.Controller, error) {
	reconcile := controller.ReconcilerFunc(func(ctx context.Context, req controller.Request) (controller.Result, error) {
		if r.Fence != nil {
			if err := r.Fence(); err != nil {
				klog.FromContext(ctx).V(2).Info("Not reconciling", "reason", err)
				return controller.Result{RequeueAfter: FenceRetry}, nil
			}
		}
		outcome, err := r.Reconcile(ctx, req.Namespace, req.Name)
		if observe != nil {
			observe(req, outcome, err)
		}
		if errors.Is(err, ErrConflict) {
			// Retrying cannot free a ConfigMap someone else owns; the
			// Foo's status says so and a Foo or ConfigMap change requeues.
			return controller.Result{}, controller.TerminalError(err)
		}
		return controller.Result{}, err
	})
	c, err := controller.New("foo", reconcile, opts)
	if err != nil {
		return nil, err
	}

	samples := inf.Samples.Samples().V1alpha1()
	if err := controller.Watch(c, samples.Foos().Informer(),
		controller.EnqueueRequestForObject[*samplesv1alpha1.Foo](),
		controller.GenerationChangedPredicate[*samplesv1alpha1.Foo]()); err != nil {
		return nil, err
	}
	if err := controller.Watch(c, inf.Kube.Core().V1().ConfigMaps().Informer(),
		controller.EnqueueRequestsFromMapFunc(func(_ context.Context, cm *corev1.ConfigMap) []controller.Request {
			if owner := cm.Labels[FooLabel]; owner != "" {
				return []controller.Request{{Namespace: cm.Namespace, Name: owner}}
			}
			return nil
		})); err != nil {
		return nil, err
	}
	if err := controller.Watch(c, samples.FooClasses().Informer(),
		controller.EnqueueRequestsFromMapFunc(func(ctx context.Context, class *samplesv1alpha1.FooClass) []controller.Request {
			return fooRequests(ctx, r, func(f *samplesv1alpha1.Foo) bool { return f.Spec.ClassName == class.Name })
		})); err != nil {
		return nil, err
	}
	if err := controller.Watch(c, inf.Samples.Ops().V1().MaintenanceWindows().Informer(),
		controller.EnqueueRequestsFromMapFunc(func(ctx context.Context, _ *opsv1.MaintenanceWindow) []controller.Request {
			return fooRequests(ctx, r, func(*samplesv1alpha1.Foo) bool { return true })
		})); err != nil {
		return nil, err
	}
	return c, nil
}

// fooRequests lists the cached Foos that match.
func fooRequests(ctx context.Context, r *Reconciler, match func(*samplesv1alpha1.Foo) bool) []controller.Request {
	foos, err := r.Foos.List(labels.Everything())
	if err != nil {
		klog.FromContext(ctx).Error(err, "Listing Foos to requeue")
		return nil
	}
	var reqs []controller.Request
	for _, f := range foos {
		if match(f) {
			reqs = append(reqs, controller.RequestFor(f))
		}
	}
	return reqs
}
