package foocontroller

import (
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/typedinformer/typedinformer/crcache"
	samplesv1alpha1 "github.com/typedinformer/typedinformer/examples/crd/apis/samples/v1alpha1"
)

// NewInformerFunc is controller-runtime's cache.Options.NewInformer.
type NewInformerFunc = func(toolscache.ListerWatcher, runtime.Object, time.Duration, toolscache.Indexers) toolscache.SharedIndexInformer

// NewScheme returns a scheme with the built-in types and examples/crd's
// samples group.
func NewScheme() (*runtime.Scheme, error) {
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		return nil, err
	}
	if err := samplesv1alpha1.Install(s); err != nil {
		return nil, err
	}
	return s, nil
}

// Options configure NewManager.
type Options struct {
	// NewCache builds the manager's cache; nil means crcache.New
	// (typedinformer's runtime fed from runtime/wire). cache.New is
	// controller-runtime's own cache, for comparison.
	NewCache cache.NewCacheFunc
	// NewInformer builds the cache's informers; nil means the cache's own
	// (crcache's are the runtime's, cache.New's are client-go's).
	NewInformer NewInformerFunc
	// Namespaces scopes the cache and so the controller; empty means all.
	Namespaces []string
	// Name names the controller in logs and metrics (default "foo"). Names
	// are unique per process: two managers in one process need two names.
	Name string
}

// NewManager returns a manager running the Foo Reconciler on the cache
// o.NewCache builds, with informers built by o.NewInformer. The cache holds
// what the Reconciler reads: Foos, FooClasses and ConfigMaps, in
// o.Namespaces.
func NewManager(cfg *rest.Config, o Options) (ctrl.Manager, error) {
	scheme, err := NewScheme()
	if err != nil {
		return nil, err
	}
	cacheOpts := cache.Options{NewInformer: o.NewInformer}
	if len(o.Namespaces) > 0 {
		cacheOpts.DefaultNamespaces = map[string]cache.Config{}
		for _, ns := range o.Namespaces {
			cacheOpts.DefaultNamespaces[ns] = cache.Config{}
		}
	}
	newCache := o.NewCache
	if newCache == nil {
		newCache = crcache.New
	}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                 scheme,
		NewCache:               newCache,
		Cache:                  cacheOpts,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
	})
	if err != nil {
		return nil, fmt.Errorf("creating manager: %w", err)
	}
	if err := (&Reconciler{Client: mgr.GetClient()}).SetupWithManager(mgr, o.Name); err != nil {
		return nil, err
	}
	return mgr, nil
}
