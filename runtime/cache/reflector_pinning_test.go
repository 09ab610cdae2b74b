package cache_test

import (
	"context"
	"fmt"
	goruntime "runtime"
	"strconv"
	"testing"
	"weak"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/typedinformer/typedinformer/runtime/cache"
)

// pinningSource serves lists built fresh for each request, remembering a
// weak pointer to every list's Items backing array, and a watch the test
// drives.
type pinningSource struct {
	pods     int
	pageSize int // 0: one page
	arrays   []weak.Pointer[corev1.Pod]
	watcher  *watch.RaceFreeFakeWatcher
	watched  chan struct{}
}

func (s *pinningSource) IsWatchListSemanticsUnSupported() bool { return true }

func (s *pinningSource) List(_ context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	start := 0
	if opts.Continue != "" {
		start, _ = strconv.Atoi(opts.Continue)
	}
	end := s.pods
	if s.pageSize > 0 && start+s.pageSize < end {
		end = start + s.pageSize
	}
	list := &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "10"}, Items: make([]corev1.Pod, 0, end-start)}
	for i := start; i < end; i++ {
		list.Items = append(list.Items, corev1.Pod{ObjectMeta: metav1.ObjectMeta{
			Namespace: "a", Name: fmt.Sprintf("p%d", i), ResourceVersion: "10",
			Annotations: map[string]string{"payload": string(make([]byte, 1024))},
		}})
	}
	if end < s.pods {
		list.Continue = strconv.Itoa(end)
	}
	s.arrays = append(s.arrays, weak.Make(&list.Items[0]))
	return list, nil
}

func (s *pinningSource) Watch(context.Context, metav1.ListOptions) (watch.Interface, error) {
	if s.watcher != nil {
		// One watch is enough: later ones never deliver anything.
		return watch.NewRaceFreeFake(), nil
	}
	s.watcher = watch.NewRaceFreeFake()
	close(s.watched)
	return s.watcher, nil
}

// TestReflectorChurnedStoreDoesNotPinLists lists pods, replaces 90% of them
// through watch updates, and checks that no list's backing array survives a
// GC: the store must hold copies of the listed items, not pointers into the
// decoded list.
func TestReflectorChurnedStoreDoesNotPinLists(t *testing.T) {
	for _, tt := range []struct {
		name     string
		pageSize int
	}{{"one page", 0}, {"paginated", 4}} {
		t.Run(tt.name, func(t *testing.T) {
			src := &pinningSource{pods: 10, pageSize: tt.pageSize, watched: make(chan struct{})}
			inf := cache.NewSharedIndexInformerWithOptions[*corev1.Pod](src, cache.SharedIndexInformerOptions[*corev1.Pod]{
				Name: "pods", Reflector: cache.ReflectorOptions{PageSize: int64(tt.pageSize)},
			})
			run(t, inf)
			waitSynced(t, inf)
			<-src.watched
			if tt.pageSize > 0 {
				if want := 3; len(src.arrays) != want {
					t.Fatalf("%d list pages served, want %d", len(src.arrays), want)
				}
			}
			// Replace p0..p8 with fresh objects; p9 stays the listed one.
			for i := 0; i < 9; i++ {
				src.watcher.Modify(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{
					Namespace: "a", Name: fmt.Sprintf("p%d", i), ResourceVersion: strconv.Itoa(11 + i),
				}})
			}
			eventually(t, "the updates to reach the store", func() bool {
				p, ok, _ := inf.GetIndexer().GetByKey("a/p8")
				return ok && p.ResourceVersion == "19"
			})
			survivor, ok, _ := inf.GetIndexer().GetByKey("a/p9")
			if !ok || survivor.ResourceVersion != "10" {
				t.Fatalf("a/p9 = %v, %v; want the listed object", survivor, ok)
			}
			goruntime.GC()
			goruntime.GC()
			for i, a := range src.arrays {
				if a.Value() != nil {
					t.Errorf("the backing array of list page %d is still reachable after GC: the store pins it", i)
				}
			}
			goruntime.KeepAlive(survivor)
		})
	}
}
