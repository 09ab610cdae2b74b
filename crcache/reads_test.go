package crcache_test

import (
	"context"
	"fmt"
	"maps"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/typedinformer/typedinformer/clientgo"
	"github.com/typedinformer/typedinformer/crcache"
)

// deepCopies counts countedConfigMap.DeepCopyInto calls (every deep copy,
// DeepCopyObject's included), newObjects its DeepCopyObject calls (deep
// copies into a new object, which a reader must then copy again into what
// it returns).
var deepCopies, newObjects atomic.Int64

// countedConfigMap is a ConfigMap as a Go type of the test's own, whose
// deep copies are counted. It has no protobuf methods, so both caches list
// it as JSON.
type countedConfigMap struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Data              map[string]string `json:"data,omitempty"`
}

func (c *countedConfigMap) DeepCopyInto(out *countedConfigMap) {
	deepCopies.Add(1)
	*out = *c
	c.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	out.Data = maps.Clone(c.Data)
}

func (c *countedConfigMap) DeepCopyObject() runtime.Object {
	newObjects.Add(1)
	out := &countedConfigMap{}
	c.DeepCopyInto(out)
	return out
}

type countedConfigMapList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []countedConfigMap `json:"items"`
}

func (l *countedConfigMapList) DeepCopyObject() runtime.Object {
	out := *l
	out.Items = make([]countedConfigMap, len(l.Items))
	for i := range l.Items {
		l.Items[i].DeepCopyInto(&out.Items[i])
	}
	return &out
}

// countingScheme maps core/v1 ConfigMaps to countedConfigMap.
func countingScheme(t *testing.T) *runtime.Scheme {
	t.Helper()
	s := runtime.NewScheme()
	gv := corev1.SchemeGroupVersion
	s.AddKnownTypeWithName(gv.WithKind("ConfigMap"), &countedConfigMap{})
	s.AddKnownTypeWithName(gv.WithKind("ConfigMapList"), &countedConfigMapList{})
	metav1.AddToGroupVersion(s, gv)
	return s
}

// indexCalls counts how a cache's reads reach its informers' indexers.
type indexCalls struct {
	mu    sync.Mutex
	calls map[string]int // "List", "ListKeys", "ByIndex <index>", ...
}

func (c *indexCalls) add(call string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls[call]++
}

func (c *indexCalls) take() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	got := c.calls
	c.calls = map[string]int{}
	return got
}

// countingInformer is an informer whose indexer counts the calls reads
// make of it.
type countingInformer struct {
	toolscache.SharedIndexInformer
	calls *indexCalls
}

func (i countingInformer) GetIndexer() toolscache.Indexer {
	return countingIndexer{Indexer: i.SharedIndexInformer.GetIndexer(), calls: i.calls}
}

type countingIndexer struct {
	toolscache.Indexer
	calls *indexCalls
}

func (x countingIndexer) List() []any {
	x.calls.add("List")
	return x.Indexer.List()
}

func (x countingIndexer) ListKeys() []string {
	x.calls.add("ListKeys")
	return x.Indexer.ListKeys()
}

func (x countingIndexer) ByIndex(name, value string) ([]any, error) {
	x.calls.add("ByIndex " + name)
	return x.Indexer.ByIndex(name, value)
}

func (x countingIndexer) Index(name string, obj any) ([]any, error) {
	x.calls.add("Index " + name)
	return x.Indexer.Index(name, obj)
}

func (x countingIndexer) GetByKey(key string) (any, bool, error) {
	x.calls.add("GetByKey")
	return x.Indexer.GetByKey(key)
}

type newInformerFunc = func(toolscache.ListerWatcher, runtime.Object, time.Duration, toolscache.Indexers) toolscache.SharedIndexInformer

func counting(newInformer newInformerFunc, calls *indexCalls) newInformerFunc {
	return func(lw toolscache.ListerWatcher, obj runtime.Object, resync time.Duration, idx toolscache.Indexers) toolscache.SharedIndexInformer {
		return countingInformer{SharedIndexInformer: newInformer(lw, obj, resync, idx), calls: calls}
	}
}

// TestReadCosts: a Get or List deep-copies each returned object once and
// nothing else, none with UnsafeDisableDeepCopy (per read or by default);
// a List by namespace or by client.MatchingFields is answered by the
// informer's index, never by listing the whole store. It is run on
// controller-runtime's cache too, which must cost the same; crcache is run
// on its default informer (clientgo.NewSharedIndexInformer, the runtime's
// store and indexes) with an indexer that counts the calls made of it.
func TestReadCosts(t *testing.T) {
	// The test type has no protobuf methods: both caches are told to ask
	// for JSON (controller-runtime asks for protobuf for any core/v1 kind).
	cfg := rest.CopyConfig(adminConfig())
	cfg.ContentType = runtime.ContentTypeJSON
	ctx := t.Context()
	writer, err := client.New(cfg, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	const ns = "read-costs"
	if err := writer.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	for i := range 6 {
		cm := &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("cm-%d", i)},
			Data:       map[string]string{"k": fmt.Sprintf("v%d", i%3)},
		}
		if err := writer.Create(ctx, cm); err != nil {
			t.Fatal(err)
		}
	}
	byK := func(o client.Object) []string { return []string{o.(*countedConfigMap).Data["k"]} }

	type read struct {
		name  string
		items int // objects returned
		copy  bool
		calls map[string]int
	}
	// copies is what a read of n objects must cost in deep copies.
	copies := func(r read, defaultNoCopy bool) int64 {
		if !r.copy || defaultNoCopy {
			return 0
		}
		return int64(r.items)
	}
	reads := []struct {
		read
		run func(c cache.Cache) (int, error)
	}{
		{read{"get", 1, true, map[string]int{"GetByKey": 1}}, func(c cache.Cache) (int, error) {
			return 1, c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "cm-1"}, &countedConfigMap{})
		}},
		{read{"get without deep copy", 1, false, map[string]int{"GetByKey": 1}}, func(c cache.Cache) (int, error) {
			return 1, c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "cm-1"}, &countedConfigMap{}, client.UnsafeDisableDeepCopy)
		}},
		{read{"list namespace", 6, true, map[string]int{"ByIndex namespace": 1}}, func(c cache.Cache) (int, error) {
			l := &countedConfigMapList{}
			err := c.List(ctx, l, client.InNamespace(ns))
			return len(l.Items), err
		}},
		{read{"list namespace without deep copy", 6, false, map[string]int{"ByIndex namespace": 1}}, func(c cache.Cache) (int, error) {
			l := &countedConfigMapList{}
			err := c.List(ctx, l, client.InNamespace(ns), client.UnsafeDisableDeepCopy)
			return len(l.Items), err
		}},
		{read{"list field index", 2, true, map[string]int{"ByIndex field:k": 1}}, func(c cache.Cache) (int, error) {
			l := &countedConfigMapList{}
			err := c.List(ctx, l, client.MatchingFields{"k": "v1"})
			return len(l.Items), err
		}},
		{read{"list field index in namespace", 2, true, map[string]int{"ByIndex field:k": 1}}, func(c cache.Cache) (int, error) {
			l := &countedConfigMapList{}
			err := c.List(ctx, l, client.InNamespace(ns), client.MatchingFields{"k": "v2"})
			return len(l.Items), err
		}},
		{read{"list field index and label", 0, true, map[string]int{"ByIndex field:k": 1}}, func(c cache.Cache) (int, error) {
			l := &countedConfigMapList{}
			err := c.List(ctx, l, client.MatchingFields{"k": "v2"}, client.MatchingLabels{"none": "x"})
			return len(l.Items), err
		}},
		{read{"list field index without deep copy", 2, false, map[string]int{"ByIndex field:k": 1}}, func(c cache.Cache) (int, error) {
			l := &countedConfigMapList{}
			err := c.List(ctx, l, client.MatchingFields{"k": "v0"}, client.UnsafeDisableDeepCopy)
			return len(l.Items), err
		}},
	}
	sides := []struct {
		name        string
		new         cache.NewCacheFunc
		newInformer newInformerFunc
		// intermediate is whether each copy goes through a new object
		// (controller-runtime's reader) or straight into what the read
		// returns (crcache: at most one copy of each object).
		intermediate bool
	}{
		{"controller-runtime", cache.New, toolscache.NewSharedIndexInformer, true},
		{"crcache", crcache.New, clientgo.NewSharedIndexInformer, false},
	}
	for _, side := range sides {
		for _, defaultNoCopy := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/DefaultUnsafeDisableDeepCopy=%v", side.name, defaultNoCopy), func(t *testing.T) {
				calls := &indexCalls{calls: map[string]int{}}
				ctx, cancel := context.WithTimeout(ctx, time.Minute)
				defer cancel()
				c, err := side.new(cfg, cache.Options{
					DefaultWatchErrorHandler: func(_ context.Context, _ *toolscache.Reflector, err error) {
						t.Logf("list or watch: %v", err)
					},
					Scheme:                       countingScheme(t),
					DefaultNamespaces:            map[string]cache.Config{ns: {}},
					DefaultUnsafeDisableDeepCopy: ptr.To(defaultNoCopy),
					NewInformer:                  counting(side.newInformer, calls),
				})
				if err != nil {
					t.Fatal(err)
				}
				if err := c.IndexField(ctx, &countedConfigMap{}, "k", byK); err != nil {
					t.Fatal(err)
				}
				runCtx, stop := context.WithCancel(ctx)
				done := make(chan error, 1)
				go func() { done <- c.Start(runCtx) }()
				defer func() {
					stop()
					if err := <-done; err != nil {
						t.Errorf("Start: %v", err)
					}
				}()
				if !c.WaitForCacheSync(ctx) {
					t.Fatal("not synced")
				}
				calls.take()
				for _, r := range reads {
					before, newBefore := deepCopies.Load(), newObjects.Load()
					n, err := r.run(c)
					copied, created := deepCopies.Load()-before, newObjects.Load()-newBefore
					got := calls.take()
					if err != nil {
						t.Errorf("%s: %v", r.name, err)
						continue
					}
					if n != r.items {
						t.Errorf("%s: %d objects, want %d", r.name, n, r.items)
					}
					if want := copies(r.read, defaultNoCopy); copied != want {
						t.Errorf("%s: %d deep copies of %d objects, want %d", r.name, copied, n, want)
					}
					want := int64(0)
					if side.intermediate {
						want = copies(r.read, defaultNoCopy)
					}
					if created != want {
						t.Errorf("%s: %d deep copies into new objects, want %d", r.name, created, want)
					}
					if !maps.Equal(got, r.calls) {
						t.Errorf("%s: indexer calls %v, want %v", r.name, got, r.calls)
					}
				}
			})
		}
	}
}
