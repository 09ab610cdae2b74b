package e2e

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/rest"

	"github.com/typedinformer/typedinformer/runtime/cache"
)

// request is one HTTP request a client made and the status it got.
type request struct {
	method, path string
	watch        bool // ?watch=true
	sendInitial  bool // ?sendInitialEvents=true
	status       int
}

func (r request) String() string {
	kind := "list"
	switch {
	case r.watch && r.sendInitial:
		kind = "watch-list"
	case r.watch:
		kind = "watch"
	}
	return fmt.Sprintf("%s %s -> %d", kind, r.path, r.status)
}

// requestLog records the requests of a rest.Config's clients.
type requestLog struct {
	mu   sync.Mutex
	reqs []request
}

type recordingTransport struct {
	log  *requestLog
	next http.RoundTripper
}

func (t recordingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	q := req.URL.Query()
	r := request{method: req.Method, path: req.URL.Path, watch: q.Get("watch") == "true" || q.Get("watch") == "1",
		sendInitial: q.Get("sendInitialEvents") == "true"}
	if err == nil {
		r.status = resp.StatusCode
	}
	t.log.mu.Lock()
	t.log.reqs = append(t.log.reqs, r)
	t.log.mu.Unlock()
	return resp, err
}

// recording returns a copy of cfg whose clients log their requests to l.
func (l *requestLog) recording(cfg *rest.Config) *rest.Config {
	cfg = rest.CopyConfig(cfg)
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper { return recordingTransport{log: l, next: rt} }
	return cfg
}

// of returns the GETs of resource in order.
func (l *requestLog) of(resource string) []request {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []request
	for _, r := range l.reqs {
		if r.method == http.MethodGet && strings.HasSuffix(r.path, "/"+resource) {
			out = append(out, r)
		}
	}
	return out
}

// syncConfigMapsThroughFactory creates ConfigMaps, syncs examples/crd's
// generated core/v1 factory (default reflector options) through cfg and
// checks the cache and the handler's initial adds; it returns the
// ConfigMap requests made up to the sync.
func syncConfigMapsThroughFactory(t *testing.T, cfg *rest.Config) (cache.SharedIndexInformer[*configMap], *recorder[*configMap], ops[*corev1.ConfigMap], []request) {
	t.Helper()
	ctx := context.Background()
	_, ns, label, o := inNewNamespace(t, configMapOps)
	if err := parallel(30, func(i int) error {
		_, err := o.create(ctx, ns, fmt.Sprintf("cm-%02d", i), i)
		return err
	}); err != nil {
		t.Fatalf("creating ConfigMaps: %v", err)
	}
	log := &requestLog{}
	f := newKubeFactory(newClients(t, log.recording(cfg)), withLabel(label))
	inf := configMapInformer(f)
	rec, reg := recordOn(t, inf)
	runFactory(t, f)
	waitSynced(t, inf, reg)
	reqs := log.of("configmaps")
	if err := matchesServer(ctx, inf.GetStore(), o); err != nil {
		t.Fatal(err)
	}
	for _, k := range rec.keys() {
		if ev := rec.events(k); len(ev) != 1 || ev[0].kind != added || !ev[0].initial {
			t.Fatalf("%s: handler was told %v, want one initial add", k, ev)
		}
	}
	// Changes after the sync arrive as watch events.
	if _, err := o.create(ctx, ns, "late", 99); err != nil {
		t.Fatal(err)
	}
	eventually(t, time.Minute, "the late ConfigMap", func() error { return matchesServer(ctx, inf.GetStore(), o) })
	if ev := rec.events(ns + "/late"); len(ev) != 1 || ev[0].initial {
		t.Fatalf("late ConfigMap: handler was told %v, want one add outside the initial list", ev)
	}
	if err := rec.check(); err != nil {
		t.Fatal(err)
	}
	return inf, rec, o, reqs
}

// TestWatchListStreamsInitialState: against kube-apiserver v1.37 (WatchList
// on), a generated factory's informer syncs from a watch-list stream
// without a single list request.
func TestWatchListStreamsInitialState(t *testing.T) {
	_, _, _, reqs := syncConfigMapsThroughFactory(t, cluster.AdminConfig())
	if len(reqs) == 0 || !reqs[0].watch || !reqs[0].sendInitial || reqs[0].status != http.StatusOK {
		t.Fatalf("ConfigMap requests %v, want a successful watch-list first", reqs)
	}
	for _, r := range reqs {
		if !r.watch {
			t.Fatalf("ConfigMap requests %v include a list", reqs)
		}
	}
}

// TestWatchListStreamsWithoutWatchCache covers PodTemplates, which this
// cluster serves without a watch cache: the stream comes from etcd.
func TestWatchListStreamsWithoutWatchCache(t *testing.T) {
	ctx := context.Background()
	c, ns, label, o := inNewNamespace(t, podTemplateOps)
	o.createN(t, ctx, ns, "pt-%d", 10)
	calls := &callLog{}
	inf := newPodTemplateInformer(c, "", informerOptions{label: label, calls: calls})
	runInformer(t, inf)
	waitSynced(t, inf)
	if err := matchesServer(ctx, inf.GetStore(), o); err != nil {
		t.Fatal(err)
	}
	if n := len(calls.listCalls()); n != 0 {
		t.Fatalf("%d list calls, want the state streamed", n)
	}
}

// TestWatchListFallsBackToList: an apiserver with the WatchList feature
// gate off refuses sendInitialEvents; the informer lists instead, then
// watches (that a later full sync tries streaming again is checked against
// runtime/fake in runtime/cache).
func TestWatchListFallsBackToList(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	a := extraAPIServer(t, ctx, "no-watchlist", "--feature-gates=WatchList=false")
	defer cluster.StopExtraAPIServer(a)
	_, _, _, reqs := syncConfigMapsThroughFactory(t, cluster.AdminConfigFor(a))
	if len(reqs) < 2 {
		t.Fatalf("ConfigMap requests %v, want a refused watch-list then a list", reqs)
	}
	if r := reqs[0]; !r.watch || !r.sendInitial || r.status < 400 {
		t.Fatalf("first ConfigMap request %v, want a refused watch-list", r)
	}
	if r := reqs[1]; r.watch || r.status != http.StatusOK {
		t.Fatalf("second ConfigMap request %v, want a successful list", r)
	}
	for _, r := range reqs[2:] {
		if r.sendInitial {
			t.Fatalf("ConfigMap requests %v: streamed again within one sync", reqs)
		}
	}
}
