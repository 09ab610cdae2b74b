package scenario

import (
	"context"
	"fmt"
	"runtime"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/typedinformer/typedinformer/bench/internal/fixture"
	"github.com/typedinformer/typedinformer/runtime/cache"
	"github.com/typedinformer/typedinformer/runtime/sharding"
)

// ShardResult is one replica's informer of a ring of Shards replicas over
// the same N Pods.
type ShardResult struct {
	N      int `json:"n"`
	Shards int `json:"shards"`
	// Held is how many Pods the replica's store holds after the sync.
	Held int `json:"held"`
	// EmptyHeap is the live heap before the list was built; DroppedHeap the
	// live heap after the sync, once the source dropped the served list,
	// with the informer running: what the replica keeps (its objects and
	// its bookkeeping) on top of EmptyHeap.
	EmptyHeap   uint64 `json:"emptyHeap"`
	DroppedHeap uint64 `json:"droppedHeap"`
}

// Retained is what the replica's informer keeps: DroppedHeap minus the
// empty process.
func (r ShardResult) Retained() float64 { return float64(r.DroppedHeap) - float64(r.EmptyHeap) }

// Shard measures the memory one replica of a ring of shards members keeps
// for n Pods: its informer is sharded by uid over the ranges
// sharding.Assign gives "replica-0" (DefaultVNodes). The source ignores
// the shard selector, like a server without the ShardedListAndWatch gate,
// so the informer filters on the client: the served list is the same for
// every ring size and only what the replica retains differs. The method is
// the sync rows' bookkeeping one (warm heap, served list dropped, two GCs),
// with managedFields sharing off so that the figures compare with that row;
// the result counts the objects too, since a replica's memory is what it
// holds.
func Shard(n, shards int) (ShardResult, error) {
	res := ShardResult{N: n, Shards: shards}
	if shards < 1 {
		return res, fmt.Errorf("shard: %d shards", shards)
	}
	members := make([]string, shards)
	for i := range members {
		members[i] = "replica-" + strconv.Itoa(i)
	}
	assigned, err := sharding.Assign(members, sharding.DefaultVNodes)
	if err != nil {
		return res, err
	}
	scope, err := sharding.NewScope(sharding.FieldUID, assigned["replica-0"])
	if err != nil {
		return res, err
	}

	res.EmptyHeap = liveHeap()
	list := fixture.PodList(n, "1")
	src := fixture.NewSource(list)
	list = nil //nolint:ineffassign // says that from here on only the source holds it
	WarmHeap(uint64(n) * 4096)

	inf := cache.NewSharedIndexInformerWithOptions[*corev1.Pod](src, cache.SharedIndexInformerOptions[*corev1.Pod]{
		Reflector:  cache.ReflectorOptions{DisableManagedFieldsSharing: true},
		ShardScope: scope,
	})
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerDetailedFuncs[*corev1.Pod]{}); err != nil {
		return res, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); inf.Run(ctx) }()
	defer func() { cancel(); <-done }()
	deadline := time.Now().Add(10 * time.Minute)
	for !inf.HasSynced() {
		if time.Now().After(deadline) {
			return res, fmt.Errorf("shard: not synced after 10 minutes: %v", inf.LastError()) //nolint:errorlint // LastError may be nil
		}
		time.Sleep(100 * time.Microsecond)
	}
	src.DropList()
	res.Held = len(inf.GetStore().ListKeys())
	res.DroppedHeap = liveHeap()
	runtime.KeepAlive(inf)
	return res, nil
}
