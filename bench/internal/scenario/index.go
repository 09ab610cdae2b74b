package scenario

import (
	"fmt"
	"time"

	"github.com/typedinformer/typedinformer/bench/internal/fixture"
	"github.com/typedinformer/typedinformer/runtime/cache"
	corev1 "k8s.io/api/core/v1"
	cgcache "k8s.io/client-go/tools/cache"
)

// NodeIndex is the custom index of the indexer scenario: Pods by
// spec.nodeName.
const NodeIndex = "node"

// IndexResult is the cost of one ByIndex lookup on one side.
type IndexResult struct {
	Side  Side   `json:"side"`
	N     int    `json:"n"`
	Index string `json:"index"`
	// Values is how many index values the lookups cycle through, and Hits
	// how many objects each lookup returns.
	Values int `json:"values"`
	// Buffer is set on ours' second measurement of each index: the lookups
	// go through AppendByIndex into one buffer the caller reuses, instead
	// of ByIndex's new slice per call.
	Buffer  bool    `json:"buffer,omitempty"`
	Hits    int     `json:"hits"`
	NsPerOp float64 `json:"nsPerOp"`
	// AllocsPerOp is the heap allocations (runtime.MemStats.Mallocs) over
	// the whole timed batch divided by Lookups, the lookups in that batch:
	// a fraction, not a rounded per-call count.
	AllocsPerOp float64 `json:"allocsPerOp"`
	Lookups     int     `json:"lookups"`
}

// Index fills side's indexer with n Pods and measures ByIndex on the
// namespace index (n/fixture.Namespaces objects per namespace) and on the
// node index (n/fixture.Nodes objects per node), each for at least minDur.
// Consecutive lookups cycle through every namespace (every node), as
// controllers that reconcile across namespaces do: repeating one value would
// measure a result that stays in the CPU caches.
func Index(side Side, n int, minDur time.Duration) ([]IndexResult, error) {
	list := fixture.PodList(n, "1")
	var byIndex func(index, value string) (int, error)
	// byIndexBuf, ours only, is byIndex through AppendByIndex and a buffer
	// the caller keeps.
	var byIndexBuf func(index, value string) (int, error)
	switch side {
	case Ours:
		idx := cache.NewIndexer[*corev1.Pod](cache.Indexers[*corev1.Pod]{
			NodeIndex: func(p *corev1.Pod) ([]string, error) { return []string{p.Spec.NodeName}, nil },
		})
		for i := range list.Items {
			if err := idx.Add(&list.Items[i]); err != nil {
				return nil, fmt.Errorf("ours: add %s: %w", list.Items[i].Name, err)
			}
		}
		byIndex = func(index, value string) (int, error) {
			objs, err := idx.ByIndex(index, value)
			hits := 0
			for _, o := range objs {
				if o != nil {
					hits++
				}
			}
			return hits, err
		}
		var buf []*corev1.Pod
		byIndexBuf = func(index, value string) (int, error) {
			var err error
			buf, err = idx.AppendByIndex(buf[:0], index, value)
			hits := 0
			for _, o := range buf {
				if o != nil {
					hits++
				}
			}
			return hits, err
		}
	case ClientGo:
		idx := cgcache.NewIndexer(cgcache.MetaNamespaceKeyFunc, cgcache.Indexers{
			cgcache.NamespaceIndex: cgcache.MetaNamespaceIndexFunc,
			NodeIndex: func(obj any) ([]string, error) {
				p, ok := obj.(*corev1.Pod)
				if !ok {
					return nil, fmt.Errorf("not a Pod: %T", obj)
				}
				return []string{p.Spec.NodeName}, nil
			},
		})
		for i := range list.Items {
			if err := idx.Add(&list.Items[i]); err != nil {
				return nil, fmt.Errorf("client-go: add %s: %w", list.Items[i].Name, err)
			}
		}
		// A caller of client-go's indexer gets []interface{} and casts
		// each element back; ours visits each typed element likewise.
		byIndex = func(index, value string) (int, error) {
			objs, err := idx.ByIndex(index, value)
			hits := 0
			for _, o := range objs {
				if _, ok := o.(*corev1.Pod); ok {
					hits++
				}
			}
			return hits, err
		}
	default:
		return nil, fmt.Errorf("unknown side %q", side)
	}

	var out []IndexResult
	for _, q := range []struct {
		index  string
		values []string
	}{
		{cache.NamespaceIndex, cycle(fixture.Namespaces, fixture.NamespaceOf)},
		{NodeIndex, cycle(fixture.Nodes, fixture.NodeOf)},
	} {
		for _, buffer := range []bool{false, true} {
			lookup := byIndex
			if buffer {
				if byIndexBuf == nil {
					continue
				}
				lookup = byIndexBuf
			}
			hits := -1
			for _, v := range q.values {
				h, err := lookup(q.index, v)
				if err != nil {
					return nil, fmt.Errorf("%s: ByIndex(%s, %s): %w", side, q.index, v, err)
				}
				if hits >= 0 && h != hits {
					return nil, fmt.Errorf("%s: ByIndex(%s, %s) found %d objects, another value %d", side, q.index, v, h, hits)
				}
				hits = h
			}
			next := 0
			ns, allocs, lookups := measureOp(minDur, func() {
				_, _ = lookup(q.index, q.values[next])
				next++
				if next == len(q.values) {
					next = 0
				}
			})
			out = append(out, IndexResult{Side: side, N: n, Index: q.index, Values: len(q.values), Buffer: buffer, Hits: hits, NsPerOp: ns, AllocsPerOp: allocs, Lookups: lookups})
		}
	}
	return out, nil
}

// cycle returns the n values name(0..n-1), in an order that strides through
// them so that consecutive lookups touch unrelated parts of the index.
func cycle(n int, name func(int) string) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = name(i * 37 % n)
	}
	return out
}

// measureOp runs op in growing batches until one batch lasts at least
// minDur and returns that batch's time and allocations per call, and the
// number of calls in it.
func measureOp(minDur time.Duration, op func()) (nsPerOp, allocsPerOp float64, calls int) {
	op()
	WarmHeap(0)
	for n := 1; ; {
		m0, _ := mallocs()
		start := time.Now()
		for i := 0; i < n; i++ {
			op()
		}
		el := time.Since(start)
		m1, _ := mallocs()
		if el >= minDur || n >= 1<<30 {
			return float64(el.Nanoseconds()) / float64(n), float64(m1-m0) / float64(n), n
		}
		// Aim for 1.2x minDur with the rate seen so far, at most 100x more.
		next := int(float64(n) * 1.2 * float64(minDur) / float64(max(el, time.Microsecond)))
		n = min(max(next, n+1), 100*n)
	}
}
