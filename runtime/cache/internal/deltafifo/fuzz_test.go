package deltafifo

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/typedinformer/typedinformer/runtime/internal/keys"
)

// FuzzDeltaFIFOInvariants drives a Queue and the store it feeds with a
// byte-driven sequence of Add/Update/Delete/Replace/Resync/Pop. Invariants:
// every delta pops in the order it was queued (a Replace's tombstones before
// its list, in list order; a Delete is queued whether or not its key is
// known); a Replace that queued a tombstone pops as one batch; and after
// draining, the store equals the model of the source's state.
func FuzzDeltaFIFOInvariants(f *testing.F) {
	f.Add([]byte{0, 1, 1, 1, 2, 1, 5, 0, 3, 2, 4, 0, 5, 0})
	f.Add([]byte{3, 5, 2, 1, 2, 1, 3, 0, 5, 5, 4, 4})
	f.Add([]byte{3, 0, 0, 1, 0, 2, 0, 3, 5, 2, 2, 1, 3, 0, 5, 0, 2, 4, 5, 1})
	f.Fuzz(func(t *testing.T, ops []byte) {
		store := newKnownStore()
		fifo := New[*corev1.Pod](store)
		source := map[string]*corev1.Pod{} // the server's state
		rv := 0
		// expect holds the deltas queued and not yet popped, in order: a
		// watch-like or listed delta exactly, a tombstone or Sync by its
		// type. atomic marks the deltas of a Replace that queued a
		// tombstone, which no batch may split, first and last its ends.
		type want struct {
			delta               string
			atomic, first, last bool
		}
		var expect []want
		apply := func(batch []Delta[*corev1.Pod], _ bool) error {
			for i, d := range batch {
				got := d.Key() + "=" + deltaString(d)
				switch {
				case d.FinalStateUnknown:
					got = "tombstone"
				case d.Type == Sync:
					got = "Sync"
				}
				if len(expect) == 0 || expect[0].delta != got {
					t.Fatalf("popped %s, want the oldest queued %v", got, expect)
				}
				if expect[0].atomic && ((i == 0 && !expect[0].first) || (i == len(batch)-1 && !expect[0].last)) {
					t.Fatalf("batch %v splits a Replace with tombstones", batch)
				}
				expect = expect[1:]
				if d.Type == Deleted {
					store.Delete(d.Object)
				} else {
					store.Update(d.Object)
				}
			}
			return nil
		}
		for i := 0; i+1 < len(ops); i += 2 {
			op, arg := ops[i]%6, ops[i+1]
			name := fmt.Sprintf("p%d", arg%5)
			rv++
			p := pod("ns", name, fmt.Sprint(rv))
			k := keys.Of(p).String()
			_, exists := source[k]
			switch op {
			case 0:
				if !exists {
					source[k] = p
					fifo.Add(p)
					expect = append(expect, want{delta: k + "=Added:" + p.ResourceVersion})
				}
			case 1:
				if exists {
					source[k] = p
					fifo.Update(p)
					expect = append(expect, want{delta: k + "=Updated:" + p.ResourceVersion})
				}
			case 2:
				// A delete of a key the source lacks is a watch deletion
				// of an object the informer never saw.
				delete(source, k)
				fifo.Delete(p)
				expect = append(expect, want{delta: k + "=Deleted:" + p.ResourceVersion})
			case 3:
				list := make([]*corev1.Pod, 0, len(source))
				for _, q := range source {
					list = append(list, q)
				}
				before := fifo.Len()
				fifo.Replace(list, fmt.Sprint(rv))
				group := make([]want, 0, fifo.Len()-before)
				for range fifo.Len() - before - len(list) {
					group = append(group, want{delta: "tombstone"})
				}
				for _, q := range list {
					group = append(group, want{delta: keys.Of(q).String() + "=Replaced:" + q.ResourceVersion})
				}
				if len(group) > len(list) {
					for i := range group {
						group[i].atomic = true
					}
					group[0].first, group[len(group)-1].last = true, true
				}
				expect = append(expect, group...)
			case 4:
				before := fifo.Len()
				fifo.Resync()
				for range fifo.Len() - before {
					expect = append(expect, want{delta: "Sync"})
				}
			case 5:
				if fifo.Len() > 0 {
					fifo.PopBatch(int(arg%3)+1, apply)
				}
			}
		}
		for fifo.Len() > 0 {
			fifo.PopBatch(4, apply)
		}
		if len(expect) > 0 {
			t.Fatalf("never popped %v", expect)
		}
		if store.Len() != len(source) {
			t.Fatalf("store %v, source has %d", store.ListKeys(), len(source))
		}
		for k, p := range source {
			got, ok, _ := store.GetByKey(k)
			if !ok || got.ResourceVersion != p.ResourceVersion {
				t.Fatalf("key %s: store %v, source rv %s", k, got, p.ResourceVersion)
			}
		}
	})
}
