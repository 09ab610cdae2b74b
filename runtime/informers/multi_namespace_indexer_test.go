package informers

import (
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/typedinformer/typedinformer/runtime/cache"
)

type meta = *metav1.PartialObjectMetadata

func metaObj(ns, name, node string) meta {
	return &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{"node": node}}}
}

// AppendByIndex of the multi-namespace cache appends what ByIndex returns,
// across namespaces, after the caller's elements, and leaves dst as it was
// on an error.
func TestMultiNamespaceIndexerAppendByIndex(t *testing.T) {
	byNode := cache.Indexers[meta]{"node": func(o meta) ([]string, error) { return []string{o.Labels["node"]}, nil }}
	m := &multiNamespaceIndexer[meta]{namespaces: []string{"a", "b"}, byNS: map[string]cache.Indexer[meta]{}}
	for _, ns := range m.namespaces {
		idx := cache.NewIndexer[meta](byNode)
		m.byNS[ns] = idx
		m.all = append(m.all, idx)
	}
	for _, o := range []meta{metaObj("a", "x", "n1"), metaObj("b", "y", "n1"), metaObj("b", "z", "n2")} {
		if err := m.Add(o); err != nil {
			t.Fatal(err)
		}
	}
	keys := func(objs []meta) []string {
		var out []string
		for _, o := range objs {
			out = append(out, cache.NewObjectName(o.Namespace, o.Name).String())
		}
		slices.Sort(out)
		return out
	}
	first := metaObj("keep", "me", "")
	for _, tc := range []struct {
		index, value string
		want         []string
	}{
		{"node", "n1", []string{"a/x", "b/y"}},
		{cache.NamespaceIndex, "b", []string{"b/y", "b/z"}},
		{cache.NamespaceIndex, "unwatched", nil},
	} {
		got, err := m.AppendByIndex([]meta{first}, tc.index, tc.value)
		if err != nil || got[0] != first || !slices.Equal(keys(got[1:]), tc.want) {
			t.Fatalf("AppendByIndex(%s, %s) = %v, %v; want [keep/me] + %v", tc.index, tc.value, keys(got), err, tc.want)
		}
		plain, _ := m.ByIndex(tc.index, tc.value)
		if !slices.Equal(keys(plain), tc.want) {
			t.Fatalf("ByIndex(%s, %s) = %v, want %v", tc.index, tc.value, keys(plain), tc.want)
		}
	}
	got, err := m.AppendByIndex([]meta{first}, "nope", "x")
	if err == nil || !strings.Contains(err.Error(), `"nope"`) || len(got) != 1 || got[0] != first {
		t.Fatalf("unknown index: %v, %v; want dst unchanged and an error naming it", keys(got), err)
	}
}
