package main

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kubefake "k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/typedinformer/typedinformer/examples/crd/pkg/controller"
	samplesfake "github.com/typedinformer/typedinformer/examples/crd/pkg/generated/clientset/versioned/fake"
	tiprom "github.com/typedinformer/typedinformer/metrics/prometheus"
	runtimecontroller "github.com/typedinformer/typedinformer/runtime/controller"
	"github.com/typedinformer/typedinformer/runtime/informers"
)

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

// TestOpsEndpoints checks /healthz, /readyz before and after the caches
// synced (503 with the NotSyncedError text, then 200) and that /metrics
// serves the adapter's series.
func TestOpsEndpoints(t *testing.T) {
	kube := kubefake.NewClientset()
	samples := samplesfake.NewSimpleClientset()
	reg := prometheus.NewRegistry()
	m, err := tiprom.New(reg)
	if err != nil {
		t.Fatal(err)
	}
	inf := controller.NewInformers(kube, samples, 0, informers.WithInformerMetrics(m.Informers()))
	c, err := controller.New(controller.NewReconciler(kube, samples, inf), inf,
		runtimecontroller.Options{Metrics: m.Controllers(), QueueMetricsProvider: m.Workqueues()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Foos cannot be listed at first: the informers run but do not sync.
	var allowed atomic.Bool
	samples.PrependReactor("list", "foos", func(k8stesting.Action) (bool, runtime.Object, error) {
		if allowed.Load() {
			return false, nil, nil
		}
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Group: "samples.typedinformer.dev", Resource: "foos"}, "", errors.New("RBAC says no"))
	})
	ready := &readiness{wait: inf.WaitForCacheSync}
	srv := httptest.NewServer(newOpsMux(reg, ready.check))
	defer srv.Close()

	if code, body := get(t, srv.URL+"/healthz"); code != http.StatusOK || strings.TrimSpace(body) != "ok" {
		t.Fatalf("/healthz: %d %q", code, body)
	}
	code, body := get(t, srv.URL+"/readyz")
	if code != http.StatusServiceUnavailable || !strings.Contains(body, "not started") {
		t.Fatalf("/readyz before the informers run: %d %q, want 503", code, body)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	inf.Start(ctx)
	ready.markStarted()
	defer inf.Shutdown()
	done := make(chan error, 1)
	go func() { done <- c.Start(ctx) }()
	deadline := time.Now().Add(20 * time.Second)
	for {
		code, body = get(t, srv.URL+"/readyz")
		if code == http.StatusServiceUnavailable && strings.Contains(body, "caches not synced") && strings.Contains(body, "RBAC says no") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("/readyz while foos are forbidden: %d %q, want 503 with the NotSyncedError text", code, body)
		}
		time.Sleep(10 * time.Millisecond)
	}
	allowed.Store(true)
	for {
		code, body = get(t, srv.URL+"/readyz")
		if code == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("/readyz never became ready: %d %q", code, body)
		}
		time.Sleep(10 * time.Millisecond)
	}
	for {
		_, body = get(t, srv.URL+"/metrics")
		if strings.Contains(body, `controller_runtime_max_concurrent_reconciles{controller="foo"} 1`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("/metrics lacks the controller's series:\n%s", body)
		}
		time.Sleep(10 * time.Millisecond)
	}
	for _, want := range []string{`workqueue_depth{name="foo"}`, "typedinformer_informer_lists_total{informer=", "typedinformer_informer_handler_backlog"} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
