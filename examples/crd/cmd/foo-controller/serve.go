package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"k8s.io/klog/v2"
)

// readyTimeout bounds one /readyz check's wait for the caches.
const readyTimeout = 100 * time.Millisecond

// newOpsMux serves /metrics from reg, /healthz (the process answers) and
// /readyz: 200 once synced returns nil, else 503 with its error (the
// *cache.NotSyncedError text naming each informer not synced and why).
func newOpsMux(reg *prometheus.Registry, synced func(ctx context.Context) error) *http.ServeMux {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg}))
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintln(w, "ok")
	})
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
		defer cancel()
		if err := synced(ctx); err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ok")
	})
	return mux
}

// readiness is /readyz's check: not ready before the informers are
// started, then ready once wait (the factories' WaitForCacheSync) returns nil.
type readiness struct {
	started atomic.Bool
	wait    func(ctx context.Context) error
}

// markStarted records that the informers were started.
func (r *readiness) markStarted() { r.started.Store(true) }

// check returns nil when ready, else why not.
func (r *readiness) check(ctx context.Context) error {
	if !r.started.Load() {
		return errors.New("informers not started yet")
	}
	return r.wait(ctx)
}

// serveOps listens on addr and serves h until ctx ends, then shuts the
// server down (waiting up to 5 s for open requests). It returns once the
// listener is bound, with a function that waits for the shutdown.
func serveOps(ctx context.Context, addr string, h http.Handler) (wait func(), err error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--metrics-bind-address %s: %w", addr, err)
	}
	logger := klog.FromContext(ctx)
	logger.Info("Serving /metrics, /healthz and /readyz", "address", ln.Addr().String())
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			logger.Error(err, "Metrics server failed")
		}
	}()
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	return func() { <-done }, nil
}
