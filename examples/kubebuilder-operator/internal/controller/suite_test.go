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
	"os"
	"path/filepath"
	"reflect"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
)

// The suite runs the manager cmd/main.go runs, on the cache $OPERATOR_CACHE
// names, against envtest's kube-apiserver and etcd ($KUBEBUILDER_ASSETS).
// k8sClient talks to the API server directly, as a user of the cluster
// would; only the Reconciler reads through the manager's cache.
var (
	cfg       *rest.Config
	k8sClient client.Client
	testEnv   *envtest.Environment
	cancel    context.CancelFunc
	mgrDone   chan error
)

func TestControllers(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Controller Suite")
}

var _ = BeforeSuite(func() {
	logf.SetLogger(zap.New(zap.WriteTo(GinkgoWriter), zap.UseDevMode(true)))

	var ctx context.Context
	ctx, cancel = context.WithCancel(context.Background())

	By("starting the test environment")
	testEnv = &envtest.Environment{
		CRDDirectoryPaths:     []string{filepath.Join("..", "..", "config", "crd", "bases")},
		ErrorIfCRDPathMissing: true,
	}
	var err error
	cfg, err = testEnv.Start()
	Expect(err).NotTo(HaveOccurred())
	Expect(cfg).NotTo(BeNil())

	scheme, err := NewScheme()
	Expect(err).NotTo(HaveOccurred())
	k8sClient, err = client.New(cfg, client.Options{Scheme: scheme})
	Expect(err).NotTo(HaveOccurred())

	cacheName := os.Getenv(CacheEnv)
	By("starting the manager on the cache " + CacheEnv + "=" + cacheName + " names")
	opts, err := ManagerOptions(scheme, ManagerConfig{MetricsBindAddress: "0", HealthProbeBindAddress: "0", Cache: cacheName})
	Expect(err).NotTo(HaveOccurred())
	mgr, err := ctrl.NewManager(cfg, opts)
	Expect(err).NotTo(HaveOccurred())

	// The manager's cache is the one asked for.
	wantPkg := "github.com/typedinformer/typedinformer/crcache"
	if cacheName == CacheControllerRuntime {
		wantPkg = "sigs.k8s.io/controller-runtime/pkg/cache"
	}
	Expect(reflect.TypeOf(mgr.GetCache()).Elem().PkgPath()).To(Equal(wantPkg))

	Expect((&WebappReconciler{
		Client:   mgr.GetClient(),
		Scheme:   mgr.GetScheme(),
		Recorder: mgr.GetEventRecorder("webapp-controller"),
	}).SetupWithManager(mgr)).To(Succeed())

	mgrDone = make(chan error, 1)
	go func() {
		defer GinkgoRecover()
		mgrDone <- mgr.Start(ctx)
	}()
	Expect(mgr.GetCache().WaitForCacheSync(ctx)).To(BeTrue())
})

var _ = AfterSuite(func() {
	By("stopping the manager and the test environment")
	if cancel != nil {
		cancel()
	}
	if mgrDone != nil {
		Expect(<-mgrDone).To(Succeed())
	}
	if testEnv != nil {
		Expect(testEnv.Stop()).To(Succeed())
	}
})
