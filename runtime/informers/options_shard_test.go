package informers_test

import (
	"slices"
	"sort"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/typedinformer/typedinformer/internal/testutil"
	"github.com/typedinformer/typedinformer/runtime/cache"
	"github.com/typedinformer/typedinformer/runtime/informers"
	"github.com/typedinformer/typedinformer/runtime/sharding"
)

// callLog records handler calls as strings.
type callLog struct {
	mu    sync.Mutex
	calls []string
}

func (c *callLog) add(s string) {
	c.mu.Lock()
	c.calls = append(c.calls, s)
	c.mu.Unlock()
}

func (c *callLog) sorted() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := slices.Clone(c.calls)
	sort.Strings(out)
	return out
}

func (c *callLog) handler() cache.ResourceEventHandler[*corev1.Pod] {
	return cache.ResourceEventHandlerDetailedFuncs[*corev1.Pod]{
		AddFunc: func(p *corev1.Pod, initial bool) {
			if initial {
				c.add("add " + p.Namespace + "/" + p.Name + " initial")
			} else {
				c.add("add " + p.Namespace + "/" + p.Name)
			}
		},
		DeleteFunc: func(p *corev1.Pod, unknown bool) {
			if unknown {
				c.add("delete " + p.Namespace + "/" + p.Name + " unknown")
			} else {
				c.add("delete " + p.Namespace + "/" + p.Name)
			}
		},
	}
}

func storeKeys(inf cache.SharedIndexInformer[*corev1.Pod]) []string {
	keys := inf.GetStore().ListKeys()
	sort.Strings(keys)
	return keys
}

// TestFactoryWithShardScopeOverNamespaces shards a factory that watches
// namespaces a and b by namespace: every namespace's informer caches only
// the scope's ranges, a scope change moves the cache without a restart, and
// a handler wrapped in IgnoreScopeExits is not told of the objects that
// left (through the multi-namespace informer's serializing wrapper), while a
// plain one gets OnDelete(obj, true).
func TestFactoryWithShardScopeOverNamespaces(t *testing.T) {
	pods := newPodSource(newPod("a", "p1"), newPod("a", "p2"), newPod("b", "p3"), newPod("c", "p4"))
	scope, err := sharding.NewScope(sharding.FieldNamespace, testutil.NamespacePoints("a", "c"))
	if err != nil {
		t.Fatal(err)
	}
	f := informers.NewFactory(0, informers.WithNamespaces("a", "b"), informers.WithShardScope(scope))
	ctx := factoryContext(t, f)
	inf := informers.InformerFor(f, true, func(ns string, resync time.Duration) cache.SharedIndexInformer[*corev1.Pod] {
		return cache.NewSharedIndexInformerWithOptions(pods.lw(ns), cache.SharedIndexInformerOptions[*corev1.Pod]{
			Name: "pods(" + ns + ")", Reflector: cache.ReflectorOptions{DisableWatchList: true, InitialBackoff: time.Millisecond, MaxBackoff: time.Millisecond},
		})
	})
	var plain, opted callLog
	reg, err := inf.AddEventHandler(plain.handler())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := inf.AddEventHandler(cache.IgnoreScopeExits(opted.handler())); err != nil {
		t.Fatal(err)
	}
	f.Start(ctx)
	waitFactory(t, f)
	if got := storeKeys(inf); !slices.Equal(got, []string{"a/p1", "a/p2"}) {
		t.Fatalf("store = %q, want a's pods only", got)
	}
	lists := pods.listCalls("a") + pods.listCalls("b")

	if err := scope.Set(testutil.NamespacePoints("b")); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, "the store to hold b's pods", func() bool { return slices.Equal(storeKeys(inf), []string{"b/p3"}) })
	testutil.Eventually(t, "handlers told", func() bool { return len(plain.sorted()) == 5 && len(opted.sorted()) == 3 })
	if !reg.HasSynced() || !inf.HasSynced() {
		t.Error("HasSynced turned false")
	}
	if got, want := plain.sorted(), []string{"add a/p1 initial", "add a/p2 initial", "add b/p3", "delete a/p1 unknown", "delete a/p2 unknown"}; !slices.Equal(got, want) {
		t.Errorf("plain handler: %q, want %q", got, want)
	}
	if got, want := opted.sorted(), []string{"add a/p1 initial", "add a/p2 initial", "add b/p3"}; !slices.Equal(got, want) {
		t.Errorf("opted-out handler: %q, want %q", got, want)
	}
	if got := pods.listCalls("a") + pods.listCalls("b"); got != lists+2 {
		t.Errorf("lists after the change = %d, want %d (one relist per namespace)", got, lists+2)
	}
	st, ok := inf.(cache.ShardedInformer).ShardStatus()
	if !ok || st.Generation != 1 || !st.Listed || st.ServerSide {
		t.Errorf("ShardStatus = %+v, %t", st, ok)
	}
}

// notSharded is an informer that cannot take a shard scope.
type notSharded struct {
	cache.SharedIndexInformer[*corev1.Pod]
}

func TestFactoryWithShardScopeRefusesAnInformerThatCannotShard(t *testing.T) {
	scope, err := sharding.NewScope(sharding.FieldUID, []sharding.Range{sharding.Full()})
	if err != nil {
		t.Fatal(err)
	}
	pods := newPodSource()
	f := informers.NewFactory(0, informers.WithShardScope(scope))
	inf := informers.InformerFor(f, true, func(ns string, resync time.Duration) cache.SharedIndexInformer[*corev1.Pod] {
		return notSharded{pods.newInformer(ns, resync)}
	})
	if err := inf.LastError(); err == nil {
		t.Fatal("an informer without SetShardScope was accepted by a sharded factory")
	}
}
