package main

import (
	"context"
	"strconv"

	"github.com/typedinformer/typedinformer/bench/internal/scenario"
)

// runSelector measures row 16: a running informer's label selector
// changed over 10k cached Pods (scenario.Selector) against tearing the
// informer down and running a new one with the new selector.
func (s *suite) runSelector(ctx context.Context) {
	n, runs := 10_000, 5
	if s.cfg.Name == "smoke" {
		n, runs = 1_000, 1
	}
	var change, rebuild, changeDec, rebuildDec series
	for run := 0; run < runs; run++ {
		res, err := runScenario[scenario.SelectorResult](ctx, "selector", "-side", string(scenario.Ours), "-n", strconv.Itoa(n))
		if err != nil {
			s.fail(err)
			continue
		}
		r := res.Result
		change.add(r.ChangeSeconds)
		rebuild.add(r.RebuildSeconds)
		changeDec.add(float64(r.ChangeDecoded))
		rebuildDec.add(float64(r.RebuildDecoded))
		s.logf("selector n=%d run %d/%d: change %.1f ms (%d objects served), rebuild %.1f ms (%d served)", n, run+1, runs, r.ChangeSeconds*1e3, r.ChangeDecoded, r.RebuildSeconds*1e3, r.RebuildDecoded)
	}
	bench := "label selector change on " + kilo(n) + " cached Pods (half leave, half enter) vs tearing the informer down and building a new one"
	s.rows = append(s.rows,
		compareRow("16", bench, "time to the new selection synced (handler told every exit and add); anchor: rebuild (info)", change, rebuild, fmtMs, nil),
		compareRow("16", bench, "objects served by the source (decoded by a client); anchor: rebuild (info)", changeDec, rebuildDec, fmtCount, nil),
	)
	s.notes = append(s.notes, "**Row 16 (selector change).** One informer of the runtime over an in-memory source serving 2N Pods labelled tier=t0..t3 and filtering lists by label selector. Ours: `SetSelectors` from `tier in (t0,t1)` to `tier in (t1,t2)` on the running, synced informer, timed until its handler was told the N/2 exits and N/2 adds (the store then holds the new selection; it never was empty). Anchor: stopping that informer and running a new one with the new selector until its handler saw all N adds (its store is empty meanwhile). Both relist the new selection once, so the objects served are the same; the change keeps the cache and the handlers' state, and tells handlers only the difference. Ours only: client-go has no selector change. No target: the change pays for comparing the new list with the cache (and telling handlers only the difference) where a rebuild starts empty; what it buys is a cache that is never empty and handlers that keep their state.")
}
