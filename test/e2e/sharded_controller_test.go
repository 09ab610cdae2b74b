package e2e

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	samplesv1alpha1 "github.com/typedinformer/typedinformer/examples/crd/apis/samples/v1alpha1"
	samplesinformers "github.com/typedinformer/typedinformer/examples/crd/pkg/generated/informers/externalversions"
	"github.com/typedinformer/typedinformer/runtime/cache"
	"github.com/typedinformer/typedinformer/runtime/controller"
	"github.com/typedinformer/typedinformer/runtime/informers"
	"github.com/typedinformer/typedinformer/runtime/sharding"
)

// Ring timing of the sharded controller test: short, so that the test is
// fast; ranges of a crashed replica move within D + P.
const (
	shardFooLabel = "e2e.typedinformer.dev/sharded"
	shardD        = 3 * time.Second
	shardP        = time.Second
	shardM        = time.Second
)

// reconcileLog records every reconcile's start and end, per key and
// replica, and notices at once when a key starts on one replica while
// another replica is still reconciling it.
type reconcileLog struct {
	mu       sync.Mutex
	seq      int
	active   map[string]string // key -> replica reconciling it now
	overlaps []string
	// runs of each key: replica and the sequence numbers of start and end.
	runs map[string][]reconcileRun
}

type reconcileRun struct {
	replica    string
	start, end int
}

func newReconcileLog() *reconcileLog {
	return &reconcileLog{active: map[string]string{}, runs: map[string][]reconcileRun{}}
}

func (l *reconcileLog) begin(replica, key string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seq++
	if other, ok := l.active[key]; ok && other != replica {
		l.overlaps = append(l.overlaps, fmt.Sprintf("%s started on %s while %s was reconciling it", key, replica, other))
	}
	l.active[key] = replica
	l.runs[key] = append(l.runs[key], reconcileRun{replica: replica, start: l.seq, end: -1})
}

func (l *reconcileLog) finish(replica, key string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seq++
	if l.active[key] == replica {
		delete(l.active, key)
	}
	runs := l.runs[key]
	for i := len(runs) - 1; i >= 0; i-- {
		if runs[i].replica == replica && runs[i].end < 0 {
			runs[i].end = l.seq
			break
		}
	}
}

// mark returns the current sequence number, to ask later what happened
// after it.
func (l *reconcileLog) mark() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.seq
}

// reconciledBy reports whether replica finished a reconcile of key that
// started after mark.
func (l *reconcileLog) reconciledBy(key, replica string, mark int) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, r := range l.runs[key] {
		if r.replica == replica && r.start > mark && r.end > 0 {
			return true
		}
	}
	return false
}

// check fails t for every overlap seen live, and re-checks the recorded
// intervals: runs of one key on different replicas must not intersect.
func (l *reconcileLog) check(t *testing.T) {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, o := range l.overlaps {
		t.Errorf("double reconcile: %s", o)
	}
	for key, runs := range l.runs {
		for i, a := range runs {
			for _, b := range runs[i+1:] {
				if a.replica == b.replica {
					continue
				}
				aEnd, bEnd := a.end, b.end
				if aEnd < 0 {
					aEnd = math.MaxInt
				}
				if bEnd < 0 {
					bEnd = math.MaxInt
				}
				if a.start < bEnd && b.start < aEnd {
					t.Errorf("double reconcile of %s: %s [%d,%d] and %s [%d,%d]", key, a.replica, a.start, a.end, b.replica, b.start, b.end)
				}
			}
		}
	}
}

// shardReplica is one controller replica: its own clients, factory, Lease
// and ring.
type shardReplica struct {
	id       string
	ring     *sharding.Ring
	informer cache.SharedIndexInformer[*samplesv1alpha1.Foo]
	factory  samplesinformers.SharedInformerFactory
	cancel   context.CancelFunc
	done     chan struct{}
}

func startShardReplica(t *testing.T, cfg *rest.Config, ringName, id, leaseNS, fooLabel string, log *reconcileLog) *shardReplica {
	t.Helper()
	cfg = rest.CopyConfig(cfg)
	cfg.QPS, cfg.Burst = 200, 400
	cl := newClients(t, cfg)
	kube, samples := cl.kube, cl.samples
	ring, err := sharding.NewRing(sharding.RingConfig{
		Name: ringName, Identity: id, Field: sharding.FieldUID,
		Leases:        kube.CoordinationV1().Leases(leaseNS),
		LeaseDuration: shardD, RenewPeriod: shardP, SafetyMargin: shardM,
		// Stopping a replica models a crash: its Lease is left to expire.
		KeepLeaseOnStop: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	// One informer over all namespaces, limited to the test's Foos by
	// label (a namespace set would make 30 informers relist at every
	// scope change).
	factory := samplesinformers.NewSharedInformerFactoryWithOptions(samples, 0,
		samplesinformers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = shardFooLabel + "=" + fooLabel }),
		informers.WithShardScope(ring.Cache()))
	informer := factory.Samples().V1alpha1().Foos().Informer()
	r := controller.ReconcilerFunc(func(ctx context.Context, req controller.Request) (controller.Result, error) {
		log.begin(id, req.String())
		// A little work, so that reconciles are in flight when ranges move.
		select {
		case <-time.After(5 * time.Millisecond):
		case <-ctx.Done():
		}
		log.finish(id, req.String())
		// Keep every key busy: each is reconciled again soon, by whoever
		// owns it then.
		return controller.Result{RequeueAfter: 2 * time.Second}, nil
	})
	ctrl, err := controller.New("foo-"+id, r, controller.Options{
		MaxConcurrentReconciles: 2,
		Sharding:                controller.ShardingFor(ring, informer),
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := controller.Watch(ctrl, informer, controller.EnqueueRequestForObject[*samplesv1alpha1.Foo]()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	rep := &shardReplica{id: id, ring: ring, informer: informer, factory: factory, cancel: cancel, done: make(chan struct{})}
	var wg sync.WaitGroup
	wg.Go(func() {
		if err := ring.Run(ctx); err != nil {
			t.Errorf("ring %s: %v", id, err)
		}
	})
	factory.Start(ctx)
	wg.Go(func() {
		if err := ctrl.Start(ctx); err != nil {
			t.Errorf("controller %s: %v", id, err)
		}
	})
	go func() { wg.Wait(); factory.Shutdown(); close(rep.done) }()
	t.Cleanup(rep.stop)
	return rep
}

// stop ends the replica as a crash would, without releasing its Lease.
func (r *shardReplica) stop() {
	r.cancel()
	<-r.done
}

// settled reports whether reps agree on the members and each holds exactly
// what Assign gives it.
func settled(reps []*shardReplica) error {
	var ids []string
	for _, r := range reps {
		ids = append(ids, r.id)
	}
	sort.Strings(ids)
	want, err := sharding.Assign(ids, sharding.DefaultVNodes)
	if err != nil {
		return err
	}
	for _, r := range reps {
		if m := r.ring.Members(); !slices.Equal(m, ids) {
			return fmt.Errorf("%s sees members %v, want %v", r.id, m, ids)
		}
		held := r.ring.Held().Ranges()
		if len(sharding.Subtract(held, want[r.id])) > 0 || len(sharding.Subtract(want[r.id], held)) > 0 {
			return fmt.Errorf("%s holds %.3f of the space, Assign gives it %.3f", r.id, sharding.SpaceOf(held), sharding.SpaceOf(want[r.id]))
		}
	}
	return nil
}

// owners maps each Foo key to the member whose ranges hold its uid.
func owners(t *testing.T, uids map[string]string, members ...string) map[string]string {
	t.Helper()
	a, err := sharding.Assign(members, sharding.DefaultVNodes)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for key, uid := range uids {
		for m, rs := range a {
			if sharding.Contains(rs, sharding.Hash(uid)) {
				out[key] = m
			}
		}
	}
	return out
}

// TestShardedControllers runs 3, then 4, then 3 controller replicas in
// one process over 300 Foos in 30 namespaces, uid-sharded through a ring
// of Leases, once against an apiserver with ShardedListAndWatch (the
// server filters) and once against one without (the informers filter on
// the client). It checks that every Foo is reconciled by its owner, that
// each cache holds exactly its owner's share, that a 4th replica takes
// over only its new ranges, that the ranges of a replica that stops
// without releasing its Lease move within D + P (plus slack for a loaded
// machine) and its Foos are reconciled again by their new owners, and that
// no key is ever reconciled by two replicas at once.
func TestShardedControllers(t *testing.T) {
	ensureExampleCRDs(t)
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	gated := extraAPIServer(t, ctx, "sharded-ctrl", "--feature-gates=ShardedListAndWatch=true")
	defer cluster.StopExtraAPIServer(gated)

	c, namespaces := adminIn(t, 31)
	leaseNS, namespaces := namespaces[30], namespaces[:30]
	uids := map[string]string{} // Foo key -> uid
	fooLabel := testLabel(t)
	created := time.Now()
	for _, ns := range namespaces {
		for i := range 10 {
			f := &samplesv1alpha1.Foo{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("foo-%d", i), Labels: map[string]string{shardFooLabel: fooLabel}},
				Spec: samplesv1alpha1.FooSpec{Data: map[string]string{"i": fmt.Sprint(i)}}}
			got, err := c.samples.SamplesV1alpha1().Foos(ns).Create(ctx, f, metav1.CreateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			uids[ns+"/"+got.Name] = string(got.UID)
		}
	}
	t.Logf("created 300 Foos in %v", time.Since(created).Round(time.Millisecond))

	for _, tc := range []struct {
		name   string
		cfg    *rest.Config
		server bool // the server applies shard selectors
	}{
		{"gate on", cluster.AdminConfigFor(gated), true},
		{"gate off", cluster.AdminConfig(), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			began := time.Now()
			ringName := fmt.Sprintf("foos-%s", testLabel(t))
			log := newReconcileLog()
			defer log.check(t)
			start := func(id string) *shardReplica {
				return startShardReplica(t, tc.cfg, ringName, id, leaseNS, fooLabel, log)
			}
			reps := []*shardReplica{start("r0"), start("r1"), start("r2")}

			// 1. Three replicas settle; every Foo is reconciled by its owner.
			own3 := owners(t, uids, "r0", "r1", "r2")
			eventually(t, 2*time.Minute, "3 replicas settle and reconcile every Foo", func() error {
				if err := settled(reps); err != nil {
					return err
				}
				for key, o := range own3 {
					if !log.reconciledBy(key, o, 0) {
						return fmt.Errorf("%s not reconciled by its owner %s yet", key, o)
					}
				}
				return nil
			})
			t.Logf("3 replicas settled, every Foo reconciled, %v after start", time.Since(began).Round(time.Millisecond))
			checkSplit(t, own3, "r0", "r1", "r2")
			checkCaches(t, ctx, tc.cfg, tc.server, reps, uids, shardFooLabel+"="+fooLabel)

			// 2. A 4th replica joins: only the keys of its new ranges move,
			// all to it, and it reconciles each of them.
			mark := log.mark()
			joined := time.Now()
			reps = append(reps, start("r3"))
			own4 := owners(t, uids, "r0", "r1", "r2", "r3")
			var moved []string
			for key, o := range own4 {
				if o != own3[key] {
					if o != "r3" {
						t.Fatalf("%s moves from %s to %s when r3 joins: only r3 should gain keys", key, own3[key], o)
					}
					moved = append(moved, key)
				}
			}
			eventually(t, 2*time.Minute, "4 replicas settle and r3 reconciles the keys it took", func() error {
				if err := settled(reps); err != nil {
					return err
				}
				for _, key := range moved {
					if !log.reconciledBy(key, "r3", mark) {
						return fmt.Errorf("%s not reconciled by r3 yet", key)
					}
				}
				return nil
			})
			frac := float64(len(moved)) / float64(len(uids))
			t.Logf("r3 joined: %d of %d keys (%.3f) moved to it, settled %v after the join", len(moved), len(uids), frac, time.Since(joined).Round(time.Millisecond))
			// About a quarter: r3's share of the space (0.25 ± the vnode
			// imbalance, at most 0.2 relative) times 300 keys, ± 4 binomial σ.
			if s := spaceOf(t, "r3", "r0", "r1", "r2", "r3"); math.Abs(float64(len(moved))-300*s) > 4*math.Sqrt(300*s*(1-s)) || s < 0.25*0.8 || s > 0.25*1.2 {
				t.Errorf("%d keys moved to r3, whose share of the space is %.3f: want about a quarter", len(moved), s)
			}
			checkCaches(t, ctx, tc.cfg, tc.server, reps, uids, shardFooLabel+"="+fooLabel)

			// 3. r2 stops without releasing its Lease: its ranges move
			// within D + P and its Foos are reconciled by their new owners.
			mark = log.mark()
			var lost []sharding.Range
			for _, r := range reps {
				if r.id == "r2" {
					lost = r.ring.Held().Ranges()
					r.stop()
				}
			}
			crashed := time.Now()
			reps = slices.DeleteFunc(reps, func(r *shardReplica) bool { return r.id == "r2" })
			var movedAfter time.Duration
			eventually(t, time.Minute, "r2's ranges taken over", func() error {
				var held []sharding.Range
				for _, r := range reps {
					held = sharding.Union(held, r.ring.Held().Ranges())
				}
				if left := sharding.Subtract(lost, held); len(left) > 0 {
					return fmt.Errorf("%.3f of the space still unheld", sharding.SpaceOf(left))
				}
				movedAfter = time.Since(crashed)
				return nil
			})
			t.Logf("r2 stopped without releasing: its ranges moved in %v (D + P = %v)", movedAfter.Round(time.Millisecond), shardD+shardP)
			// Generous for a loaded 2-core machine: the bound D + P counts
			// from r2's last renewal, which is at most P before the stop,
			// and the survivors' steps are apiserver round trips.
			if limit := shardD + 2*shardP + 3*time.Second; movedAfter > limit {
				t.Errorf("r2's ranges moved %v after it stopped, want within %v", movedAfter, limit)
			}
			own3b := owners(t, uids, "r0", "r1", "r3")
			eventually(t, 2*time.Minute, "survivors reconcile every Foo r2 owned", func() error {
				if err := settled(reps); err != nil {
					return err
				}
				for key, o := range own4 {
					if o == "r2" && !log.reconciledBy(key, own3b[key], mark) {
						return fmt.Errorf("%s (r2's) not reconciled by %s yet", key, own3b[key])
					}
				}
				return nil
			})
			checkCaches(t, ctx, tc.cfg, tc.server, reps, uids, shardFooLabel+"="+fooLabel)
			for _, r := range reps {
				r.stop()
			}
			t.Logf("%s: done in %v", tc.name, time.Since(began).Round(time.Millisecond))
		})
	}
}

func spaceOf(t *testing.T, id string, members ...string) float64 {
	a, err := sharding.Assign(members, sharding.DefaultVNodes)
	if err != nil {
		t.Fatal(err)
	}
	return sharding.SpaceOf(a[id])
}

// checkSplit checks how evenly 300 uids split over the members. Two
// sources of spread add up: each member's share of the space (256 vnodes
// leave it up to ~18% off an even share, see docs/sharding.md) and the
// binomial spread of 300 random uids around that share (σ ≈ 8.2 keys, 8%
// of an even 100). "Within 15% of even" fails for a fair fraction of
// random uid sets, so the stable check is against each member's own share
// of the space with a 4σ binomial bound; the deviation from even is logged.
func checkSplit(t *testing.T, own map[string]string, members ...string) {
	t.Helper()
	count := map[string]int{}
	for _, o := range own {
		count[o]++
	}
	n := float64(len(own))
	even := n / float64(len(members))
	for _, m := range members {
		s := spaceOf(t, m, members...)
		dev := (float64(count[m]) - even) / even
		t.Logf("%s: %d keys (%+.1f%% off even), space share %.3f (%+.1f%% off even)", m, count[m], 100*dev, s, 100*(s*float64(len(members))-1))
		if math.Abs(float64(count[m])-n*s) > 4*math.Sqrt(n*s*(1-s)) {
			t.Errorf("%s has %d keys, its share %.3f of the space predicts %.0f ± %.0f", m, count[m], s, n*s, 4*math.Sqrt(n*s*(1-s)))
		}
	}
}

// checkCaches waits until each replica's cache holds exactly the Foos of
// its Cache scope (held ∪ desired: settled, its own share), and, when the
// server shards, that a list with the scope's selector is answered with
// ShardInfo.
func checkCaches(t *testing.T, ctx context.Context, cfg *rest.Config, server bool, reps []*shardReplica, uids map[string]string, fooSelector string) {
	t.Helper()
	for _, r := range reps {
		eventually(t, time.Minute, r.id+"'s cache holds its share", func() error {
			scope := r.ring.Cache().Ranges()
			want := map[string]bool{}
			for key, uid := range uids {
				if sharding.Contains(scope, sharding.Hash(uid)) {
					want[key] = true
				}
			}
			got := r.informer.GetIndexer().ListKeys()
			if len(got) != len(want) {
				return fmt.Errorf("%s caches %d Foos, its scope holds %d", r.id, len(got), len(want))
			}
			for _, k := range got {
				if !want[k] {
					return fmt.Errorf("%s caches %s outside its scope", r.id, k)
				}
			}
			return nil
		})
	}
	cl := newClients(t, cfg)
	kube, samples := cl.kube, cl.samples
	sel, err := sharding.Selector(sharding.FieldUID, reps[0].ring.Cache().Ranges())
	if err != nil {
		t.Fatal(err)
	}
	// The gate is on where it should be: a built-in resource is sharded by
	// the server.
	cms, err := kube.CoreV1().ConfigMaps("").List(ctx, metav1.ListOptions{ShardSelector: sel, Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if got := cms.ShardInfo != nil; got != server {
		t.Errorf("a ConfigMap list with %s's selector: ShardInfo present = %v, want %v", reps[0].id, got, server)
	}
	// For custom resources a v1.37.2 apiserver echoes no ShardInfo even
	// with the gate on (its UnstructuredList has no SetShardInfo), so the
	// Foo informers filter on the client in both runs; whether the server
	// filtered anyway is logged.
	foos, err := samples.SamplesV1alpha1().Foos("").List(ctx, metav1.ListOptions{ShardSelector: sel, LabelSelector: fooSelector})
	if err != nil {
		t.Fatal(err)
	}
	share := 0
	for _, uid := range uids {
		if sharding.Contains(reps[0].ring.Cache().Ranges(), sharding.Hash(uid)) {
			share++
		}
	}
	t.Logf("a Foo list with %s's selector: ShardInfo present = %v, %d of %d Foos returned, its share is %d", reps[0].id, foos.ShardInfo != nil, len(foos.Items), len(uids), share)
	if want := map[bool]int{true: share, false: len(uids)}[server]; len(foos.Items) != want {
		t.Errorf("a Foo list with %s's selector returned %d Foos, want %d (server shards: %v)", reps[0].id, len(foos.Items), want, server)
	}
}
