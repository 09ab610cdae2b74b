// Package soak runs examples/crd's foo-controller as separate processes
// against a real kube-apiserver and etcd under a seeded load and seeded
// faults, and checks after every quiescent point that the controller kept
// its contract, that every replica's caches equal the server's state, that
// no key was reconciled by two replicas at once, and that no replica leaks.
package soak

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	apiextensions "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	samplesv1alpha1 "github.com/typedinformer/typedinformer/examples/crd/apis/samples/v1alpha1"
	"github.com/typedinformer/typedinformer/examples/crd/pkg/generated/clientset/versioned"
	"github.com/typedinformer/typedinformer/runtime/cache"
	"github.com/typedinformer/typedinformer/test/e2e/framework"
	"github.com/typedinformer/typedinformer/test/soak/proxy"
)

// Config is one soak run.
type Config struct {
	// Duration is the time under load (faults in all but the first,
	// short, round), quiescent points excluded.
	Duration time.Duration
	// Seed fixes the fault schedule and the load's random choices.
	Seed uint64
	// Controller is the foo-controller binary; Bins are etcd and
	// kube-apiserver; RepoRoot holds examples/crd/config/crd.
	Controller string
	Bins       framework.Binaries
	RepoRoot   string
	// WorkDir receives the replicas' logs and traces and the report.
	WorkDir string
	// Round is the load time between quiescent points (default 20s).
	Round time.Duration
	// LeaseDuration is the Lease duration of both groups (default 5s).
	LeaseDuration time.Duration
	// Settle bounds the wait for convergence at a quiescent point
	// (default settleDefault).
	Settle time.Duration
	// FaultKinds, when set, replaces the schedule's kinds (all of them by
	// default), e.g. to prove a check fires without waiting for the rest.
	FaultKinds []string
	// FaultGroup, when set, restricts the faults that hit one replica to
	// that group's replicas (groupSharded or groupElected).
	FaultGroup string
	// Log receives progress lines (default io.Discard).
	Log io.Writer
}

// settleDefault is the default bound of a quiescent point's wait. An
// informer recovers from a fault within two backoffs at most: a watch
// that ends at once (the server restarting) is retried after one, and
// when the retry is told its resourceVersion is gone (410), the relist
// comes after another. Under faults every few seconds the backoff stays at
// its cap (cache.DefaultMaxBackoff, as in client-go), so the bound is two
// caps plus the relist and the reconciles.
const settleDefault = 2*cache.DefaultMaxBackoff + 30*time.Second

func (c *Config) defaults() {
	if c.Round == 0 {
		c.Round = 20 * time.Second
	}
	if c.LeaseDuration == 0 {
		c.LeaseDuration = 5 * time.Second
	}
	if c.Settle == 0 {
		c.Settle = settleDefault
	}
	if c.Log == nil {
		c.Log = io.Discard
	}
}

// Groups of replicas: each on namespaces of its own.
const (
	groupSharded = "sharded"
	groupElected = "elected"
	leaseNS      = "soak-leases"
	ringName     = "soak"
	electionID   = "soak-elected"
)

// groupNamespaces differ in their first bytes: names that differ only in
// their last byte hash (sharding.Hash) into one narrow range, so that a
// single replica of the ring would hold them all.
var groupNamespaces = map[string][]string{
	groupSharded: {"s0-soak", "s1-soak", "s2-soak", "s3-soak", "s4-soak", "s5-soak"},
	groupElected: {"e0-soak", "e1-soak", "e2-soak"},
}

// run is the state of one Run.
type run struct {
	cfg      Config
	cluster  *framework.Cluster
	c        clients
	replicas []*replica
	// retired replicas left the ring (replica-leave); joined counts the
	// replicas that joined it.
	retired []*replica
	joined  int
	sched   *schedule
	load    *loadGen
	leases  *leaseLog
	report  *Report
	// baselines are each replica incarnation's runtime stats at its first
	// quiescent point.
	baselines map[string]runtimeStats
	started   time.Time
}

// Run performs the soak and returns its report; the report's Passed says
// whether every check held. An error means the run itself could not be
// carried out (the cluster did not start, a binary is missing).
func Run(ctx context.Context, cfg Config) (*Report, error) {
	cfg.defaults()
	for _, k := range cfg.FaultKinds {
		if !slices.Contains(requiredFaults, k) && !slices.Contains(otherFaults, k) {
			return nil, fmt.Errorf("unknown fault kind %q (known: %s, %s)", k, strings.Join(requiredFaults, ", "), strings.Join(otherFaults, ", "))
		}
	}
	if err := os.MkdirAll(cfg.WorkDir, 0o755); err != nil {
		return nil, err
	}
	r := &run{
		cfg: cfg, sched: newSchedule(cfg.Seed, cfg.FaultKinds), baselines: map[string]runtimeStats{},
		report: &Report{Seed: cfg.Seed, Duration: cfg.Duration.String(), WorkDir: cfg.WorkDir, Faults: map[string]int{}},
	}
	r.started = time.Now()
	r.logf("starting etcd and kube-apiserver")
	cluster, err := framework.Start(ctx, cfg.Bins,
		// The apiserver's own periodic compaction, short, on top of the
		// forced ones.
		"--etcd-compaction-interval=20s")
	if err != nil {
		return nil, err
	}
	r.cluster = cluster
	defer func() {
		// Nothing is checked past this point: no graceful shutdown.
		cluster.KillAPIServer()
		if err := cluster.Stop(); err != nil {
			r.logf("stopping the cluster: %v", err)
		}
		r.logf("cluster stopped")
	}()
	if err := r.setup(ctx); err != nil {
		r.stopAll()
		return nil, err
	}
	r.soak(ctx)
	r.stopAll()
	r.logf("replicas stopped")
	r.finish()
	return r.report, nil
}

func (r *run) logf(format string, args ...any) {
	fmt.Fprintf(r.cfg.Log, "soak %6.1fs: %s\n", time.Since(r.started).Seconds(), fmt.Sprintf(format, args...))
}

// settleLogf appends to settle.log in the work dir: what still differed
// while a quiescent point waited.
func (r *run) settleLogf(format string, args ...any) {
	f, err := os.OpenFile(filepath.Join(r.cfg.WorkDir, "settle.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	fmt.Fprintf(f, "%6.1fs: %s\n", time.Since(r.started).Seconds(), fmt.Sprintf(format, args...))
}

func (r *run) setup(ctx context.Context) error {
	rc := r.cluster.AdminConfig()
	var err error
	if r.c.kube, err = kubernetes.NewForConfig(rc); err != nil {
		return err
	}
	if r.c.samples, err = versioned.NewForConfig(rc); err != nil {
		return err
	}
	if r.c.crds, err = apiextensions.NewForConfig(rc); err != nil {
		return err
	}
	if err := installCRDs(ctx, r.c, r.cfg.RepoRoot); err != nil {
		return err
	}
	all := []string{leaseNS}
	for _, g := range []string{groupSharded, groupElected} {
		all = append(all, groupNamespaces[g]...)
	}
	if err := createNamespaces(ctx, r.c.kube, all...); err != nil {
		return err
	}
	class := &samplesv1alpha1.FooClass{ObjectMeta: metav1.ObjectMeta{Name: className},
		Spec: samplesv1alpha1.FooClassSpec{Defaults: map[string]string{"k0": "class", "tier": "base"}}}
	if _, err := r.c.samples.SamplesV1alpha1().FooClasses().Create(ctx, class, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("creating FooClass: %w", err)
	}
	r.load = newLoadGen(loadConfig{
		namespaces: all[1:], rate: 20, burstEvery: 6 * time.Second, burstSize: 40, burstWorkers: 4, maxFoos: 12,
	}, r.c, r.cfg.Seed)
	// Start with the Foo count in its steady band.
	for _, ns := range all[1:] {
		for range 6 {
			if err := r.load.createFoo(ctx, ns); err != nil {
				return fmt.Errorf("seeding Foos: %w", err)
			}
		}
	}
	for i := range 3 {
		if err := r.addReplica(groupSharded, "sharded-"+strconv.Itoa(i)); err != nil {
			return err
		}
	}
	for i := range 2 {
		if err := r.addReplica(groupElected, "elected-"+strconv.Itoa(i)); err != nil {
			return err
		}
	}
	r.leases = startLeaseLog(r.c.kube, leaseNS)
	r.logf("%d replicas started", len(r.replicas))
	return poll(ctx, time.Minute, func() error {
		for _, rep := range r.replicas {
			if err := rep.ready(ctx); err != nil {
				return err
			}
		}
		return nil
	})
}

func (r *run) addReplica(group, name string) error {
	host := strings.TrimPrefix(r.cluster.APIServer().Host, "https://")
	p, err := proxy.New(host)
	if err != nil {
		return err
	}
	kubeconfig := filepath.Join(r.cfg.WorkDir, name+".kubeconfig")
	if err := proxiedKubeconfig(r.cluster.Kubeconfig, p.Addr(), kubeconfig); err != nil {
		p.Close()
		return err
	}
	port, err := framework.FreePort()
	if err != nil {
		p.Close()
		return err
	}
	rep := &replica{
		name: name, group: group, bin: r.cfg.Controller, port: port, proxy: p,
		logPath: filepath.Join(r.cfg.WorkDir, name+".log"), restart: 500 * time.Millisecond,
	}
	rep.trace = rep.tracePath(r.cfg.WorkDir)
	secs := strconv.Itoa(int(r.cfg.LeaseDuration / time.Second))
	rep.args = []string{
		"--kubeconfig=" + kubeconfig,
		"--metrics-bind-address=127.0.0.1:" + strconv.Itoa(port),
		"--namespaces=" + strings.Join(groupNamespaces[group], ","),
		"--trace-file=" + rep.trace,
		"--replica-identity=" + name,
		"--resync=0",
		"--workers=2",
		"--kube-api-qps=50",
		"--kube-api-burst=100",
		// Ring moves, sweeps and drains are logged at 2: what a
		// divergence needs to be traced to its cause.
		"-v=2",
	}
	switch group {
	case groupSharded:
		rep.args = append(rep.args, "--shard-ring="+ringName, "--shard-identity="+name,
			"--shard-lease-namespace="+leaseNS, "--shard-lease-duration="+secs+"s", "--shard-renew-period=1s")
	case groupElected:
		rep.args = append(rep.args, "--leader-elect", "--leader-election-namespace="+leaseNS,
			"--leader-election-id="+electionID, "--leader-elect-lease-duration="+secs+"s",
			"--leader-elect-renew-deadline="+strconv.Itoa(int(r.cfg.LeaseDuration/time.Second)-2)+"s",
			"--leader-elect-retry-period=1s")
	}
	if err := rep.start(); err != nil {
		p.Close()
		return err
	}
	r.replicas = append(r.replicas, rep)
	return nil
}

func (r *run) stopAll() {
	var wg sync.WaitGroup
	for _, rep := range r.replicas {
		wg.Go(func() {
			rep.stop()
			_ = rep.proxy.Close()
		})
	}
	wg.Wait()
	if r.leases != nil {
		r.leases.stop()
	}
}

// soak alternates load rounds under faults with quiescent points. The
// first quiescent point follows a short round without faults and sets the
// leak baselines.
func (r *run) soak(ctx context.Context) {
	warmup := min(r.cfg.Round/4, 3*time.Second, r.cfg.Duration/10)
	r.round(ctx, warmup, false)
	r.quiesce(ctx)
	for loaded := warmup; loaded < r.cfg.Duration && ctx.Err() == nil; {
		d := min(r.cfg.Round, r.cfg.Duration-loaded)
		r.round(ctx, d, true)
		loaded += d
		r.quiesce(ctx)
	}
}

// round runs the load for d, injecting faults one after another (each with
// a seeded gap) when faults is set.
func (r *run) round(ctx context.Context, d time.Duration, faults bool) {
	lctx, stopLoad := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { r.load.run(lctx) })
	end := time.Now().Add(d)
	for time.Now().Before(end) && ctx.Err() == nil {
		gap := time.Duration(500+r.sched.rnd.IntN(1500)) * time.Millisecond
		if !faults || time.Until(end) < gap {
			time.Sleep(time.Until(end))
			break
		}
		time.Sleep(gap)
		rec := r.inject(ctx, r.sched.next())
		r.report.Faults[rec.Kind]++
		r.report.FaultLog = append(r.report.FaultLog, rec)
		r.logf("fault %s on %s, held %v %s", rec.Kind, rec.Target, rec.Held, rec.Error)
	}
	stopLoad()
	wg.Wait()
}
