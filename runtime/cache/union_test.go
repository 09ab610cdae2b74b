package cache_test

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/typedinformer/typedinformer/runtime/cache"
	"github.com/typedinformer/typedinformer/runtime/fake"
	"github.com/typedinformer/typedinformer/runtime/listers"
)

// TestUnionIndexerOfDisjointSelections runs two informers of one type with
// disjoint label selectors and reads their union through a lister while
// objects move between the selections: no read returns a key twice, and
// once both informers have synced a move, the union returns the moved
// object exactly once, in its new state.
func TestUnionIndexerOfDisjointSelections(t *testing.T) {
	srv := fake.NewServer[*corev1.Pod]()
	const n = 6
	for i := range n {
		create(t, srv, newPod("ns1", fmt.Sprintf("p%d", i), "group", []string{"a", "b"}[i%2]))
	}
	create(t, srv, newPod("ns1", "other", "group", "c"))
	infA := podInformer(srv, cache.SharedIndexInformerOptions[*corev1.Pod]{Name: "pods-a", Reflector: fastReflector(), LabelSelector: "group=a"})
	infB := podInformer(srv, cache.SharedIndexInformerOptions[*corev1.Pod]{Name: "pods-b", Reflector: fastReflector(), LabelSelector: "group=b"})
	run(t, infA)
	run(t, infB)
	waitSynced(t, infA, infB)
	union := cache.NewUnionIndexer(infA.GetIndexer(), infB.GetIndexer())
	lister := listers.New[*corev1.Pod](union, schema.GroupResource{Resource: "pods"})
	ab := sel{label: "group in (a,b)"}

	checkOnce := func(step string) {
		t.Helper()
		objs, err := lister.List(labels.Everything())
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for _, p := range objs {
			if seen[key(p)] {
				t.Fatalf("%s: the union returned %s twice: %s", step, key(p), storeString(objs))
			}
			seen[key(p)] = true
		}
	}
	for round := range 3 * n {
		name := fmt.Sprintf("p%d", round%n)
		p, err := srv.Get("ns1", name)
		if err != nil {
			t.Fatal(err)
		}
		p = p.DeepCopy()
		p.Labels["group"] = map[string]string{"a": "b", "b": "a"}[p.Labels["group"]]
		moved := update(t, srv, p)
		step := fmt.Sprintf("round %d, %s to group %s", round, name, moved.Labels["group"])
		// Both informers synced the move: the old one dropped it, the new
		// one holds its new state.
		from, to := infA, infB
		if moved.Labels["group"] == "a" {
			from, to = infB, infA
		}
		eventually(t, step, func() bool {
			checkOnce(step)
			_, inOld, _ := from.GetStore().GetByKey(key(moved))
			got, inNew, _ := to.GetStore().GetByKey(key(moved))
			return !inOld && inNew && got.ResourceVersion == moved.ResourceVersion
		})
		checkOnce(step)
		got, err := lister.Namespace("ns1").Get(name)
		if err != nil || got.ResourceVersion != moved.ResourceVersion {
			t.Fatalf("%s: lister Get = %v, %v; want resourceVersion %s", step, got, err, moved.ResourceVersion)
		}
		objs, _ := lister.List(labels.Everything())
		if g, w := storeString(objs), storeString(filterPods(srv.Objects(), ab)); g != w {
			t.Fatalf("%s: union lists %s, want %s", step, g, w)
		}
		if union.Len() != n {
			t.Fatalf("%s: union Len %d, want %d", step, union.Len(), n)
		}
	}
	// An overlapping pair: the same object in both members is returned
	// once, in its newer state.
	a := cache.NewIndexer[*corev1.Pod](nil)
	b := cache.NewIndexer[*corev1.Pod](nil)
	old, cur := newPod("ns1", "x"), newPod("ns1", "x")
	old.ResourceVersion, cur.ResourceVersion = "5", "12"
	_ = a.Add(cur)
	_ = b.Add(old)
	for _, u := range []cache.Indexer[*corev1.Pod]{cache.NewUnionIndexer(a, b), cache.NewUnionIndexer(b, a)} {
		if l := u.List(); len(l) != 1 || l[0].ResourceVersion != "12" {
			t.Errorf("overlapping members: List = %s, want ns1/x@12 once", storeString(l))
		}
		if got, ok, _ := u.GetByKey("ns1/x"); !ok || got.ResourceVersion != "12" {
			t.Errorf("overlapping members: GetByKey = %v %v", got, ok)
		}
		if err := u.Add(newPod("ns1", "y")); err == nil {
			t.Error("Add on a union succeeded")
		}
	}
}
