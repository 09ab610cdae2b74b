package framework

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strconv"
	"time"
)

// Etcd is a single-member etcd listening on 127.0.0.1 with a data dir in the
// cluster's work dir.
type Etcd struct {
	// URL is the client URL, e.g. http://127.0.0.1:40123.
	URL  string
	proc *process
}

func startEtcd(ctx context.Context, bin, dir string) (*Etcd, error) {
	clientPort, err := FreePort()
	if err != nil {
		return nil, err
	}
	peerPort, err := FreePort()
	if err != nil {
		return nil, err
	}
	clientURL := "http://127.0.0.1:" + strconv.Itoa(clientPort)
	peerURL := "http://127.0.0.1:" + strconv.Itoa(peerPort)
	args := []string{
		"--name=e2e",
		"--data-dir=" + filepath.Join(dir, "etcd-data"),
		"--listen-client-urls=" + clientURL,
		"--advertise-client-urls=" + clientURL,
		"--listen-peer-urls=" + peerURL,
		"--initial-advertise-peer-urls=" + peerURL,
		"--initial-cluster=e2e=" + peerURL,
		"--unsafe-no-fsync",
		"--log-level=warn",
	}
	p, err := startProcess("etcd", bin, filepath.Join(dir, "etcd.log"), args)
	if err != nil {
		return nil, err
	}
	e := &Etcd{URL: clientURL, proc: p}
	if err := waitHealthy(ctx, p, 30*time.Second, func(ctx context.Context) error {
		var h struct {
			Health string `json:"health"`
		}
		if err := getJSON(ctx, http.DefaultClient, clientURL+"/health", &h); err != nil {
			return err
		}
		if h.Health != "true" {
			return fmt.Errorf("etcd /health: %q", h.Health)
		}
		return nil
	}); err != nil {
		e.stop()
		return nil, err
	}
	return e, nil
}

func (e *Etcd) stop() { e.proc.stop(10 * time.Second) }

// Revision returns etcd's current revision: the resourceVersion of the last
// write any apiserver made.
func (e *Etcd) Revision(ctx context.Context) (int64, error) {
	var resp struct {
		Header struct {
			Revision string `json:"revision"`
		} `json:"header"`
	}
	req := map[string]any{"key": base64.StdEncoding.EncodeToString([]byte("/")), "limit": 1, "keys_only": true}
	if err := e.post(ctx, "/v3/kv/range", req, &resp); err != nil {
		return 0, fmt.Errorf("etcd revision: %w", err)
	}
	rev, err := strconv.ParseInt(resp.Header.Revision, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("etcd revision %q: %w", resp.Header.Revision, err)
	}
	return rev, nil
}

// Compact compacts etcd's history up to revision (physically, so that it is
// gone when Compact returns): watches and lists at older resourceVersions
// that reach etcd fail with 410 Gone.
func (e *Etcd) Compact(ctx context.Context, revision int64) error {
	req := map[string]any{"revision": strconv.FormatInt(revision, 10), "physical": true}
	if err := e.post(ctx, "/v3/kv/compaction", req, &struct{}{}); err != nil {
		return fmt.Errorf("etcd compaction at revision %d: %w", revision, err)
	}
	return nil
}

// post calls etcd's JSON gateway for the gRPC KV API.
func (e *Etcd) post(ctx context.Context, path string, body, out any) error {
	b, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.URL+path, bytes.NewReader(b))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	return doJSON(http.DefaultClient, req, out)
}

// waitHealthy polls check until it succeeds, the process exits, or timeout.
func waitHealthy(ctx context.Context, p *process, timeout time.Duration, check func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	var last error
	for {
		if done, err := p.exited(); done {
			return fmt.Errorf("%w before becoming ready; log tail:\n%s", err, p.tail(4000))
		}
		cctx, ccancel := context.WithTimeout(ctx, 2*time.Second)
		last = check(cctx)
		ccancel()
		if last == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s not ready after %v: %w; log tail:\n%s", p.name, timeout, last, p.tail(4000))
		case <-t.C:
		}
	}
}

func getJSON(ctx context.Context, c *http.Client, url string, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	return doJSON(c, req, out)
}

// doJSON sends req and decodes a 200 response's JSON body into out; any
// other status is an error carrying the method, URL and body.
func doJSON(c *http.Client, req *http.Request, out any) error {
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s %s: %s: %s", req.Method, req.URL, resp.Status, data)
	}
	return json.Unmarshal(data, out)
}
