package cache

import (
	"fmt"
	"sort"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// FuzzIndexerInvariants applies a byte-driven sequence of store operations
// to an Indexer and to a plain map, then checks that the store equals the map
// and that every index holds exactly the keys its function yields.
func FuzzIndexerInvariants(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Add([]byte{0, 0, 0, 3, 3, 3, 5, 5, 2, 2, 9, 9, 1})
	f.Fuzz(func(t *testing.T, ops []byte) {
		s := NewIndexer[*corev1.Pod](Indexers[*corev1.Pod]{"app": byLabelApp})
		model := map[string]*corev1.Pod{}
		for i := 0; i+1 < len(ops); i += 2 {
			op, arg := ops[i]%4, ops[i+1]
			ns := fmt.Sprintf("ns%d", arg%3)
			name := fmt.Sprintf("p%d", arg%7)
			p := pod(ns, name, fmt.Sprint(i), "app", fmt.Sprintf("a%d", arg%2))
			switch op {
			case 0, 1:
				s.Update(p)
				model[keyOf(p)] = p
			case 2:
				s.Delete(p)
				delete(model, keyOf(p))
			case 3:
				var list []*corev1.Pod
				model = map[string]*corev1.Pod{}
				for j := 0; j < int(arg%4); j++ {
					q := pod(ns, fmt.Sprintf("p%d", j), fmt.Sprint(i), "app", fmt.Sprintf("a%d", j%2))
					list = append(list, q)
					model[keyOf(q)] = q
				}
				s.Replace(list, "")
			}
		}
		checkIndexerMatches(t, s, model)
	})
}

func checkIndexerMatches(t *testing.T, s Indexer[*corev1.Pod], model map[string]*corev1.Pod) {
	t.Helper()
	if s.Len() != len(model) {
		t.Fatalf("store has %d objects, model %d", s.Len(), len(model))
	}
	wantByApp := map[string][]string{}
	wantByNS := map[string][]string{}
	for k, p := range model {
		got, ok, _ := s.GetByKey(k)
		if !ok || got != p {
			t.Fatalf("key %s: store %v, model %v", k, got, p)
		}
		wantByApp[p.Labels["app"]] = append(wantByApp[p.Labels["app"]], k)
		wantByNS[p.Namespace] = append(wantByNS[p.Namespace], k)
	}
	for idx, want := range map[string]map[string][]string{"app": wantByApp, NamespaceIndex: wantByNS} {
		values := s.ListIndexFuncValues(idx)
		if len(values) != len(want) {
			t.Fatalf("index %s has values %v, want %d values", idx, values, len(want))
		}
		for v, keys := range want {
			got, _ := s.IndexKeys(idx, v)
			sort.Strings(got)
			sort.Strings(keys)
			if fmt.Sprint(got) != fmt.Sprint(keys) {
				t.Fatalf("index %s value %s: %v, want %v", idx, v, got, keys)
			}
		}
	}
}

// FuzzDeltaFIFOInvariants drives a DeltaFIFO and the store it feeds with a
// byte-driven sequence of Add/Update/Delete/Replace/Resync/Pop. Invariants:
// Add/Update/Delete deltas pop in the order they were queued, and after
// draining, the store equals the model of the source's state.
func FuzzDeltaFIFOInvariants(f *testing.F) {
	f.Add([]byte{0, 1, 1, 1, 2, 1, 5, 0, 3, 2, 4, 0, 5, 0})
	f.Add([]byte{3, 5, 2, 1, 2, 1, 3, 0, 5, 5, 4, 4})
	f.Fuzz(func(t *testing.T, ops []byte) {
		store := newThreadSafeIndexer[*corev1.Pod](nil)
		fifo := NewDeltaFIFO[*corev1.Pod](store)
		source := map[string]*corev1.Pod{} // the server's state
		rv := 0
		// expect holds the watch-like deltas queued and not yet popped, in
		// order; popped Add/Update/Delete deltas must match its head.
		var expect []string
		apply := func(batch []Delta[*corev1.Pod], _ bool) error {
			for _, d := range batch {
				if d.Type == Added || d.Type == Updated || (d.Type == Deleted && !d.FinalStateUnknown) {
					got := d.Key() + "=" + deltaString(d)
					if len(expect) == 0 || expect[0] != got {
						t.Fatalf("popped %s, want the oldest queued %v", got, expect)
					}
					expect = expect[1:]
				}
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
			k := keyOf(p)
			_, exists := source[k]
			switch op {
			case 0:
				if !exists {
					source[k] = p
					fifo.Add(p)
					expect = append(expect, k+"=Added:"+p.ResourceVersion)
				}
			case 1:
				if exists {
					source[k] = p
					fifo.Update(p)
					expect = append(expect, k+"=Updated:"+p.ResourceVersion)
				}
			case 2:
				if exists {
					delete(source, k)
					before := fifo.Len()
					fifo.Delete(p)
					if fifo.Len() > before {
						expect = append(expect, k+"=Deleted:"+p.ResourceVersion)
					}
				}
			case 3:
				list := make([]*corev1.Pod, 0, len(source))
				for _, q := range source {
					list = append(list, q)
				}
				fifo.Replace(list, fmt.Sprint(rv))
			case 4:
				fifo.Resync()
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
