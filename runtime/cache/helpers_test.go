package cache

import (
	"fmt"
	"sort"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/typedinformer/typedinformer/internal/testutil"
)

// pod builds a real Pod with a namespace, name, resourceVersion and labels.
func pod(ns, name, rv string, labels ...string) *corev1.Pod {
	p := testutil.Pod(ns, name, testutil.RV(rv), testutil.Labels(labels...))
	p.Spec.NodeName = "node-" + name
	return p
}

func node(name, rv string) *corev1.Node {
	return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, ResourceVersion: rv}}
}

func sortedKeys[T Object](objs []T) []string {
	out := make([]string, len(objs))
	for i, o := range objs {
		out[i] = keyOf(o)
	}
	sort.Strings(out)
	return out
}

func deltaString[T Object](d Delta[T]) string {
	s := d.Type.String()
	if d.FinalStateUnknown {
		s += "(tombstone)"
	}
	return s + ":" + d.Object.GetResourceVersion()
}

// fakeKnown is a KnownObjects backed by a real indexer.
func knownWith(t *testing.T, objs ...*corev1.Pod) *threadSafeIndexer[*corev1.Pod] {
	t.Helper()
	s := newThreadSafeIndexer[*corev1.Pod](nil)
	for _, o := range objs {
		if err := s.Add(o); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// popAll pops every queued delta, returning "key=Type:rv" strings in order.
func popAll(t *testing.T, f *DeltaFIFO[*corev1.Pod]) []string {
	t.Helper()
	var out []string
	for f.Len() > 0 {
		if err := f.Pop(func(d Delta[*corev1.Pod], _ bool) error {
			out = append(out, fmt.Sprintf("%s=%s", d.Key(), deltaString(d)))
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	return out
}
