package cache_test

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/typedinformer/typedinformer/runtime/cache"
)

func podWithFields(name, fields string) *corev1.Pod {
	p := newPod("a", name)
	p.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "kcm", FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(fields)}}}
	return p
}

func rawOf(t *testing.T, inf cache.SharedIndexInformer[*corev1.Pod], key string) []byte {
	t.Helper()
	p, ok, _ := inf.GetIndexer().GetByKey(key)
	if !ok {
		t.Fatalf("%s not cached", key)
	}
	return p.ManagedFields[0].FieldsV1.Raw
}

// TestReflectorEqualManagedFieldsAreHeldOnce checks the default sharing of
// managedFields documents, through the list and the watch, and its opt-out,
// over the fake server's objects and over wire ListWatches (whose decoders
// hold equal documents of one response once, which the opt-out undoes).
func TestReflectorEqualManagedFieldsAreHeldOnce(t *testing.T) {
	const doc = `{"f:metadata":{"f:labels":{".":{},"f:app":{}}}}`
	for _, kind := range lwKinds {
		for _, disable := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/disable=%v", kind, disable), func(t *testing.T) {
				testEqualManagedFieldsAreHeldOnce(t, kind, disable, doc)
			})
		}
	}
}

func testEqualManagedFieldsAreHeldOnce(t *testing.T, kind string, disable bool, doc string) {
	srv := seedServer(t)
	create(t, srv, podWithFields("m1", doc))
	create(t, srv, podWithFields("m2", doc))
	create(t, srv, podWithFields("other", `{"f:spec":{}}`))
	opts := fastReflector()
	opts.DisableManagedFieldsSharing = disable
	inf := cache.NewSharedIndexInformerWithOptions[*corev1.Pod](listerWatcherOf(t, srv.ListerWatcher(""), kind),
		cache.SharedIndexInformerOptions[*corev1.Pod]{Name: "pods", Reflector: opts})
	run(t, inf)
	waitSynced(t, inf)
	waitWatchers(t, srv, 1)
	create(t, srv, podWithFields("m3", doc))
	eventually(t, "m3 from the watch", func() bool { _, ok, _ := inf.GetIndexer().GetByKey("a/m3"); return ok })
	m1, m2, m3, other := rawOf(t, inf, "a/m1"), rawOf(t, inf, "a/m2"), rawOf(t, inf, "a/m3"), rawOf(t, inf, "a/other")
	if string(m1) != doc || string(m3) != doc || string(other) != `{"f:spec":{}}` {
		t.Fatal("managedFields content changed")
	}
	// Sharing on: all three hold one document; off: no two of them do (a
	// decoder holding the listed m1 and m2 as one must not show through).
	allShared := &m1[0] == &m2[0] && &m2[0] == &m3[0]
	anyShared := &m1[0] == &m2[0] || &m2[0] == &m3[0] || &m1[0] == &m3[0]
	if disable && anyShared || !disable && !allShared {
		t.Fatalf("DisableManagedFieldsSharing=%v: m1, m2, m3 share bytes: %v, %v, %v", disable, &m1[0] == &m2[0], &m2[0] == &m3[0], &m1[0] == &m3[0])
	}
	if &other[0] == &m1[0] {
		t.Fatal("different documents share bytes")
	}
}

// TestManagedFieldsSharingIsPerInformer checks that two informers of the
// same objects each hold their own copy of a shared document: the table
// belongs to the informer, not to the process.
func TestManagedFieldsSharingIsPerInformer(t *testing.T) {
	const doc = `{"f:metadata":{"f:labels":{".":{},"f:app":{}}}}`
	srv := seedServer(t)
	create(t, srv, podWithFields("m1", doc))
	create(t, srv, podWithFields("m2", doc))
	var raws [][]byte
	for range 2 {
		inf := podInformer(srv, cache.SharedIndexInformerOptions[*corev1.Pod]{Reflector: fastReflector()})
		run(t, inf)
		waitSynced(t, inf)
		m1, m2 := rawOf(t, inf, "a/m1"), rawOf(t, inf, "a/m2")
		if &m1[0] != &m2[0] {
			t.Fatal("equal documents within one informer are not shared")
		}
		raws = append(raws, m1)
	}
	if &raws[0][0] == &raws[1][0] {
		t.Fatal("two informers share managedFields bytes")
	}
}
