package deltafifo

import (
	"fmt"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/typedinformer/typedinformer/runtime/internal/keys"
)

// pod builds a Pod with a namespace, name and resourceVersion.
func pod(ns, name, rv string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, ResourceVersion: rv}}
}

// knownStore is the store a Queue feeds, reduced to what the queue asks of
// it (KnownObjects) and what the tests apply to it. It is not
// safe for concurrent use: the tests apply popped deltas on the goroutine
// that pops them.
type knownStore struct{ objs map[keys.Key]*corev1.Pod }

func newKnownStore() *knownStore { return &knownStore{objs: map[keys.Key]*corev1.Pod{}} }

// knownWith returns a store holding objs.
func knownWith(t *testing.T, objs ...*corev1.Pod) *knownStore {
	t.Helper()
	s := newKnownStore()
	for _, o := range objs {
		s.Update(o)
	}
	return s
}

func (s *knownStore) Update(obj *corev1.Pod) { s.objs[keys.Of(obj)] = obj }
func (s *knownStore) Delete(obj *corev1.Pod) { delete(s.objs, keys.Of(obj)) }
func (s *knownStore) Len() int               { return len(s.objs) }

func (s *knownStore) ListKeys() []string {
	out := make([]string, 0, len(s.objs))
	for k := range s.objs {
		out = append(out, k.String())
	}
	slices.Sort(out)
	return out
}

func (s *knownStore) GetByKey(key string) (*corev1.Pod, bool, error) {
	k, err := keys.Parse(key)
	if err != nil {
		return nil, false, err
	}
	obj, ok := s.objs[k]
	return obj, ok, nil
}

func deltaString(d Delta[*corev1.Pod]) string {
	s := d.Type.String()
	if d.FinalStateUnknown {
		s += "(tombstone)"
	}
	return s + ":" + d.Object.ResourceVersion
}

// popAll pops every queued delta, returning "key=Type:rv" strings in order.
func popAll(t *testing.T, f *Queue[*corev1.Pod]) []string {
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
