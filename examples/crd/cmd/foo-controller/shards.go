package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"

	"github.com/typedinformer/typedinformer/examples/crd/apis/samples/v1alpha1"
	"github.com/typedinformer/typedinformer/examples/crd/pkg/controller"
	"github.com/typedinformer/typedinformer/examples/crd/pkg/generated/clientset/versioned"
	samplesinformers "github.com/typedinformer/typedinformer/examples/crd/pkg/generated/informers/externalversions"
	kubeinformers "github.com/typedinformer/typedinformer/kube/informers"
	"github.com/typedinformer/typedinformer/runtime/cache"
	runtimecontroller "github.com/typedinformer/typedinformer/runtime/controller"
	"github.com/typedinformer/typedinformer/runtime/informers"
	"github.com/typedinformer/typedinformer/runtime/sharding"
)

// shardFlags are the flags of the sharded mode: several replicas split the
// Foos between them through a ring of Leases (docs/sharding.md), each
// reconciling only the Foos whose hash lies in the ranges it holds.
type shardFlags struct {
	shards         bool
	ring           string
	field          string
	identity       string
	leaseNamespace string
	leaseDuration  time.Duration
	renewPeriod    time.Duration
}

// addShardFlags registers the sharding flags on the command line.
func addShardFlags() *shardFlags {
	f := &shardFlags{}
	host, _ := os.Hostname()
	ns := os.Getenv("POD_NAMESPACE")
	if ns == "" {
		ns = "default"
	}
	flag.BoolVar(&f.shards, "shards", false, "with --kubeconfig: run as one replica of a sharded controller (see --shard-ring)")
	flag.StringVar(&f.ring, "shard-ring", "", "name of the ring of replicas (its Leases' label); implies --shards (default foo-controller)")
	flag.StringVar(&f.field, "shard-field", "namespace", "what places a Foo on the ring: namespace (a Foo's ConfigMap is cached by the same replica) or uid (even spread)")
	flag.StringVar(&f.identity, "shard-identity", host, "this replica's identity in the ring, unique (default the host name)")
	flag.StringVar(&f.leaseNamespace, "shard-lease-namespace", ns, "namespace of the ring's Leases (default $POD_NAMESPACE or default)")
	flag.DurationVar(&f.leaseDuration, "shard-lease-duration", sharding.DefaultLeaseDuration, "how long a replica's Lease outlives its last renewal (whole seconds)")
	flag.DurationVar(&f.renewPeriod, "shard-renew-period", sharding.DefaultRenewPeriod, "how often a replica renews its Lease and re-reads the ring")
	return f
}

// enabled reports whether sharding was asked for.
func (f *shardFlags) enabled() bool { return f.shards || f.ring != "" }

// sharded is the sharded mode, set up: the ring, and what it changes in
// the informers and the controller's options.
type sharded struct {
	ring *sharding.Ring
}

// setup builds the ring, or returns nil when sharding is off.
func (f *shardFlags) setup(kube kubernetes.Interface) (*sharded, error) {
	if !f.enabled() {
		return nil, nil
	}
	ring := f.ring
	if ring == "" {
		ring = "foo-controller"
	}
	var field sharding.Field
	switch f.field {
	case "namespace":
		field = sharding.FieldNamespace
	case "uid":
		field = sharding.FieldUID
	default:
		return nil, fmt.Errorf("--shard-field %q: want namespace or uid", f.field)
	}
	if f.identity == "" {
		return nil, fmt.Errorf("--shard-identity must be set (the host name is unknown)")
	}
	r, err := sharding.NewRing(sharding.RingConfig{
		Name: ring, Identity: f.identity, Field: field,
		Leases:        kube.CoordinationV1().Leases(f.leaseNamespace),
		LeaseDuration: f.leaseDuration, RenewPeriod: f.renewPeriod,
	})
	if err != nil {
		return nil, err
	}
	return &sharded{ring: r}, nil
}

// informers builds the factories. The Foo informer caches only the ring's
// scope (the ranges held or about to be acquired), on either field. With
// namespace sharding the ConfigMaps are scoped too (a Foo's ConfigMap lives
// in its namespace); with uid sharding they cannot be (a ConfigMap's uid is
// not its Foo's). FooClasses and MaintenanceWindows are cluster-scoped and
// every replica needs all of them (hashing would put them all on the
// replica owning namespace ""), so the rest of the samples factory stays
// whole.
func (s *sharded) informers(kube kubernetes.Interface, samples versioned.Interface, resync time.Duration, opts ...informers.Option) (controller.Informers, error) {
	if s == nil {
		return controller.NewInformers(kube, samples, resync, opts...), nil
	}
	kubeOpts := opts
	if s.ring.Field() == sharding.FieldNamespace {
		kubeOpts = append(append([]informers.Option(nil), opts...), informers.WithShardScope(s.ring.Cache()))
	}
	inf := controller.Informers{
		Samples: samplesinformers.NewSharedInformerFactoryWithOptions(samples, resync, opts...),
		Kube:    kubeinformers.NewSharedInformerFactoryWithOptions(kube, resync, kubeOpts...),
	}
	foos, ok := inf.Samples.Samples().V1alpha1().Foos().Informer().(cache.ShardedInformer)
	if !ok {
		return inf, fmt.Errorf("the Foo informer (%T) cannot be sharded", inf.Samples.Samples().V1alpha1().Foos().Informer())
	}
	if err := foos.SetShardScope(s.ring.Cache()); err != nil {
		return inf, fmt.Errorf("sharding the Foo informer: %w", err)
	}
	return inf, nil
}

// options turns on the controller's sharded mode over the Foo informer.
func (s *sharded) options(opts runtimecontroller.Options, inf controller.Informers) runtimecontroller.Options {
	if s != nil {
		opts.Sharding = runtimecontroller.ShardingFor[*v1alpha1.Foo](s.ring, inf.Samples.Samples().V1alpha1().Foos().Informer())
	}
	return opts
}

// run keeps the ring going until ctx ends; the ring then drains the
// controller and deletes the Lease so that the other replicas take over
// at once. The returned function waits for that.
func (s *sharded) run(ctx context.Context) (wait func()) {
	if s == nil {
		return func() {}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := s.ring.Run(ctx); err != nil {
			klog.FromContext(ctx).Error(err, "Sharding ring")
		}
	}()
	return func() { <-done }
}
