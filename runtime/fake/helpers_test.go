package fake

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/typedinformer/typedinformer/internal/testutil"
)

// waitLimit bounds every wait in these tests; hitting it is a failure.
const waitLimit = testutil.WaitLimit

// newPod returns a Pod with labels given as key, value pairs.
func newPod(ns, name string, labels ...string) *corev1.Pod {
	return testutil.Pod(ns, name, testutil.Labels(labels...))
}

func listPods(t *testing.T, s *Server[*corev1.Pod], ns string, opts metav1.ListOptions) (*List[*corev1.Pod], error) {
	t.Helper()
	obj, err := s.ListerWatcher(ns).List(context.Background(), opts)
	if err != nil {
		return nil, err
	}
	l, ok := obj.(*List[*corev1.Pod])
	if !ok {
		t.Fatalf("List returned %T", obj)
	}
	return l, nil
}

// names renders items as "ns/name@rv" joined by spaces.
func names(items []*corev1.Pod) string {
	parts := make([]string, len(items))
	for i, p := range items {
		parts[i] = fmt.Sprintf("%s/%s@%s", p.Namespace, p.Name, p.ResourceVersion)
	}
	return strings.Join(parts, " ")
}

// evString renders an event as "TYPE ns/name@rv", "BOOKMARK @rv" (with
// "+end" for the initial-events-end bookmark) or "ERROR <reason>".
func evString(ev watch.Event) string {
	switch o := ev.Object.(type) {
	case *corev1.Pod:
		if ev.Type == watch.Bookmark {
			s := "BOOKMARK @" + o.ResourceVersion
			if o.Annotations[initialEventsEndAnnotation] == "true" {
				s += "+end"
			}
			return s
		}
		return fmt.Sprintf("%s %s/%s@%s", ev.Type, o.Namespace, o.Name, o.ResourceVersion)
	case *metav1.Status:
		return fmt.Sprintf("%s %s %d", ev.Type, o.Reason, o.Code)
	default:
		return fmt.Sprintf("%s %T", ev.Type, ev.Object)
	}
}

// next receives one event or fails after waitLimit.
func next(t *testing.T, w watch.Interface) watch.Event {
	t.Helper()
	select {
	case ev, ok := <-w.ResultChan():
		if !ok {
			t.Fatal("watch closed, want an event")
		}
		return ev
	case <-time.After(waitLimit):
		t.Fatal("no watch event")
	}
	return watch.Event{}
}

// expectEvents receives len(want) events and compares their renderings.
func expectEvents(t *testing.T, w watch.Interface, want ...string) {
	t.Helper()
	for i, wnt := range want {
		if got := evString(next(t, w)); got != wnt {
			t.Fatalf("event %d = %q, want %q", i, got, wnt)
		}
	}
}

// expectClosed waits for the result channel to close, failing on any event.
func expectClosed(t *testing.T, w watch.Interface) {
	t.Helper()
	select {
	case ev, ok := <-w.ResultChan():
		if ok {
			t.Fatalf("got %s, want the watch closed", evString(ev))
		}
	case <-time.After(waitLimit):
		t.Fatal("watch not closed")
	}
}

func startWatch(t *testing.T, s *Server[*corev1.Pod], ns string, opts metav1.ListOptions) watch.Interface {
	t.Helper()
	w, err := s.ListerWatcher(ns).Watch(context.Background(), opts)
	if err != nil {
		t.Fatalf("watch %+v: %v", opts, err)
	}
	t.Cleanup(w.Stop)
	return w
}

func ptr[V any](v V) *V { return &v }

var _ runtime.Object = (*List[*corev1.Pod])(nil)
