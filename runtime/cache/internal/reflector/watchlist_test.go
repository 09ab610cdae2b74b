package reflector

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/typedinformer/typedinformer/runtime/internal/keys"
)

// initialEvent is one event of a watch-list's initial events: an object
// added or modified, or deleted.
type initialEvent struct {
	name    string
	rv      int
	deleted bool
}

func eventsOf(evs []initialEvent) (objs []*corev1.Pod, deleted []int) {
	for i, e := range evs {
		objs = append(objs, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: e.name, ResourceVersion: fmt.Sprint(e.rv)}})
		if e.deleted {
			deleted = append(deleted, i)
		}
	}
	return objs, deleted
}

// modelInitialState is what a temporary store keyed by object, filled by
// the events one by one, holds at the end, in its order: the latest
// object of each key in the order keys first appeared, a deletion moving
// the last object into the place it empties.
func modelInitialState(objs []*corev1.Pod, deleted []int) []*corev1.Pod {
	isDeleted := map[int]bool{}
	for _, i := range deleted {
		isDeleted[i] = true
	}
	var items []*corev1.Pod
	find := func(k keys.Key) int {
		for j, it := range items {
			if keys.Of(it) == k {
				return j
			}
		}
		return -1
	}
	for i, obj := range objs {
		j := find(keys.Of(obj))
		switch {
		case isDeleted[i] && j >= 0:
			items[j] = items[len(items)-1]
			items = items[:len(items)-1]
		case isDeleted[i]:
		case j >= 0:
			items[j] = obj
		default:
			items = append(items, obj)
		}
	}
	return items
}

func render(objs []*corev1.Pod) string {
	var parts []string
	for _, p := range objs {
		parts = append(parts, p.Name+"@"+p.ResourceVersion)
	}
	return strings.Join(parts, " ")
}

func TestInitialState(t *testing.T) {
	for _, tc := range []struct {
		name string
		evs  []initialEvent
		want string
	}{
		{"none", nil, ""},
		{"one ADDED each", []initialEvent{{"a", 1, false}, {"b", 2, false}, {"c", 3, false}}, "a@1 b@2 c@3"},
		{"a key twice", []initialEvent{{"a", 1, false}, {"b", 2, false}, {"a", 3, false}}, "a@3 b@2"},
		{"a deletion moves the last", []initialEvent{{"a", 1, false}, {"b", 2, false}, {"c", 3, false}, {"a", 4, true}}, "c@3 b@2"},
		{"deleting the last", []initialEvent{{"a", 1, false}, {"b", 2, false}, {"b", 3, true}}, "a@1"},
		{"deleting what is not there", []initialEvent{{"a", 1, false}, {"x", 2, true}}, "a@1"},
		{"deleted then added again", []initialEvent{{"a", 1, false}, {"b", 2, false}, {"a", 3, true}, {"a", 4, false}}, "b@2 a@4"},
		{"only deletions", []initialEvent{{"a", 1, true}, {"b", 2, true}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs, deleted := eventsOf(tc.evs)
			got := initialState(objs, deleted)
			if render(got) != tc.want {
				t.Fatalf("initialState = %q, want %q", render(got), tc.want)
			}
			if m := render(modelInitialState(objs, deleted)); m != tc.want {
				t.Fatalf("the model gives %q, want %q", m, tc.want)
			}
		})
	}
}

// TestInitialStateAsTheModel compares initialState with the model over
// random event sequences of a few keys, and checks that a sequence of
// distinct ADDED events comes back as it is, not copied.
func TestInitialStateAsTheModel(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		var evs []initialEvent
		for i := range r.IntN(12) {
			evs = append(evs, initialEvent{name: fmt.Sprint("k", r.IntN(5)), rv: i + 1, deleted: r.IntN(4) == 0})
		}
		objs, deleted := eventsOf(evs)
		if got, want := render(initialState(objs, deleted)), render(modelInitialState(objs, deleted)); got != want {
			t.Fatalf("%v: initialState = %q, the model %q", evs, got, want)
		}
	}
	objs, _ := eventsOf([]initialEvent{{"a", 1, false}, {"b", 2, false}})
	if got := initialState(objs, nil); &got[0] != &objs[0] {
		t.Fatal("distinct ADDED events were copied")
	}
}
