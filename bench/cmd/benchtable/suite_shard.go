package main

import (
	"context"
	"fmt"
	"strconv"

	"github.com/typedinformer/typedinformer/bench/internal/scenario"
)

// shardCounts are the ring sizes of the sharded-informer row; the first is
// the baseline the others are compared with.
var shardCounts = []int{1, 2, 4}

// shardTargets bounds, per ring size, one replica's retained memory as a
// fraction of the unsharded informer's: about 1/N plus slack for the
// assignment's imbalance and the per-informer constant.
var shardTargets = map[int]float64{2: 0.6, 4: 0.35}

// runShard measures row 10: the memory one replica's informer keeps for the
// same Pods when its ring has 1, 2 or 4 members (scenario.Shard: sharded
// by uid, filtered on the client, served list dropped, warm heap). Ours
// only: client-go has no sharded informer, so the anchor column is our own
// 1-shard figure.
func (s *suite) runShard(ctx context.Context) {
	n, runs := 100_000, 3
	if s.cfg.Name == "smoke" {
		n, runs = 1_000, 1
	}
	retained := map[int]*series{}
	held := map[int]*series{}
	for _, c := range shardCounts {
		retained[c], held[c] = &series{}, &series{}
	}
	for run := 0; run < runs; run++ {
		for _, c := range shardCounts {
			res, err := runScenario[scenario.ShardResult](ctx, "shard", "-side", string(scenario.Ours), "-n", strconv.Itoa(n), "-shards", strconv.Itoa(c))
			if err != nil {
				s.fail(err)
				continue
			}
			r := res.Result
			retained[c].add(r.Retained())
			held[c].add(float64(r.Held))
			s.logf("shard n=%d shards=%d run %d/%d: holds %d Pods, retains %.1f MB", n, c, run+1, runs, r.Held, r.Retained()/1e6)
		}
	}
	bench := "sharded informer, one replica, " + kilo(n) + " Pods"
	base := shardCounts[0]
	for _, c := range shardCounts[1:] {
		s.rows = append(s.rows,
			compareRow("10", bench, fmt.Sprintf("memory retained (objects + bookkeeping, list dropped), %d shards; anchor: 1 shard", c), *retained[c], *retained[base], fmtMB, atMost(shardTargets[c])),
			compareRow("10", bench, fmt.Sprintf("Pods held, %d shards; anchor: 1 shard (info)", c), *held[c], *held[base], fmtCount, nil),
		)
	}
	s.notes = append(s.notes, "**Row 10 (sharded informers).** One replica of a ring of 1, 2 or 4 members (`sharding.Assign`, 256 virtual nodes, sharded by uid) caches the same Pods through an informer with `ShardScope`. The source ignores the shard selector, like a server without the `ShardedListAndWatch` gate, so every replica receives all Pods and filters on the client; what differs is what it keeps. Memory is the live heap after the sync with the served list dropped, minus the empty process (the sync rows' method, managedFields sharing off, warm heap), objects included. Ours only: the anchor column is the 1-shard figure. The target is about 1/N: ≤ 0.6x for 2 shards, ≤ 0.35x for 4.")
}
