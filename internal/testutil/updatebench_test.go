package testutil

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestPodGenerations checks that round-robin over the updates never sends
// a key the resourceVersion it had last (which an informer takes for a
// resync), from the list's "1" onwards, and that the list is left as it was.
func TestPodGenerations(t *testing.T) {
	list := &corev1.PodList{Items: []corev1.Pod{
		{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "p0", ResourceVersion: "1"}},
		{ObjectMeta: metav1.ObjectMeta{Namespace: "b", Name: "p1", ResourceVersion: "1"}},
		{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "p2", ResourceVersion: "1"}},
	}}
	updates := PodGenerations(list)
	if len(updates) != 2*len(list.Items) {
		t.Fatalf("got %d updates for %d Pods, want %d", len(updates), len(list.Items), 2*len(list.Items))
	}
	last := map[string]string{}
	for _, p := range list.Items {
		last[p.Namespace+"/"+p.Name] = p.ResourceVersion
	}
	for round := 0; round < 3; round++ {
		for i, p := range updates {
			k := p.Namespace + "/" + p.Name
			if last[k] == p.ResourceVersion {
				t.Fatalf("round %d, update %d: %s sent again at resourceVersion %s", round, i, k, p.ResourceVersion)
			}
			last[k] = p.ResourceVersion
		}
	}
	for i, p := range list.Items {
		if p.ResourceVersion != "1" || updates[i] == &list.Items[i] {
			t.Errorf("list item %d changed or shared: resourceVersion %s", i, p.ResourceVersion)
		}
	}
}
