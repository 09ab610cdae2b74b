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
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/typedinformer/typedinformer/crcache"

	webv1alpha1 "github.com/typedinformer/typedinformer/examples/kubebuilder-operator/api/v1alpha1"
)

// CacheEnv is the environment variable the manager's cache is chosen by
// (cmd/main.go's --cache defaults to it, and the test suite reads it).
const CacheEnv = "OPERATOR_CACHE"

// Cache names ManagerOptions accepts.
const (
	// CacheTypedinformer is crcache.New, the typedinformer runtime's cache;
	// the empty name means it too.
	CacheTypedinformer = "typedinformer"
	// CacheControllerRuntime is controller-runtime's own cache.New.
	CacheControllerRuntime = "controller-runtime"
)

// ManagerConfig is what cmd/main.go's flags set.
type ManagerConfig struct {
	// MetricsBindAddress and HealthProbeBindAddress are the metrics and
	// health endpoints' addresses; "0" turns the endpoint off.
	MetricsBindAddress     string
	HealthProbeBindAddress string
	// LeaderElection makes the manager run its controllers only while it
	// holds the leader lease.
	LeaderElection bool
	// Cache names the cache: CacheTypedinformer (or "") or
	// CacheControllerRuntime.
	Cache string
}

// NewScheme returns a scheme with the built-in types and web.example.com.
func NewScheme() (*runtime.Scheme, error) {
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		return nil, err
	}
	if err := webv1alpha1.AddToScheme(s); err != nil {
		return nil, err
	}
	return s, nil
}

// ManagerOptions returns the manager's options for c, the same for the
// program and its tests. An unknown c.Cache is an error naming it.
func ManagerOptions(scheme *runtime.Scheme, c ManagerConfig) (ctrl.Options, error) {
	opts := ctrl.Options{
		Scheme:                 scheme,
		Metrics:                metricsserver.Options{BindAddress: c.MetricsBindAddress},
		HealthProbeBindAddress: c.HealthProbeBindAddress,
		LeaderElection:         c.LeaderElection,
		LeaderElectionID:       "kubebuilder-operator.web.example.com",
		NewCache:               crcache.New,
	}
	switch c.Cache {
	case "", CacheTypedinformer:
	case CacheControllerRuntime:
		opts.NewCache = cache.New
	default:
		return ctrl.Options{}, fmt.Errorf("unknown cache %q (want %q or %q)", c.Cache, CacheTypedinformer, CacheControllerRuntime)
	}
	return opts, nil
}
