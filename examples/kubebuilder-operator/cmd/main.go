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

// Command manager runs the Webapp operator against the cluster of the
// kubeconfig (--kubeconfig, $KUBECONFIG or in-cluster).
package main

import (
	"flag"
	"fmt"
	"os"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/typedinformer/typedinformer/examples/kubebuilder-operator/internal/controller"
)

func main() {
	var c controller.ManagerConfig
	flag.StringVar(&c.MetricsBindAddress, "metrics-bind-address", "0", `the metrics endpoint's address ("0": off)`)
	flag.StringVar(&c.HealthProbeBindAddress, "health-probe-bind-address", ":8081", "the health probes' address")
	flag.BoolVar(&c.LeaderElection, "leader-elect", false, "run the controller only while holding the leader lease")
	flag.StringVar(&c.Cache, "cache", os.Getenv(controller.CacheEnv),
		`the manager's cache: "typedinformer" (crcache.New, the default) or "controller-runtime" (cache.New); default $`+controller.CacheEnv)
	zapOpts := zap.Options{Development: true}
	zapOpts.BindFlags(flag.CommandLine)
	flag.Parse()
	if c.Cache == "" {
		c.Cache = controller.CacheTypedinformer
	}
	ctrl.SetLogger(zap.New(zap.UseFlagOptions(&zapOpts)))
	log := ctrl.Log.WithName("setup")

	scheme, err := controller.NewScheme()
	if err != nil {
		log.Error(err, "building the scheme")
		os.Exit(1)
	}
	opts, err := controller.ManagerOptions(scheme, c)
	if err != nil {
		fmt.Fprintf(os.Stderr, "manager: --cache: %v\n", err)
		os.Exit(2)
	}
	mgr, err := ctrl.NewManager(ctrl.GetConfigOrDie(), opts)
	if err != nil {
		log.Error(err, "creating the manager")
		os.Exit(1)
	}
	if err := (&controller.WebappReconciler{
		Client:   mgr.GetClient(),
		Scheme:   mgr.GetScheme(),
		Recorder: mgr.GetEventRecorder("webapp-controller"),
	}).SetupWithManager(mgr); err != nil {
		log.Error(err, "setting up the Webapp controller")
		os.Exit(1)
	}
	if err := mgr.AddHealthzCheck("healthz", healthz.Ping); err != nil {
		log.Error(err, "adding the health check")
		os.Exit(1)
	}
	if err := mgr.AddReadyzCheck("readyz", healthz.Ping); err != nil {
		log.Error(err, "adding the readiness check")
		os.Exit(1)
	}
	log.Info("starting the manager", "cache", c.Cache)
	if err := mgr.Start(ctrl.SetupSignalHandler()); err != nil {
		log.Error(err, "running the manager")
		os.Exit(1)
	}
}
