package framework

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// APIServer is one kube-apiserver process serving HTTPS on 127.0.0.1 against
// the cluster's etcd. Its port survives Restart.
type APIServer struct {
	// Host is the server's URL, e.g. https://127.0.0.1:40124.
	Host string
	name string
	port int
	bin  string
	dir  string
	args []string
	proc *process
	rt   http.RoundTripper // verifies the serving cert, sends the admin token
}

// apiserverConfig is what every kube-apiserver of one cluster shares.
type apiserverConfig struct {
	bin, dir   string
	etcdURL    string
	pki        *pki
	tokenFile  string
	adminToken string
	extraArgs  []string
}

func newAPIServer(cfg apiserverConfig, name string) (*APIServer, error) {
	port, err := FreePort()
	if err != nil {
		return nil, err
	}
	certDir := filepath.Join(cfg.dir, name+"-certs")
	if err := os.MkdirAll(certDir, 0o700); err != nil {
		return nil, err
	}
	args := []string{
		"--etcd-servers=" + cfg.etcdURL,
		"--bind-address=127.0.0.1",
		"--advertise-address=127.0.0.1",
		// The loopback advertise address is only allowed without endpoint
		// reconciliation; nothing here needs the kubernetes Service's
		// endpoints, and extra apiservers would fight over them.
		"--endpoint-reconciler-type=none",
		"--secure-port=" + strconv.Itoa(port),
		"--cert-dir=" + certDir,
		"--tls-cert-file=" + cfg.pki.serverCert,
		"--tls-private-key-file=" + cfg.pki.serverKey,
		"--token-auth-file=" + cfg.tokenFile,
		"--authorization-mode=RBAC",
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file=" + cfg.pki.saPub,
		"--service-account-signing-key-file=" + cfg.pki.saKey,
		"--service-cluster-ip-range=10.0.0.0/24",
		"--disable-admission-plugins=ServiceAccount",
		// The tests compact etcd themselves, at chosen revisions.
		"--etcd-compaction-interval=0",
		// PodTemplates skip the watch cache, so their watches reach etcd and
		// an etcd compaction past a watch's resourceVersion shows as 410.
		"--watch-cache-sizes=podtemplates#0",
		// End open watches on shutdown instead of letting them hold the
		// HTTP server open until its 60s shutdown timeout.
		"--shutdown-watch-termination-grace-period=2s",
		"--profiling=false",
		"--v=1",
	}
	args = append(args, cfg.extraArgs...)
	pool := x509.NewCertPool()
	ca, err := os.ReadFile(cfg.pki.caCert)
	if err != nil {
		return nil, err
	}
	if !pool.AppendCertsFromPEM(ca) {
		return nil, fmt.Errorf("no certificate in %s", cfg.pki.caCert)
	}
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}
	return &APIServer{
		Host: "https://127.0.0.1:" + strconv.Itoa(port),
		name: name,
		port: port,
		bin:  cfg.bin,
		dir:  cfg.dir,
		args: args,
		rt:   bearer{token: cfg.adminToken, rt: tr},
	}, nil
}

type bearer struct {
	token string
	rt    http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.rt.RoundTrip(r)
}

// start runs the process and waits until /readyz answers ok.
func (a *APIServer) start(ctx context.Context) error {
	p, err := startProcess(a.name, a.bin, filepath.Join(a.dir, a.name+".log"), a.args)
	if err != nil {
		return err
	}
	a.proc = p
	c := &http.Client{Transport: a.rt}
	if err := waitHealthy(ctx, p, 90*time.Second, func(ctx context.Context) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, a.Host+"/readyz", nil)
		if err != nil {
			return err
		}
		resp, err := c.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("/readyz: %s: %s", resp.Status, body)
		}
		return nil
	}); err != nil {
		a.stop()
		return err
	}
	return nil
}

// stop terminates the process; a graceful kube-apiserver shutdown drains
// requests for a few seconds.
func (a *APIServer) stop() {
	if a.proc != nil {
		a.proc.stop(30 * time.Second)
	}
}

// LogTail returns the end of the server's log, for failure messages.
func (a *APIServer) LogTail() string {
	if a.proc == nil {
		return ""
	}
	return a.proc.tail(8000)
}
