package main

import (
	"context"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubefake "k8s.io/client-go/kubernetes/fake"

	"github.com/typedinformer/typedinformer/examples/crd/apis/samples/v1alpha1"
	"github.com/typedinformer/typedinformer/examples/crd/pkg/controller"
	samplesfake "github.com/typedinformer/typedinformer/examples/crd/pkg/generated/clientset/versioned/fake"
	"github.com/typedinformer/typedinformer/runtime/cache"
	runtimecontroller "github.com/typedinformer/typedinformer/runtime/controller"
	"github.com/typedinformer/typedinformer/runtime/sharding"
)

func TestShardFlagsSetup(t *testing.T) {
	kube := kubefake.NewClientset()
	base := shardFlags{identity: "pod-0", leaseNamespace: "default", field: "namespace",
		leaseDuration: sharding.DefaultLeaseDuration, renewPeriod: sharding.DefaultRenewPeriod}

	off := base
	sh, err := off.setup(kube)
	if err != nil || sh != nil {
		t.Fatalf("without --shards or --shard-ring: %v, %v; want no sharding", sh, err)
	}
	if opts := sh.options(runtimecontroller.Options{}, controller.Informers{}); opts.Sharding != nil {
		t.Fatal("sharded mode set without --shards")
	}

	on := base
	on.ring = "foos"
	sh, err = on.setup(kube)
	if err != nil {
		t.Fatal(err)
	}
	if sh.ring.LeaseName() != "foos-pod-0" || sh.ring.Field() != sharding.FieldNamespace {
		t.Fatalf("ring Lease %q field %q", sh.ring.LeaseName(), sh.ring.Field())
	}
	samples := samplesfake.NewSimpleClientset(&v1alpha1.Foo{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web"}})
	inf, err := sh.informers(kube, samples, 0)
	if err != nil {
		t.Fatal(err)
	}
	if opts := sh.options(runtimecontroller.Options{}, inf); opts.Sharding == nil {
		t.Fatal("--shard-ring did not turn on the sharded mode")
	}
	// The ring has not run, so the replica's scope is empty: its Foo
	// informer syncs holding nothing, and says it is sharded.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	inf.Samples.Start(ctx)
	defer inf.Samples.Shutdown()
	if _, err := inf.Samples.WaitForCacheSync(ctx); err != nil {
		t.Fatal(err)
	}
	fooInformer := inf.Samples.Samples().V1alpha1().Foos().Informer()
	if st, ok := fooInformer.(cache.ShardedInformer).ShardStatus(); !ok || len(st.Ranges) != 0 {
		t.Fatalf("Foo informer ShardStatus = %+v, %t; want a sharded informer over no ranges", st, ok)
	}
	if n := len(fooInformer.GetStore().List()); n != 0 {
		t.Fatalf("Foo informer of a replica owning nothing holds %d Foos", n)
	}

	for name, f := range map[string]shardFlags{
		"bad field":       func() shardFlags { f := base; f.shards, f.field = true, "name"; return f }(),
		"no identity":     func() shardFlags { f := base; f.shards, f.identity = true, ""; return f }(),
		"bad durations":   func() shardFlags { f := base; f.shards, f.renewPeriod = true, time.Minute; return f }(),
		"bad lease names": func() shardFlags { f := base; f.ring = "Foo Ring"; return f }(),
	} {
		if _, err := f.setup(kube); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestShardsAndLeaderElectionAreExclusive(t *testing.T) {
	err := runCluster(context.Background(), "no-such-kubeconfig", 1, 0, "", "", &leaderElection{enabled: true}, &shardFlags{shards: true}, &soakFlags{})
	if err == nil || !strings.Contains(err.Error(), "--leader-elect and --shards") {
		t.Fatalf("runCluster with both modes: %v, want the exclusivity error", err)
	}
}
