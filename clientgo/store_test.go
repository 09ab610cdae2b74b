package clientgo_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	toolscache "k8s.io/client-go/tools/cache"
)

func sortedKeys(objs []any) string {
	var out []string
	for _, o := range objs {
		out = append(out, describe(o))
	}
	slices.Sort(out)
	return strings.Join(out, "; ")
}

func byLabel(obj any) ([]string, error) {
	return []string{obj.(*corev1.Pod).Labels["v"]}, nil
}

// TestIndexerMatchesClientGo runs the same Store and Indexer calls on the
// cache of client-go's informer and of ours and requires the same results.
func TestIndexerMatchesClientGo(t *testing.T) {
	steps := []struct {
		name string
		do   func(x toolscache.Indexer) string
	}{
		{"add", func(x toolscache.Indexer) string {
			return fmt.Sprint(x.Add(pod("a", "p1", "1", "x")), x.Add(pod("b", "p2", "2", "y")), x.Add(pod("a", "p3", "3", "y")))
		}},
		{"update", func(x toolscache.Indexer) string { return fmt.Sprint(x.Update(pod("a", "p1", "4", "y"))) }},
		{"list", func(x toolscache.Indexer) string { return sortedKeys(x.List()) }},
		{"listKeys", func(x toolscache.Indexer) string { k := x.ListKeys(); slices.Sort(k); return fmt.Sprint(k) }},
		{"get", func(x toolscache.Indexer) string {
			o, ok, err := x.Get(pod("a", "p1", "", ""))
			return fmt.Sprint(describe(o), ok, err)
		}},
		{"getByKey missing", func(x toolscache.Indexer) string {
			o, ok, err := x.GetByKey("a/none")
			return fmt.Sprint(o, ok, err)
		}},
		{"byIndex namespace", func(x toolscache.Indexer) string {
			l, err := x.ByIndex(toolscache.NamespaceIndex, "a")
			return fmt.Sprint(sortedKeys(l), err)
		}},
		{"indexKeys", func(x toolscache.Indexer) string {
			k, err := x.IndexKeys(toolscache.NamespaceIndex, "a")
			slices.Sort(k)
			return fmt.Sprint(k, err)
		}},
		{"unknown index", func(x toolscache.Indexer) string {
			_, err := x.ByIndex("nope", "a")
			return fmt.Sprint(err != nil)
		}},
		{"addIndexers", func(x toolscache.Indexer) string {
			return fmt.Sprint(x.AddIndexers(toolscache.Indexers{"byLabel": byLabel}))
		}},
		{"addIndexers conflict", func(x toolscache.Indexer) string {
			return fmt.Sprint(x.AddIndexers(toolscache.Indexers{"byLabel": byLabel}) != nil)
		}},
		{"getIndexers", func(x toolscache.Indexer) string {
			var names []string
			for n := range x.GetIndexers() {
				names = append(names, n)
			}
			slices.Sort(names)
			return fmt.Sprint(names)
		}},
		{"index", func(x toolscache.Indexer) string {
			l, err := x.Index("byLabel", pod("z", "q", "", "y"))
			return fmt.Sprint(sortedKeys(l), err)
		}},
		{"listIndexFuncValues", func(x toolscache.Indexer) string {
			v := x.ListIndexFuncValues("byLabel")
			slices.Sort(v)
			return fmt.Sprint(v)
		}},
		{"delete tombstone", func(x toolscache.Indexer) string {
			err := x.Delete(toolscache.DeletedFinalStateUnknown{Key: "b/p2", Obj: pod("b", "p2", "2", "y")})
			return fmt.Sprint(err, sortedKeys(x.List()))
		}},
		{"delete missing", func(x toolscache.Indexer) string { return fmt.Sprint(x.Delete(pod("c", "none", "", ""))) }},
		{"replace", func(x toolscache.Indexer) string {
			err := x.Replace([]any{pod("c", "r1", "9", "z")}, "9")
			v := x.ListIndexFuncValues("byLabel")
			slices.Sort(v)
			return fmt.Sprint(err, sortedKeys(x.List()), v)
		}},
		{"resync", func(x toolscache.Indexer) string { return fmt.Sprint(x.Resync()) }},
	}
	indexers := map[string]toolscache.Indexer{}
	for _, im := range impls {
		inf := im.new(&scriptedLW{}, &corev1.Pod{}, 0, toolscache.Indexers{toolscache.NamespaceIndex: toolscache.MetaNamespaceIndexFunc})
		indexers[im.name] = inf.GetIndexer()
	}
	for _, step := range steps {
		want := step.do(indexers[impls[0].name])
		for _, im := range impls[1:] {
			if got := step.do(indexers[im.name]); got != want {
				t.Errorf("%s: %s: got %q, client-go %q", step.name, im.name, got, want)
			}
		}
	}
}
