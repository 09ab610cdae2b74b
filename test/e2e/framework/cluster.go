package framework

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// User names in the cluster's token file.
const (
	// AdminUser is in system:masters: allowed everything.
	AdminUser = "e2e-admin"
	// UnprivilegedUser is only system:authenticated: RBAC forbids it to list
	// ConfigMaps, custom resources and most else.
	UnprivilegedUser = "e2e-unprivileged"
)

// WorkDirEnv names a directory under which clusters create their work dirs
// (default: the system temp dir). KeepWorkDirEnv=1 keeps a work dir after
// Stop, for debugging.
const (
	WorkDirEnv     = "E2E_WORK_DIR"
	KeepWorkDirEnv = "E2E_KEEP_WORK_DIR"
)

// Cluster is an etcd and a kube-apiserver (plus any extra apiservers a test
// starts) sharing one work dir. Methods are safe for concurrent use, but
// Restart/StopAPIServer disrupt every client of the cluster: tests that
// call them must not run in parallel with others.
type Cluster struct {
	// Dir is the work dir: data, certs, logs, kubeconfig.
	Dir string
	// Kubeconfig is a kubeconfig file for the admin user (current context)
	// and the unprivileged user (context "unprivileged").
	Kubeconfig string
	// Etcd is the cluster's etcd.
	Etcd *Etcd

	cfg        apiserverConfig
	userToken  string
	mu         sync.Mutex
	apiserver  *APIServer
	extras     []*APIServer
	stopped    bool
	stopResult error
}

// Start starts etcd and kube-apiserver and waits until both are ready. On
// error everything already started is stopped and the work dir removed.
// extraArgs are appended to kube-apiserver's flags. A start that loses a
// free port to another process in the moment between picking and binding
// it is retried with new ports.
func Start(ctx context.Context, bins Binaries, extraArgs ...string) (*Cluster, error) {
	for attempt := 1; ; attempt++ {
		c, err := startOnce(ctx, bins, extraArgs)
		if err == nil || attempt == 3 || !strings.Contains(err.Error(), "address already in use") {
			return c, err
		}
		fmt.Fprintf(os.Stderr, "framework: retrying the cluster start: %v\n", err)
	}
}

func startOnce(ctx context.Context, bins Binaries, extraArgs []string) (*Cluster, error) {
	dir, err := os.MkdirTemp(os.Getenv(WorkDirEnv), "typedinformer-e2e-")
	if err != nil {
		return nil, fmt.Errorf("creating the work dir: %w", err)
	}
	c := &Cluster{Dir: dir, Kubeconfig: filepath.Join(dir, "kubeconfig")}
	if err := c.start(ctx, bins, extraArgs); err != nil {
		if stopErr := c.Stop(); stopErr != nil {
			err = errors.Join(err, stopErr)
		}
		return nil, err
	}
	return c, nil
}

func (c *Cluster) start(ctx context.Context, bins Binaries, extraArgs []string) error {
	dir := c.Dir
	p, err := newPKI(dir)
	if err != nil {
		return err
	}
	adminToken, userToken := randomToken(), randomToken()
	tokenFile := filepath.Join(dir, "tokens.csv")
	tokens := fmt.Sprintf("%s,%s,%s,\"system:masters\"\n%s,%s,%s\n",
		adminToken, AdminUser, AdminUser, userToken, UnprivilegedUser, UnprivilegedUser)
	if err := os.WriteFile(tokenFile, []byte(tokens), 0o600); err != nil {
		return fmt.Errorf("writing the token file: %w", err)
	}
	c.userToken = userToken
	c.Etcd, err = startEtcd(ctx, bins.Etcd, dir)
	if err != nil {
		return err
	}
	c.cfg = apiserverConfig{
		bin: bins.KubeAPIServer, dir: dir, etcdURL: c.Etcd.URL, pki: p,
		tokenFile: tokenFile, adminToken: adminToken, extraArgs: extraArgs,
	}
	a, err := newAPIServer(c.cfg, "kube-apiserver")
	if err != nil {
		return err
	}
	c.mu.Lock()
	c.apiserver = a
	c.mu.Unlock()
	if err := a.start(ctx); err != nil {
		return err
	}
	return c.writeKubeconfig()
}

func randomToken() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// APIServer returns the cluster's main apiserver.
func (c *Cluster) APIServer() *APIServer {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.apiserver
}

// AdminConfig returns a client config for the main apiserver as the admin
// user, with QPS limits high enough for bulk writes.
func (c *Cluster) AdminConfig() *rest.Config { return c.configFor(c.APIServer(), c.cfg.adminToken) }

// UnprivilegedConfig returns a client config for the main apiserver as a
// user that RBAC forbids to list almost anything.
func (c *Cluster) UnprivilegedConfig() *rest.Config {
	return c.configFor(c.APIServer(), c.userToken)
}

// AdminConfigFor returns an admin client config for a, e.g. an extra
// apiserver.
func (c *Cluster) AdminConfigFor(a *APIServer) *rest.Config { return c.configFor(a, c.cfg.adminToken) }

func (c *Cluster) configFor(a *APIServer, token string) *rest.Config {
	return &rest.Config{
		Host:            a.Host,
		BearerToken:     token,
		TLSClientConfig: rest.TLSClientConfig{CAFile: c.cfg.pki.caCert},
		QPS:             1000,
		Burst:           2000,
	}
}

func (c *Cluster) writeKubeconfig() error {
	a := c.APIServer()
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["e2e"] = &clientcmdapi.Cluster{Server: a.Host, CertificateAuthority: c.cfg.pki.caCert}
	cfg.AuthInfos["admin"] = &clientcmdapi.AuthInfo{Token: c.cfg.adminToken}
	cfg.AuthInfos["unprivileged"] = &clientcmdapi.AuthInfo{Token: c.userToken}
	cfg.Contexts["admin"] = &clientcmdapi.Context{Cluster: "e2e", AuthInfo: "admin"}
	cfg.Contexts["unprivileged"] = &clientcmdapi.Context{Cluster: "e2e", AuthInfo: "unprivileged"}
	cfg.CurrentContext = "admin"
	if err := clientcmd.WriteToFile(*cfg, c.Kubeconfig); err != nil {
		return fmt.Errorf("writing %s: %w", c.Kubeconfig, err)
	}
	return nil
}

// StopAPIServer stops the main apiserver (etcd keeps running) until
// StartAPIServer. Clients see connection refused meanwhile.
func (c *Cluster) StopAPIServer() {
	c.APIServer().stop()
}

// KillAPIServer SIGKILLs the main apiserver (etcd keeps running) until
// StartAPIServer: open connections break without a graceful close, watches
// end mid-stream.
func (c *Cluster) KillAPIServer() {
	if a := c.APIServer(); a.proc != nil {
		a.proc.kill()
	}
}

// StartAPIServer starts the main apiserver again on the same port, against
// the same etcd, and waits until it is ready.
func (c *Cluster) StartAPIServer(ctx context.Context) error {
	if err := c.APIServer().start(ctx); err != nil {
		return fmt.Errorf("restarting kube-apiserver: %w", err)
	}
	return nil
}

// RestartAPIServer stops and starts the main apiserver.
func (c *Cluster) RestartAPIServer(ctx context.Context) error {
	c.StopAPIServer()
	return c.StartAPIServer(ctx)
}

// StartExtraAPIServer starts another apiserver on its own port against the
// same etcd, e.g. to change objects while the main one is down. Stop it
// with StopExtraAPIServer; Stop stops it too.
func (c *Cluster) StartExtraAPIServer(ctx context.Context, name string) (*APIServer, error) {
	a, err := newAPIServer(c.cfg, name)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.extras = append(c.extras, a)
	c.mu.Unlock()
	if err := a.start(ctx); err != nil {
		return nil, err
	}
	return a, nil
}

// StopExtraAPIServer stops an apiserver StartExtraAPIServer started.
func (c *Cluster) StopExtraAPIServer(a *APIServer) { a.stop() }

// Stop stops every apiserver, then etcd (an apiserver whose etcd is gone
// takes long to shut down), and removes the work dir unless
// $E2E_KEEP_WORK_DIR=1. It is safe to call more than once.
func (c *Cluster) Stop() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopped {
		return c.stopResult
	}
	c.stopped = true
	var wg sync.WaitGroup
	for _, a := range append([]*APIServer{c.apiserver}, c.extras...) {
		if a != nil {
			wg.Go(a.stop)
		}
	}
	wg.Wait()
	if c.Etcd != nil {
		c.Etcd.stop()
	}
	if os.Getenv(KeepWorkDirEnv) == "1" {
		fmt.Fprintf(os.Stderr, "framework: keeping work dir %s\n", c.Dir)
		return nil
	}
	if err := os.RemoveAll(c.Dir); err != nil {
		c.stopResult = errors.Join(c.stopResult, fmt.Errorf("removing work dir: %w", err))
	}
	return c.stopResult
}

// StartExtraAPIServerWithArgs is StartExtraAPIServer with args appended to
// that apiserver's flags only, e.g. "--feature-gates=WatchList=false" for a
// server that refuses watch-list streaming.
func (c *Cluster) StartExtraAPIServerWithArgs(ctx context.Context, name string, args ...string) (*APIServer, error) {
	cfg := c.cfg
	cfg.extraArgs = append(append([]string(nil), c.cfg.extraArgs...), args...)
	a, err := newAPIServer(cfg, name)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.extras = append(c.extras, a)
	c.mu.Unlock()
	if err := a.start(ctx); err != nil {
		return nil, err
	}
	return a, nil
}
