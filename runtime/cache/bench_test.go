package cache

import (
	"context"
	"fmt"
	"runtime"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/typedinformer/typedinformer/internal/testutil"
)

// benchPod is a realistic Pod: labels, an owner reference, two containers
// with env, resources and probes, and a status; about 2 KB as JSON.
func benchPod(i int, rv string) corev1.Pod {
	ns := fmt.Sprintf("ns-%d", i%100)
	name := fmt.Sprintf("app-%d-7d9c8b6f5-%05d", i%500, i)
	ctrl := true
	container := func(n string) corev1.Container {
		return corev1.Container{
			Name:  n,
			Image: "registry.example.com/team/" + n + ":v1.2.3",
			Args:  []string{"--port=8080", "--log-level=info", "--metrics-bind-address=:9090"},
			Env: []corev1.EnvVar{
				{Name: "POD_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}},
				{Name: "MODE", Value: "production"},
			},
			Resources: corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("128Mi")},
				Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("256Mi")},
			},
			Ports:          []corev1.ContainerPort{{Name: "http", ContainerPort: 8080}},
			ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/readyz"}}},
		}
	}
	return corev1.Pod{
		TypeMeta: metav1.TypeMeta{Kind: "Pod", APIVersion: "v1"},
		ObjectMeta: metav1.ObjectMeta{
			Namespace: ns, Name: name, ResourceVersion: rv,
			UID:    types.UID(fmt.Sprintf("8e6f1c2a-0000-4000-8000-%012d", i)),
			Labels: map[string]string{"app": fmt.Sprintf("app-%d", i%500), "tier": "backend", "pod-template-hash": "7d9c8b6f5"},
			Annotations: map[string]string{
				"kubectl.kubernetes.io/restartedAt": "2026-11-01T10:00:00Z",
			},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: fmt.Sprintf("app-%d-7d9c8b6f5", i%500), UID: "1b2c3d4e", Controller: &ctrl}},
		},
		Spec: corev1.PodSpec{
			NodeName:           fmt.Sprintf("node-%d", i%50),
			ServiceAccountName: "default",
			Containers:         []corev1.Container{container("main"), container("sidecar")},
		},
		Status: corev1.PodStatus{
			Phase: corev1.PodRunning, PodIP: "10.0.0.1", HostIP: "192.0.2.1",
			Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}},
		},
	}
}

func benchList(n int) *corev1.PodList {
	l := &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "1"}, Items: make([]corev1.Pod, n)}
	for i := range l.Items {
		l.Items[i] = benchPod(i, "1")
	}
	return l
}

type countingHandler struct{ n atomic.Int64 }

func (h *countingHandler) OnAdd(*corev1.Pod, bool)    { h.n.Add(1) }
func (h *countingHandler) OnUpdate(_, _ *corev1.Pod)  { h.n.Add(1) }
func (h *countingHandler) OnDelete(*corev1.Pod, bool) { h.n.Add(1) }
func (h *countingHandler) waitFor(n int64, done <-chan struct{}) {
	for h.n.Load() < n {
		select {
		case <-done:
			return
		default:
		}
		runtimeGosched()
	}
}

// BenchmarkInitialSync measures list-to-HasSynced for 100k Pod-sized objects
// with one no-op handler.
func BenchmarkInitialSync(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			list := benchList(n)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				lw := &testutil.StaticLW{Items: list, Events: watch.NewFakeWithChanSize(1024, false)}
				inf := NewSharedIndexInformer[*corev1.Pod](lw, 0, nil)
				h := &countingHandler{}
				inf.AddEventHandler(h)
				ctx, cancel := context.WithCancel(context.Background())
				done := make(chan struct{})
				go func() { inf.Run(ctx); close(done) }()
				for !inf.HasSynced() {
					runtimeGosched()
				}
				h.waitFor(int64(n), done)
				b.StopTimer()
				cancel()
				<-done
				b.StartTimer()
			}
			b.ReportMetric(float64(n), "objects")
		})
	}
}

// BenchmarkUpdateThroughput pushes b.N watch updates over 10k keys through an
// informer with 1 and 4 handlers; ns/op is per event.
func BenchmarkUpdateThroughput(b *testing.B) {
	for _, handlers := range []int{1, 4} {
		b.Run(fmt.Sprintf("handlers=%d", handlers), func(b *testing.B) {
			benchUpdates(b, 10_000, handlers, SharedIndexInformerOptions[*corev1.Pod]{})
		})
	}
}

// benchUpdates syncs an informer built with opts over keys Pods, then times
// b.N watch updates through it to handlers handlers; ns/op is per event.
func benchUpdates(b *testing.B, keys, handlers int, opts SharedIndexInformerOptions[*corev1.Pod]) {
	list := benchList(keys)
	updates := testutil.PodGenerations(list)
	w := watch.NewFakeWithChanSize(1024, false)
	lw := &testutil.StaticLW{Items: list, Events: w}
	inf := NewSharedIndexInformerWithOptions[*corev1.Pod](lw, opts)
	hs := make([]*countingHandler, handlers)
	for i := range hs {
		hs[i] = &countingHandler{}
		inf.AddEventHandler(hs[i])
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	go func() { inf.Run(ctx); close(done) }()
	for !inf.HasSynced() {
		runtimeGosched()
	}
	for _, h := range hs {
		h.waitFor(int64(keys), done)
	}
	testutil.TimeUpdates(b, w, updates, func(n int) {
		for _, h := range hs {
			h.waitFor(int64(keys+n), done)
		}
	})
	cancel()
	<-done
}

// BenchmarkByIndex looks up one namespace (1% of 100k objects) and one value
// of a custom index.
func BenchmarkByIndex(b *testing.B) {
	s := NewIndexer[*corev1.Pod](Indexers[*corev1.Pod]{"node": byNodeName})
	list := benchList(100_000)
	for i := range list.Items {
		s.Add(&list.Items[i])
	}
	b.Run("namespace", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if got, _ := s.ByIndex(NamespaceIndex, "ns-7"); len(got) != 1000 {
				b.Fatalf("got %d", len(got))
			}
		}
	})
	b.Run("custom", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if got, _ := s.ByIndex("node", "node-7"); len(got) != 2000 {
				b.Fatalf("got %d", len(got))
			}
		}
	})
}

// benchListWithManagedFields is benchList with the two managedFields entries
// an API server keeps on a running Pod, each with its own FieldsV1 bytes as
// decoding would give (the informer shares equal documents by default).
func benchListWithManagedFields(n int) *corev1.PodList {
	l := benchList(n)
	for i := range l.Items {
		at := l.Items[i].CreationTimestamp
		l.Items[i].ManagedFields = []metav1.ManagedFieldsEntry{
			{Manager: "kube-controller-manager", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1", Time: &at,
				FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:metadata":{"f:labels":{".":{},"f:app":{}}},"f:spec":{"f:containers":{}}}`)}},
			{Manager: "kubelet", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1", Time: &at, Subresource: "status",
				FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:status":{"f:conditions":{},"f:phase":{},"f:podIP":{}}}`)}},
		}
	}
	return l
}

// podCopyBytes is what copying one list item out of its list allocates: a
// corev1.Pod rounded up to its allocation size class.
func podCopyBytes() float64 {
	const n = 1000
	keep := make([]*corev1.Pod, n)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for i := range keep {
		keep[i] = new(corev1.Pod)
	}
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(keep)
	return float64(after.TotalAlloc-before.TotalAlloc) / n
}

// BenchmarkInitialSyncPerObject is one initial sync of 10k Pods (one no-op
// handler, list then watch) reported per object: ns/object, B/object and
// allocs/object for the whole sync, and extra-B/object, the bytes beyond
// the one copy of each list item the store must make (see extractList).
// The list is built once and stays live; each op builds a fresh informer.
func BenchmarkInitialSyncPerObject(b *testing.B) {
	const n = 10_000
	list := benchListWithManagedFields(n)
	copyBytes := podCopyBytes()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	startAlloc, startMallocs := ms.TotalAlloc, ms.Mallocs
	var cpu time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		runtime.GC()
		b.StartTimer()
		cpuStart := processCPU()
		lw := &testutil.StaticLW{Items: list, Events: watch.NewFakeWithChanSize(1, false)}
		inf := NewSharedIndexInformer[*corev1.Pod](lw, 0, nil)
		h := &signallingHandler{want: n, all: make(chan struct{})}
		if _, err := inf.AddEventHandler(h); err != nil {
			b.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { inf.Run(ctx); close(done) }()
		select {
		case <-h.all:
		case <-done:
			b.Fatal("informer stopped before its handler saw every object")
		}
		for !inf.HasSynced() {
			runtimeGosched()
		}
		b.StopTimer()
		cpu += processCPU() - cpuStart
		cancel()
		<-done
		b.StartTimer()
	}
	b.StopTimer()
	runtime.ReadMemStats(&ms)
	perObj := float64(b.N) * n
	bytes := float64(ms.TotalAlloc-startAlloc) / perObj
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/perObj, "ns/object")
	b.ReportMetric(float64(cpu.Nanoseconds())/perObj, "cpu-ns/object")
	b.ReportMetric(bytes, "B/object")
	b.ReportMetric(bytes-copyBytes, "extra-B/object")
	b.ReportMetric(float64(ms.Mallocs-startMallocs)/perObj, "allocs/object")
}

// signallingHandler closes all once it has been handed want adds; it runs on
// the listener's goroutine only.
type signallingHandler struct {
	n, want int
	all     chan struct{}
}

func (h *signallingHandler) OnAdd(*corev1.Pod, bool) {
	if h.n++; h.n == h.want {
		close(h.all)
	}
}
func (h *signallingHandler) OnUpdate(_, _ *corev1.Pod)  {}
func (h *signallingHandler) OnDelete(*corev1.Pod, bool) {}

// processCPU returns the CPU time (user and system) the process has used:
// less disturbed than wall time by other processes on a shared machine.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
