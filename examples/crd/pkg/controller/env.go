package controller

import (
	"context"
	"time"

	"k8s.io/client-go/kubernetes"

	"github.com/typedinformer/typedinformer/examples/crd/pkg/generated/clientset/versioned"
	samplesinformers "github.com/typedinformer/typedinformer/examples/crd/pkg/generated/informers/externalversions"
	kubeinformers "github.com/typedinformer/typedinformer/kube/informers"
	"github.com/typedinformer/typedinformer/runtime/informers"
)

// Informers are the shared informer factories the controller reads from.
type Informers struct {
	Samples samplesinformers.SharedInformerFactory
	Kube    kubeinformers.SharedInformerFactory
}

// NewInformers builds the factories for the two clientsets, both with opts
// (e.g. informers.WithInformerMetrics). resync 0 disables periodic resync.
func NewInformers(kube kubernetes.Interface, samples versioned.Interface, resync time.Duration, opts ...informers.Option) Informers {
	return Informers{
		Samples: samplesinformers.NewSharedInformerFactoryWithOptions(samples, resync, opts...),
		Kube:    kubeinformers.NewSharedInformerFactoryWithOptions(kube, resync, opts...),
	}
}

// NewReconciler wires a Reconciler to the factories' listers. Call it before
// Start so that the factories know which informers to run.
func NewReconciler(kube kubernetes.Interface, samples versioned.Interface, inf Informers) *Reconciler {
	return &Reconciler{
		Kube:       kube,
		Samples:    samples,
		Foos:       inf.Samples.Samples().V1alpha1().Foos().Lister(),
		FooClasses: inf.Samples.Samples().V1alpha1().FooClasses().Lister(),
		Windows:    inf.Samples.Ops().V1().MaintenanceWindows().Lister(),
		ConfigMaps: inf.Kube.Core().V1().ConfigMaps().Lister(),
	}
}

// Start starts both factories' informers.
func (i Informers) Start(ctx context.Context) {
	i.Samples.Start(ctx)
	i.Kube.Start(ctx)
}

// Shutdown stops both factories and waits for their goroutines.
func (i Informers) Shutdown() {
	i.Samples.Shutdown()
	i.Kube.Shutdown()
}

// WaitForCacheSync waits for both factories; the error names every informer
// that did not sync and why.
func (i Informers) WaitForCacheSync(ctx context.Context) error {
	if _, err := i.Samples.WaitForCacheSync(ctx); err != nil {
		return err
	}
	_, err := i.Kube.WaitForCacheSync(ctx)
	return err
}
