package e2e

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/typedinformer/typedinformer/runtime/cache"
	"github.com/typedinformer/typedinformer/runtime/sharding"
)

// TestShardedInformer runs one sharded ConfigMap informer against an
// apiserver with the ShardedListAndWatch gate (the server shards: ShardInfo
// echoed) and one against the shared apiserver without it (the informer
// filters on the client), over the same objects: both caches hold exactly
// the owned namespaces' ConfigMaps, before and after the scope moves, and
// follow live creates without taking in foreign ones.
func TestShardedInformer(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	gated := extraAPIServer(t, ctx, "sharded", "--feature-gates=ShardedListAndWatch=true")
	defer cluster.StopExtraAPIServer(gated)

	c, namespaces := adminIn(t, 5)
	for _, ns := range namespaces {
		for i := range 3 {
			cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("cm-%d", i)}}
			if _, err := c.kube.CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	points := func(nss ...string) []sharding.Range {
		var out []sharding.Range
		for _, ns := range nss {
			h := sharding.Hash(ns)
			out = append(out, sharding.Range{First: h, Last: h})
		}
		return out
	}
	// want lists the owned namespaces' ConfigMaps from the server.
	want := func(nss ...string) []string {
		var out []string
		for _, ns := range nss {
			l, err := c.kube.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for _, cm := range l.Items {
				out = append(out, ns+"/"+cm.Name)
			}
		}
		slices.Sort(out)
		return out
	}

	for _, tc := range []struct {
		name       string
		cfg        *rest.Config
		serverSide bool
	}{
		{"gate on", cluster.AdminConfigFor(gated), true},
		{"gate off", cluster.AdminConfig(), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kube, err := kubernetes.NewForConfig(tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			scope, err := sharding.NewScope(sharding.FieldNamespace, points(namespaces[0], namespaces[1]))
			if err != nil {
				t.Fatal(err)
			}
			inf := cache.NewSharedIndexInformerWithOptions[*corev1.ConfigMap](&cache.ListWatch{
				ListFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
					return kube.CoreV1().ConfigMaps("").List(ctx, o)
				},
				WatchFunc: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
					return kube.CoreV1().ConfigMaps("").Watch(ctx, o)
				},
			}, cache.SharedIndexInformerOptions[*corev1.ConfigMap]{Name: "configmaps", ShardScope: scope})
			runCtx, stop := context.WithCancel(ctx)
			done := make(chan struct{})
			go func() { defer close(done); inf.Run(runCtx) }()
			defer func() { stop(); <-done }()
			waitSynced(t, inf)

			keys := func() []string {
				k := inf.GetStore().ListKeys()
				slices.Sort(k)
				return k
			}
			check := func(wantKeys []string, gen uint64) func() error {
				return func() error {
					if got := keys(); !slices.Equal(got, wantKeys) {
						return fmt.Errorf("store %q, want %q", got, wantKeys)
					}
					st, ok := inf.(cache.ShardedInformer).ShardStatus()
					if !ok || st.Generation != gen || !st.Listed || st.ServerSide != tc.serverSide {
						return fmt.Errorf("ShardStatus %+v (ok %t), want generation %d listed, server-side %t", st, ok, gen, tc.serverSide)
					}
					return nil
				}
			}
			eventually(t, time.Minute, "the first shard", check(want(namespaces[0], namespaces[1]), 0))

			if err := scope.Set(points(namespaces[1], namespaces[3])); err != nil {
				t.Fatal(err)
			}
			eventually(t, time.Minute, "the moved shard", check(want(namespaces[1], namespaces[3]), 1))

			// Live events: a foreign ConfigMap first, then an owned one;
			// once the owned one is cached the foreign one was seen and
			// dropped (one watch, in order).
			foreign := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: namespaces[4], Name: "live-" + tc.name[5:]}}
			owned := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: namespaces[3], Name: "live-" + tc.name[5:]}}
			for _, cm := range []*corev1.ConfigMap{foreign, owned} {
				if _, err := c.kube.CoreV1().ConfigMaps(cm.Namespace).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
					t.Fatal(err)
				}
			}
			eventually(t, time.Minute, "the live owned ConfigMap", check(want(namespaces[1], namespaces[3]), 1))
			st, _ := inf.(cache.ShardedInformer).ShardStatus()
			t.Logf("%s: %d objects cached, ShardStatus.ServerSide=%t ClientSide=%q", tc.name, len(keys()), st.ServerSide, st.ClientSide)
		})
	}
}
