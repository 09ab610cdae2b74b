package cache

import (
	"fmt"
	"sort"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/typedinformer/typedinformer/runtime/internal/keys"
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
				model[keys.StringOf(p)] = p
			case 2:
				s.Delete(p)
				delete(model, keys.StringOf(p))
			case 3:
				var list []*corev1.Pod
				model = map[string]*corev1.Pod{}
				for j := 0; j < int(arg%4); j++ {
					q := pod(ns, fmt.Sprintf("p%d", j), fmt.Sprint(i), "app", fmt.Sprintf("a%d", j%2))
					list = append(list, q)
					model[keys.StringOf(q)] = q
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
