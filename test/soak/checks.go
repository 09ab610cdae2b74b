package soak

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	samplesv1alpha1 "github.com/typedinformer/typedinformer/examples/crd/apis/samples/v1alpha1"
	"github.com/typedinformer/typedinformer/examples/crd/pkg/controller"
	"github.com/typedinformer/typedinformer/runtime/sharding"
)

// Leak limits against a replica incarnation's first quiescent point.
const (
	goroutineSlack = 5
	heapSlack      = 0.10
	// heapFloor is added to the heap limit: on a live heap of a few MiB,
	// the buffers of one HTTP/2 connection a reset replaced are of the
	// order of 10%.
	heapFloor = 1 << 20
	// connSlack is the number of connections to the API server a replica
	// may hold beyond its first quiescent level: client-go's HTTP/2
	// transport dials a new connection when the one it holds stops taking
	// new streams (a GOAWAY, a failed ping) and closes the old one only once
	// its last stream (a watch) has ended, so one extra connection can be
	// open at any instant without a leak. A leak of one per fault grows past
	// it after the second fault.
	connSlack = 1
	// watchSettle bounds the wait for every reflector of a replica to be
	// watching again before its goroutines are counted.
	watchSettle = 20 * time.Second
)

// QuiescentPoint is the outcome of the checks after one round.
type QuiescentPoint struct {
	At time.Time `json:"at"`
	// Settled is how long the caches and ConfigMaps took to converge (or
	// the bound, when they did not).
	Settled time.Duration `json:"settled"`
	Passed  bool          `json:"passed"`
	// Divergences are what still differed when the wait ran out.
	Divergences []string `json:"divergences,omitempty"`
	// Orphans are ConfigMaps left for the garbage collector (see orphans).
	Orphans []string                `json:"orphans,omitempty"`
	Runtime map[string]runtimeStats `json:"runtime"`
	Leaks   []string                `json:"leaks,omitempty"`
	Objects int                     `json:"objects"`
}

// runtimeStats mirrors the controller's /debug/runtime.
type runtimeStats struct {
	Goroutines int    `json:"goroutines"`
	HeapAlloc  uint64 `json:"heapAlloc"`
	// Cached counts the objects in the replica's Foo and ConfigMap caches.
	Cached int `json:"cached"`
	// Conns counts the replica's open connections to the API server (see
	// replica.apiConns).
	Conns int `json:"conns"`
}

// cacheDump mirrors the controller's /debug/cache.
type cacheDump struct {
	ShardField string                       `json:"shardField,omitempty"`
	ShardScope string                       `json:"shardScope,omitempty"`
	Informers  map[string]map[string]string `json:"informers"`
}

// quiesce pauses (the load is already stopped), heals every fault, waits a
// bounded time for convergence and records the checks.
func (r *run) quiesce(ctx context.Context) {
	for _, rep := range r.replicas {
		rep.proxy.Heal()
		rep.signal(syscall.SIGCONT)
	}
	start := time.Now()
	qp := QuiescentPoint{At: start, Runtime: map[string]runtimeStats{}}
	var last []string
	logged := time.Time{}
	err := poll(ctx, r.cfg.Settle, func() error {
		qp.Objects = 0
		last = r.divergences(ctx, &qp.Objects, &qp.Orphans)
		if len(last) > 0 {
			if time.Since(logged) > time.Second {
				logged = time.Now()
				r.settleLogf("quiescent point %d, %v: %d divergences, first: %s", len(r.report.Quiescent)+1, time.Since(start).Round(time.Millisecond), len(last), last[0])
			}
			return fmt.Errorf("%d divergences, first: %s", len(last), last[0])
		}
		return nil
	})
	qp.Settled = time.Since(start).Round(time.Millisecond)
	if err != nil {
		qp.Divergences = last
	}
	// Goroutines are compared in the steady state only: every reflector
	// watching. A reflector in backoff or listing after a fault runs
	// fewer goroutines than one watching, which is no leak.
	for _, rep := range r.replicas {
		err := poll(ctx, watchSettle, func() error {
			w, n, err := rep.watchState(ctx)
			switch {
			case err != nil:
				return err
			case n == 0 || w < n:
				return fmt.Errorf("%d of %d reflectors watching", w, n)
			}
			return nil
		})
		if err != nil {
			r.settleLogf("quiescent point %d: %s not in its steady state: %v", len(r.report.Quiescent)+1, rep.name, err)
		}
	}
	leader := r.leader(ctx, nil)
	for _, rep := range r.replicas {
		var st runtimeStats
		var d cacheDump
		if err := errors.Join(rep.getJSON(ctx, "/debug/runtime", &st), rep.getJSON(ctx, "/debug/cache", &d)); err != nil {
			qp.Leaks = append(qp.Leaks, err.Error())
			continue
		}
		for _, objs := range d.Informers {
			st.Cached += len(objs)
		}
		conns, err := rep.apiConns()
		if err != nil {
			qp.Leaks = append(qp.Leaks, err.Error())
			continue
		}
		st.Conns = conns
		qp.Runtime[rep.name] = st
		key := fmt.Sprintf("%s#%d", rep.name, rep.incarnation())
		if rep.group == groupElected {
			// A leader runs its workers and a standby does not: each role
			// has its own baseline.
			role := "standby"
			if leader != nil && leader == rep {
				role = "leader"
			}
			key += "/" + role
		}
		// Profiles named after the replica incarnation and role: the
		// baseline's are kept to compare a leak's with.
		profiles := strings.NewReplacer("#", "-", "/", "-").Replace(key)
		base, ok := r.baselines[key]
		if !ok {
			r.baselines[key] = st
			if _, err := rep.saveProfiles(ctx, r.cfg.WorkDir, profiles+".baseline"); err != nil {
				r.logf("saving the baseline profiles of %s: %v", key, err)
			}
			continue
		}
		var leaks []string
		if st.Goroutines > base.Goroutines+goroutineSlack {
			leaks = append(leaks, fmt.Sprintf("%s: %d goroutines, %d at its first quiescent point", key, st.Goroutines, base.Goroutines))
		}
		if st.Conns > base.Conns+connSlack {
			leaks = append(leaks, fmt.Sprintf("%s: %d connections to the API server, %d at its first quiescent point", key, st.Conns, base.Conns))
		}
		// A sharded replica's caches grow and shrink with the ranges it
		// holds: the heap may grow with them.
		growth := max(1, float64(st.Cached)/float64(max(1, base.Cached)))
		if float64(st.HeapAlloc) > float64(base.HeapAlloc)*(1+heapSlack)*growth+heapFloor {
			leaks = append(leaks, fmt.Sprintf("%s: heap after GC %d B with %d objects cached, %d B with %d at its first quiescent point",
				key, st.HeapAlloc, st.Cached, base.HeapAlloc, base.Cached))
		}
		if len(leaks) > 0 {
			name := fmt.Sprintf("%s.point%d", profiles, len(r.report.Quiescent)+1)
			if file, err := rep.saveProfiles(ctx, r.cfg.WorkDir, name); err != nil {
				r.logf("saving the profiles of %s: %v", key, err)
			} else {
				for i := range leaks {
					leaks[i] += " (profiles: " + file + ")"
				}
			}
			qp.Leaks = append(qp.Leaks, leaks...)
		}
	}
	qp.Passed = len(qp.Divergences) == 0 && len(qp.Leaks) == 0
	r.report.Quiescent = append(r.report.Quiescent, qp)
	r.logf("quiescent point %d: passed=%v settled in %v, %d objects, %d divergences, %d leaks",
		len(r.report.Quiescent), qp.Passed, qp.Settled, qp.Objects, len(qp.Divergences), len(qp.Leaks))
}

// divergences lists every way the server's state and the replicas' caches
// differ from what the controller promises. objects is set to the number
// of Foos and ConfigMaps the server holds in the groups' namespaces.
func (r *run) divergences(ctx context.Context, objects *int, orphaned *[]string) []string {
	var out []string
	*orphaned = nil
	for _, group := range []string{groupSharded, groupElected} {
		foos, cms, err := r.serverState(ctx, groupNamespaces[group])
		if err != nil {
			return []string{err.Error()}
		}
		*objects += len(foos) + len(cms)
		out = append(out, contractDivergences(foos, cms, r.classDefaults(ctx))...)
		*orphaned = append(*orphaned, orphans(foos, cms)...)
		for _, rep := range r.replicas {
			if rep.group != group {
				continue
			}
			var d cacheDump
			if err := rep.getJSON(ctx, "/debug/cache", &d); err != nil {
				out = append(out, err.Error())
				continue
			}
			out = append(out, cacheDivergences(rep.name, d, foos, cms)...)
		}
	}
	return out
}

func (r *run) classDefaults(ctx context.Context) map[string]map[string]string {
	classes, err := r.c.samples.SamplesV1alpha1().FooClasses().List(ctx, metav1.ListOptions{})
	out := map[string]map[string]string{}
	if err != nil {
		return out
	}
	for _, c := range classes.Items {
		out[c.Name] = c.Spec.Defaults
	}
	return out
}

// serverState lists the Foos and ConfigMaps of namespaces with a quorum
// read (resourceVersion ""), the truth the caches are compared with.
func (r *run) serverState(ctx context.Context, namespaces []string) ([]samplesv1alpha1.Foo, []corev1.ConfigMap, error) {
	var foos []samplesv1alpha1.Foo
	var cms []corev1.ConfigMap
	for _, ns := range namespaces {
		fl, err := r.c.samples.SamplesV1alpha1().Foos(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil, nil, fmt.Errorf("listing Foos in %s: %w", ns, err)
		}
		foos = append(foos, fl.Items...)
		cl, err := r.c.kube.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil, nil, fmt.Errorf("listing ConfigMaps in %s: %w", ns, err)
		}
		cms = append(cms, cl.Items...)
	}
	return foos, cms, nil
}

// contractDivergences checks the controller's contract: every Foo has its
// ConfigMap, owned by it, with its data merged over its class's defaults,
// and a Ready status for its generation; no ConfigMap outlives its Foo.
func contractDivergences(foos []samplesv1alpha1.Foo, cms []corev1.ConfigMap, classes map[string]map[string]string) []string {
	var out []string
	byKey := map[string]*corev1.ConfigMap{}
	for i := range cms {
		byKey[cms[i].Namespace+"/"+cms[i].Name] = &cms[i]
	}
	for _, f := range foos {
		key := f.Namespace + "/" + f.Name
		cmName := f.Spec.ConfigMapName
		if cmName == "" {
			cmName = f.Name
		}
		want := map[string]string{}
		if f.Spec.ClassName != "" {
			maps.Copy(want, classes[f.Spec.ClassName])
		}
		maps.Copy(want, f.Spec.Data)
		cm := byKey[f.Namespace+"/"+cmName]
		switch {
		case cm == nil:
			out = append(out, fmt.Sprintf("Foo %s: no ConfigMap %s", key, cmName))
		case !metav1.IsControlledBy(cm, &f):
			out = append(out, fmt.Sprintf("Foo %s: ConfigMap %s not controlled by it", key, cmName))
		case !maps.Equal(cm.Data, want):
			out = append(out, fmt.Sprintf("Foo %s: ConfigMap %s has %v, want %v", key, cmName, cm.Data, want))
		}
		if f.Status.Phase != controller.PhaseReady || f.Status.ObservedGeneration != f.Generation {
			out = append(out, fmt.Sprintf("Foo %s: status %q for generation %d, want %q for %d",
				key, f.Status.Phase, f.Status.ObservedGeneration, controller.PhaseReady, f.Generation))
		}
	}
	return out
}

// orphans lists the ConfigMaps that outlive their Foo. The controller
// deletes them when it reconciles the deleted Foo's key; on a real cluster
// the garbage collector deletes them too (they carry the Foo's controller
// reference), but the soak runs no kube-controller-manager. They are
// reported, not failed: a deleted Foo's key that was pending when its
// replica fenced itself is not requeued by the replica taking the range
// over, which resyncs only the Foos it finds.
func orphans(foos []samplesv1alpha1.Foo, cms []corev1.ConfigMap) []string {
	names := map[string]bool{}
	for _, f := range foos {
		names[f.Namespace+"/"+f.Name] = true
	}
	var out []string
	for _, cm := range cms {
		if owner := cm.Labels[controller.FooLabel]; owner != "" && !names[cm.Namespace+"/"+owner] {
			out = append(out, fmt.Sprintf("ConfigMap %s/%s outlives its Foo %s", cm.Namespace, cm.Name, owner))
		}
	}
	return out
}

// cacheDivergences compares a replica's caches with the server's objects
// in its scope, key by key, resourceVersion included.
func cacheDivergences(replica string, d cacheDump, foos []samplesv1alpha1.Foo, cms []corev1.ConfigMap) []string {
	inScope := func(string, string) bool { return true }
	if d.ShardField != "" {
		ranges, err := sharding.ParseRanges(d.ShardScope)
		if err != nil {
			return []string{fmt.Sprintf("%s: shard scope %q: %v", replica, d.ShardScope, err)}
		}
		field := sharding.Field(d.ShardField)
		inScope = func(ns, uid string) bool { return sharding.Owns(field, ranges, ns, uid) }
	}
	want := map[string]map[string]string{"foos": {}, "configmaps": {}}
	for _, f := range foos {
		if inScope(f.Namespace, string(f.UID)) {
			want["foos"][f.Namespace+"/"+f.Name] = f.ResourceVersion
		}
	}
	for _, cm := range cms {
		// ConfigMaps are scoped with the Foos only on the namespace field.
		if d.ShardField != string(sharding.FieldNamespace) || inScope(cm.Namespace, string(cm.UID)) {
			want["configmaps"][cm.Namespace+"/"+cm.Name] = cm.ResourceVersion
		}
	}
	var out []string
	for _, inf := range []string{"foos", "configmaps"} {
		got := d.Informers[inf]
		keys := slices.Sorted(maps.Keys(want[inf]))
		for _, k := range keys {
			switch rv, ok := got[k]; {
			case !ok:
				out = append(out, fmt.Sprintf("%s %s cache: missing %s (server rv %s)", replica, inf, k, want[inf][k]))
			case rv != want[inf][k]:
				out = append(out, fmt.Sprintf("%s %s cache: %s at rv %s, server %s", replica, inf, k, rv, want[inf][k]))
			}
		}
		for _, k := range slices.Sorted(maps.Keys(got)) {
			if _, ok := want[inf][k]; !ok {
				out = append(out, fmt.Sprintf("%s %s cache: %s (rv %s) not on the server in its scope", replica, inf, k, got[k]))
			}
		}
	}
	return out
}

// leaseRecord is one observed state of a Lease. Acquire is the start of
// the holder's tenure (the Renew of the first record when the Lease has no
// acquireTime).
type leaseRecord struct {
	Holder   string
	Acquire  time.Time
	Renew    time.Time
	Duration time.Duration
}

// leaseLog polls the Leases of a namespace and keeps every distinct
// (holder, renewTime) seen, for the fencing check. Polling at a quarter of
// the renew period sees every renewal while the apiserver answers.
type leaseLog struct {
	mu      sync.Mutex
	records map[leaseRecord]bool
	cancel  context.CancelFunc
	done    chan struct{}
}

func startLeaseLog(kube kubernetes.Interface, namespace string) *leaseLog {
	ctx, cancel := context.WithCancel(context.Background())
	l := &leaseLog{records: map[leaseRecord]bool{}, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(l.done)
		t := time.NewTicker(250 * time.Millisecond)
		defer t.Stop()
		for {
			list, err := kube.CoordinationV1().Leases(namespace).List(ctx, metav1.ListOptions{})
			if err == nil {
				l.mu.Lock()
				for _, le := range list.Items {
					s := le.Spec
					if s.HolderIdentity == nil || s.RenewTime == nil || s.LeaseDurationSeconds == nil {
						continue
					}
					acquire := s.RenewTime.Time
					if s.AcquireTime != nil {
						acquire = s.AcquireTime.Time
					}
					l.records[leaseRecord{Holder: *s.HolderIdentity, Acquire: acquire, Renew: s.RenewTime.Time,
						Duration: time.Duration(*s.LeaseDurationSeconds) * time.Second}] = true
				}
				l.mu.Unlock()
			}
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	return l
}

func (l *leaseLog) stop() {
	l.cancel()
	<-l.done
}

// heldAt reports whether holder's Lease, by the records seen, was valid
// at t: some record of holder renewed at or before t whose duration
// reaches t. A record renewed within one duration of its acquisition also
// covers the time since the acquisition (no lapse fits in between):
// client-go's elector renews at once after acquiring, so the 250 ms poll
// seldom sees the acquiring record itself.
func (l *leaseLog) heldAt(holder string, t time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for rec := range l.records {
		from := rec.Renew
		if rec.Renew.Sub(rec.Acquire) <= rec.Duration {
			from = rec.Acquire
		}
		if rec.Holder == holder && !from.After(t) && !t.After(rec.Renew.Add(rec.Duration)) {
			return true
		}
	}
	return false
}

// percentile returns the p-th percentile (0..1) of sorted durations.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(float64(len(sorted)-1) * p)
	return sorted[i]
}

func sortDurations(d []time.Duration) {
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
}
