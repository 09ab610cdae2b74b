package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"net/http/pprof"
	"os"
	goruntime "runtime"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/rest"

	samplesv1alpha1 "github.com/typedinformer/typedinformer/examples/crd/apis/samples/v1alpha1"
	"github.com/typedinformer/typedinformer/examples/crd/pkg/controller"
	sampleslisters "github.com/typedinformer/typedinformer/examples/crd/pkg/generated/listers/samples/v1alpha1"
	"github.com/typedinformer/typedinformer/runtime/cache"
	runtimecontroller "github.com/typedinformer/typedinformer/runtime/controller"
	"github.com/typedinformer/typedinformer/runtime/sharding"
)

// WrittenAtAnnotation is set by a load generator to the RFC 3339 time
// (nanoseconds) of its write; the trace records how long after it the
// Foo informer's handler saw the object (event latency).
const WrittenAtAnnotation = "soak.typedinformer.dev/written-at"

// soakFlags are the flags a soak harness uses to observe a replica from
// outside: the namespaces it watches, a trace file of its reconciles and
// events, and the identity both the trace and the leader election Lease use.
type soakFlags struct {
	namespaces string
	trace      string
	identity   string
	qps        float64
	burst      int
}

// addSoakFlags registers the soak flags on fs.
func addSoakFlags(fs *flag.FlagSet) *soakFlags {
	f := &soakFlags{}
	fs.StringVar(&f.namespaces, "namespaces", "", "with --kubeconfig: comma-separated namespaces to watch and reconcile (exclusive with --namespace); empty watches all")
	fs.StringVar(&f.trace, "trace-file", "", "with --kubeconfig: append a JSON line per reconcile start and end and per Foo event carrying the "+WrittenAtAnnotation+" annotation; empty disables")
	fs.Float64Var(&f.qps, "kube-api-qps", 0, "with --kubeconfig: queries per second to the API server (0: client-go's default, 5)")
	fs.IntVar(&f.burst, "kube-api-burst", 0, "with --kubeconfig: burst of queries to the API server (0: client-go's default, 10)")
	fs.StringVar(&f.identity, "replica-identity", "", "this replica's name in the trace and, with --leader-elect, in the Lease (default: the shard identity, else <hostname>_<random>)")
	return f
}

// applyClientLimits sets the client rate limits of --kube-api-qps and
// --kube-api-burst on cfg, leaving client-go's defaults where they are 0.
func (f *soakFlags) applyClientLimits(cfg *rest.Config) {
	if f.qps > 0 {
		cfg.QPS = float32(f.qps)
	}
	if f.burst > 0 {
		cfg.Burst = f.burst
	}
}

// namespaceList returns the namespaces of --namespaces or --namespace.
func (f *soakFlags) namespaceList(single string) ([]string, error) {
	if f.namespaces == "" {
		if single == "" {
			return nil, nil
		}
		return []string{single}, nil
	}
	if single != "" {
		return nil, fmt.Errorf("--namespace %q and --namespaces %q are exclusive", single, f.namespaces)
	}
	var ns []string
	for n := range strings.SplitSeq(f.namespaces, ",") {
		if n = strings.TrimSpace(n); n == "" {
			return nil, fmt.Errorf("--namespaces %q: empty namespace name", f.namespaces)
		}
		ns = append(ns, n)
	}
	return ns, nil
}

// traceRecord is one line of the trace file. Times are Unix nanoseconds.
type traceRecord struct {
	// Kind is "start" or "end" of a reconcile, "event", or "stale" (a
	// lister read older than this process's own write, see readChecker;
	// Error says how).
	Kind string `json:"kind"`
	// Op is an event's "add" or "update". A sharded replica sees objects
	// of ranges it takes over as adds, however old their write.
	Op      string `json:"op,omitempty"`
	Replica string `json:"replica"`
	Key     string `json:"key"`
	Start   int64  `json:"start,omitempty"`
	End     int64  `json:"end,omitempty"`
	Outcome string `json:"outcome,omitempty"`
	Error   string `json:"error,omitempty"`
	// At, ResourceVersion and LatencyNanos are set on events: when the
	// handler saw it, and how long after the load generator's write.
	At              int64  `json:"at,omitempty"`
	ResourceVersion string `json:"resourceVersion,omitempty"`
	LatencyNanos    int64  `json:"latencyNanos,omitempty"`
}

// tracer writes the trace file. A reconcile's start is the moment the
// Reconciler looks its Foo up in the lister (the first thing Reconcile
// does); its end is when the controller's observe callback runs. Workers
// never reconcile one key concurrently in one replica, so starts are kept
// per key. Safe for concurrent use; a nil *tracer records nothing.
type tracer struct {
	replica string
	mu      sync.Mutex
	f       *os.File
	enc     *json.Encoder
	starts  map[string]int64
}

// newTracer opens path for appending; "" returns nil (no tracing).
func newTracer(path, replica string) (*tracer, error) {
	if path == "" {
		return nil, nil
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("--trace-file: %w", err)
	}
	return &tracer{replica: replica, f: f, enc: json.NewEncoder(f), starts: map[string]int64{}}, nil
}

// Close closes the trace file.
func (t *tracer) Close() error {
	if t == nil {
		return nil
	}
	return t.f.Close()
}

func (t *tracer) write(r traceRecord) {
	r.Replica = t.replica
	// Each record is one write(2) on an O_APPEND file: a replica killed
	// mid-record leaves no torn line for the next records.
	_ = t.enc.Encode(r)
}

func (t *tracer) started(key string) {
	now := time.Now().UnixNano()
	t.mu.Lock()
	defer t.mu.Unlock()
	t.starts[key] = now
	t.write(traceRecord{Kind: "start", Key: key, Start: now})
}

// observe is the controller's ObserveFunc.
func (t *tracer) observe(req runtimecontroller.Request, outcome controller.Outcome, err error) {
	sabotageReconcileEnd()
	if t == nil {
		return
	}
	now := time.Now().UnixNano()
	key := req.Namespace + "/" + req.Name
	rec := traceRecord{Kind: "end", Key: key, End: now, Outcome: string(outcome)}
	if err != nil {
		rec.Error = err.Error()
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	rec.Start = t.starts[key]
	delete(t.starts, key)
	t.write(rec)
}

// stale records a stale read (see readChecker).
func (t *tracer) stale(key, what string) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.write(traceRecord{Kind: "stale", Key: key, At: time.Now().UnixNano(), Error: what})
}

// wrap makes r's Foo lookups mark reconcile starts.
func (t *tracer) wrap(r *controller.Reconciler) {
	if t != nil {
		r.Foos = tracingFooLister{FooLister: r.Foos, t: t}
	}
}

// watchEvents records the event latency of Foos the load generator wrote.
func (t *tracer) watchEvents(inf cache.SharedIndexInformer[*samplesv1alpha1.Foo]) error {
	if t == nil {
		return nil
	}
	record := func(op string, foo *samplesv1alpha1.Foo) {
		at, err := time.Parse(time.RFC3339Nano, foo.Annotations[WrittenAtAnnotation])
		if err != nil {
			return
		}
		now := time.Now()
		t.mu.Lock()
		defer t.mu.Unlock()
		t.write(traceRecord{Kind: "event", Op: op, Key: foo.Namespace + "/" + foo.Name, At: now.UnixNano(), ResourceVersion: foo.ResourceVersion,
			LatencyNanos: now.Sub(at).Nanoseconds()})
	}
	_, err := inf.AddEventHandler(cache.ResourceEventHandlerDetailedFuncs[*samplesv1alpha1.Foo]{
		AddFunc: func(foo *samplesv1alpha1.Foo, initial bool) {
			if !initial {
				record("add", foo)
			}
		},
		UpdateFunc: func(old, foo *samplesv1alpha1.Foo) {
			if old.Annotations[WrittenAtAnnotation] != foo.Annotations[WrittenAtAnnotation] {
				record("update", foo)
			}
		},
	})
	return err
}

type tracingFooLister struct {
	sampleslisters.FooLister
	t *tracer
}

func (l tracingFooLister) Foos(namespace string) sampleslisters.FooNamespaceLister {
	return tracingFooNamespaceLister{FooNamespaceLister: l.FooLister.Foos(namespace), t: l.t, namespace: namespace}
}

type tracingFooNamespaceLister struct {
	sampleslisters.FooNamespaceLister
	t         *tracer
	namespace string
}

func (l tracingFooNamespaceLister) Get(name string) (*samplesv1alpha1.Foo, error) {
	l.t.started(l.namespace + "/" + name)
	return l.FooNamespaceLister.Get(name)
}

// cacheDump is what /debug/cache serves: per informer, every cached key
// with its resourceVersion, and for a sharded replica the ranges its caches
// are scoped to.
type cacheDump struct {
	ShardField string                       `json:"shardField,omitempty"`
	ShardScope string                       `json:"shardScope,omitempty"`
	Informers  map[string]map[string]string `json:"informers"`
}

// runtimeStats is what /debug/runtime serves.
type runtimeStats struct {
	Goroutines int `json:"goroutines"`
	// HeapAlloc is the live heap in bytes right after a forced GC.
	HeapAlloc uint64 `json:"heapAlloc"`
}

// addDebugHandlers serves /debug/cache (the Foo and ConfigMap caches),
// /debug/runtime (goroutines, heap after GC), /debug/slow (see slowdown)
// and the Go runtime's profiles under /debug/pprof/ (goroutine and heap
// dumps that say what a leak check found growing) on mux. ring is nil
// unless the replica is sharded.
func addDebugHandlers(mux *http.ServeMux, inf controller.Informers, ring *sharding.Ring, slow *slowdown) {
	mux.HandleFunc("/debug/slow", slow.serveHTTP)
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/cache", func(w http.ResponseWriter, _ *http.Request) {
		d := cacheDump{Informers: map[string]map[string]string{
			"foos":       keysAndVersions(inf.Samples.Samples().V1alpha1().Foos().Informer().GetStore().List()),
			"configmaps": keysAndVersions(inf.Kube.Core().V1().ConfigMaps().Informer().GetStore().List()),
		}}
		if ring != nil {
			d.ShardField = string(ring.Field())
			d.ShardScope = sharding.FormatRanges(ring.Cache().Ranges())
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(d)
	})
	mux.HandleFunc("/debug/runtime", func(w http.ResponseWriter, _ *http.Request) {
		goruntime.GC()
		var ms goruntime.MemStats
		goruntime.ReadMemStats(&ms)
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(runtimeStats{Goroutines: goruntime.NumGoroutine(), HeapAlloc: ms.HeapAlloc})
	})
}

type metaObject interface {
	GetNamespace() string
	GetName() string
	GetResourceVersion() string
}

func keysAndVersions[T metaObject](objs []T) map[string]string {
	m := make(map[string]string, len(objs))
	for _, o := range objs {
		m[o.GetNamespace()+"/"+o.GetName()] = o.GetResourceVersion()
	}
	return m
}

var (
	_ metaObject = (*samplesv1alpha1.Foo)(nil)
	_ metaObject = (*corev1.ConfigMap)(nil)
)

// shardRing returns the replica's ring, nil when sharding is off.
func (s *sharded) shardRing() *sharding.Ring {
	if s == nil {
		return nil
	}
	return s.ring
}
