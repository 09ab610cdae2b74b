package cache_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	goruntime "runtime"
	"strconv"
	"sync"
	"testing"
	"weak"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/typedinformer/typedinformer/runtime/cache"
	"github.com/typedinformer/typedinformer/runtime/sharding"
)

// The store may point into a list's Items array (a slab) instead of
// copying its items, and compacts a slab once fewer than half of its
// elements are current objects (see slab.go). These tests watch the arrays
// through weak pointers.

// pinningSource serves lists built fresh for each request, remembering a
// weak pointer to every page's Items array and to each of its items, and
// hands each watch it opens to the test.
type pinningSource struct {
	pods     int
	pageSize int                // 0: one page
	ns       func(i int) string // namespace of pod i; nil: "a"

	mu       sync.Mutex
	rv       int // resourceVersion of listed objects (default 10)
	arrays   []weak.Pointer[corev1.Pod]
	items    [][]weak.Pointer[corev1.Pod] // per page
	watchers chan *watch.RaceFreeFakeWatcher
}

func newPinningSource(pods, pageSize int) *pinningSource {
	return &pinningSource{pods: pods, pageSize: pageSize, rv: 10, watchers: make(chan *watch.RaceFreeFakeWatcher, 16)}
}

func (s *pinningSource) IsWatchListSemanticsUnSupported() bool { return true }

// pod returns pod i as listed at rv.
func (s *pinningSource) pod(i, rv int) corev1.Pod {
	ns := "a"
	if s.ns != nil {
		ns = s.ns(i)
	}
	return corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: ns, Name: fmt.Sprintf("p%d", i), ResourceVersion: strconv.Itoa(rv),
			UID:         types.UID("uid-" + strconv.Itoa(i)),
			Annotations: map[string]string{"payload": string(make([]byte, 1024))},
		},
		Spec: corev1.PodSpec{NodeName: fmt.Sprintf("node%d", i%3)},
	}
}

func (s *pinningSource) List(_ context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	start := 0
	if opts.Continue != "" {
		start, _ = strconv.Atoi(opts.Continue)
	}
	end := s.pods
	if s.pageSize > 0 && start+s.pageSize < end {
		end = start + s.pageSize
	}
	list := &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: strconv.Itoa(s.rv)}, Items: make([]corev1.Pod, 0, end-start)}
	for i := start; i < end; i++ {
		list.Items = append(list.Items, s.pod(i, s.rv))
	}
	if end < s.pods {
		list.Continue = strconv.Itoa(end)
	}
	s.arrays = append(s.arrays, weak.Make(&list.Items[0]))
	ws := make([]weak.Pointer[corev1.Pod], len(list.Items))
	for i := range list.Items {
		ws[i] = weak.Make(&list.Items[i])
	}
	s.items = append(s.items, ws)
	return list, nil
}

func (s *pinningSource) Watch(context.Context, metav1.ListOptions) (watch.Interface, error) {
	w := watch.NewRaceFreeFake()
	s.watchers <- w
	return w, nil
}

// pages returns how many list pages were served.
func (s *pinningSource) pages() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.arrays)
}

// reachable reports, after two collections, which served pages' arrays are
// still reachable.
func (s *pinningSource) reachable() []bool {
	goruntime.GC()
	goruntime.GC()
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]bool, len(s.arrays))
	for i, a := range s.arrays {
		out[i] = a.Value() != nil
	}
	return out
}

// listed returns item i of served page p, nil once collected.
func (s *pinningSource) listed(p, i int) *corev1.Pod {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.items[p][i].Value()
}

// pinningInformer runs an informer over src with a custom "node" index and
// transform (if not nil), and waits for its sync and first watch.
func pinningInformer(t *testing.T, src *pinningSource, opts cache.SharedIndexInformerOptions[*corev1.Pod], transform cache.TransformFunc[*corev1.Pod]) (cache.SharedIndexInformer[*corev1.Pod], *watch.RaceFreeFakeWatcher) {
	t.Helper()
	opts.Name = "pods"
	r := fastReflector()
	r.PageSize = int64(src.pageSize)
	opts.Reflector = r
	opts.Indexers = cache.Indexers[*corev1.Pod]{"node": func(p *corev1.Pod) ([]string, error) { return []string{p.Spec.NodeName}, nil }}
	inf := cache.NewSharedIndexInformerWithOptions[*corev1.Pod](src, opts)
	if transform != nil {
		if err := inf.SetTransform(transform); err != nil {
			t.Fatal(err)
		}
	}
	run(t, inf)
	waitSynced(t, inf)
	return inf, <-src.watchers
}

// modify replaces pod i through w with a fresh object at rv and waits for
// the store to hold it.
func modify(t *testing.T, inf cache.SharedIndexInformer[*corev1.Pod], src *pinningSource, w *watch.RaceFreeFakeWatcher, i, rv int) {
	t.Helper()
	p := src.pod(i, rv)
	w.Modify(&p)
	eventually(t, "the update of p"+strconv.Itoa(i)+" to reach the store", func() bool {
		got, ok, _ := inf.GetIndexer().GetByKey(cache.KeyFor(p.Namespace, p.Name))
		return ok && got.ResourceVersion == strconv.Itoa(rv)
	})
}

// remove deletes pod i through w and waits for the store to drop it.
func remove(t *testing.T, inf cache.SharedIndexInformer[*corev1.Pod], src *pinningSource, w *watch.RaceFreeFakeWatcher, i int) {
	t.Helper()
	p := src.pod(i, 99)
	w.Delete(&p)
	eventually(t, "the delete of p"+strconv.Itoa(i)+" to reach the store", func() bool {
		_, ok, _ := inf.GetIndexer().GetByKey(cache.KeyFor(p.Namespace, p.Name))
		return !ok
	})
}

// checkStored checks that the store holds pod i with the content it was
// listed with at rv (as transformed by fix, if not nil).
func checkStored(t *testing.T, inf cache.SharedIndexInformer[*corev1.Pod], src *pinningSource, i, rv int, fix func(*corev1.Pod)) *corev1.Pod {
	t.Helper()
	want := src.pod(i, rv)
	if fix != nil {
		fix(&want)
	}
	got, ok, err := inf.GetIndexer().GetByKey(cache.KeyFor(want.Namespace, want.Name))
	if err != nil || !ok {
		t.Fatalf("p%d: not stored (%v)", i, err)
	}
	if !reflect.DeepEqual(got, &want) {
		t.Fatalf("p%d: stored %+v\nwant %+v", i, got.ObjectMeta, want.ObjectMeta)
	}
	return got
}

// checkIndexes checks, through the public API, that every posting of the
// namespace index and of the "node" index holds exactly the current object
// of each key it should (the object GetByKey returns), once, and nothing
// else.
func checkIndexes(t *testing.T, idx cache.Indexer[*corev1.Pod]) {
	t.Helper()
	for _, ix := range []struct {
		name string
		val  func(*corev1.Pod) string
	}{{cache.NamespaceIndex, func(p *corev1.Pod) string { return p.Namespace }}, {"node", func(p *corev1.Pod) string { return p.Spec.NodeName }}} {
		want := map[string]int{}
		for _, key := range idx.ListKeys() {
			cur, ok, _ := idx.GetByKey(key)
			if !ok {
				t.Fatalf("ListKeys has %s, GetByKey does not", key)
			}
			want[ix.val(cur)]++
		}
		for _, v := range idx.ListIndexFuncValues(ix.name) {
			objs, err := idx.ByIndex(ix.name, v)
			if err != nil {
				t.Fatal(err)
			}
			if len(objs) != want[v] {
				t.Errorf("index %s, value %q: %d objects, want %d", ix.name, v, len(objs), want[v])
			}
			for _, o := range objs {
				cur, ok, _ := idx.GetByKey(cache.KeyFor(o.Namespace, o.Name))
				if !ok || cur != o {
					t.Errorf("index %s, value %q holds a stale object of %s/%s (rv %s): not the stored one", ix.name, v, o.Namespace, o.Name, o.ResourceVersion)
				}
			}
			delete(want, v)
		}
		if len(want) > 0 {
			t.Errorf("index %s lacks values %v", ix.name, want)
		}
	}
}

// TestListArraysCollectedOnceMostObjectsReplaced replaces or deletes three
// of every five listed pods through the watch: every page then holds fewer
// current objects than half its length, so no page's array may survive a
// GC, while the two untouched pods of every five keep their listed content
// in the store and in both indexes.
func TestListArraysCollectedOnceMostObjectsReplaced(t *testing.T) {
	for _, tt := range []struct {
		name     string
		pageSize int
		pages    int
	}{{"one page", 0, 1}, {"paginated", 5, 2}} {
		t.Run(tt.name, func(t *testing.T) {
			src := newPinningSource(10, tt.pageSize)
			inf, w := pinningInformer(t, src, cache.SharedIndexInformerOptions[*corev1.Pod]{}, nil)
			if got := src.pages(); got != tt.pages {
				t.Fatalf("%d list pages served, want %d", got, tt.pages)
			}
			for i := 0; i < 10; i++ {
				switch i % 5 {
				case 0, 1:
					modify(t, inf, src, w, i, 20+i)
				case 2:
					remove(t, inf, src, w, i)
				}
			}
			for i, alive := range src.reachable() {
				if alive {
					t.Errorf("the array of list page %d is still reachable after most of its objects were replaced: the store pins it", i)
				}
			}
			for i := 0; i < 10; i++ {
				switch i % 5 {
				case 0, 1:
					checkStored(t, inf, src, i, 20+i, nil)
				case 3, 4:
					checkStored(t, inf, src, i, 10, nil)
				}
			}
			if n := len(inf.GetIndexer().List()); n != 8 {
				t.Errorf("store holds %d objects, want 8", n)
			}
			checkIndexes(t, inf.GetIndexer())
		})
	}
}

// TestListArrayKeptWhileHalfIsCurrent checks the threshold: with two of
// every five listed pods replaced, three (more than half) of each page are
// current, so the store keeps pointing into the arrays (the untouched pods
// are the listed items themselves, not copies); a third replacement per
// page crosses below half and the arrays go.
func TestListArrayKeptWhileHalfIsCurrent(t *testing.T) {
	src := newPinningSource(10, 5)
	inf, w := pinningInformer(t, src, cache.SharedIndexInformerOptions[*corev1.Pod]{}, nil)
	for _, i := range []int{0, 1, 5, 6} {
		modify(t, inf, src, w, i, 20+i)
	}
	for p, alive := range src.reachable() {
		if !alive {
			t.Fatalf("the array of page %d was released with 3 of its 5 objects current: compacted below the threshold", p)
		}
	}
	for _, i := range []int{2, 3, 4, 7, 8, 9} {
		got := checkStored(t, inf, src, i, 10, nil)
		if listed := src.listed(i/5, i%5); got != listed {
			t.Errorf("p%d: the store holds a copy, want the listed item itself (no copy while the array is more than half current)", i)
		}
	}
	checkIndexes(t, inf.GetIndexer())
	modify(t, inf, src, w, 2, 30)
	modify(t, inf, src, w, 7, 31)
	for p, alive := range src.reachable() {
		if alive {
			t.Errorf("the array of page %d is still reachable with 2 of its 5 objects current", p)
		}
	}
	for _, i := range []int{3, 4, 8, 9} {
		checkStored(t, inf, src, i, 10, nil)
	}
	checkIndexes(t, inf.GetIndexer())
}

// expiredStatus is the watch error that makes the reflector relist.
func expiredStatus() *metav1.Status {
	st := apierrors.NewResourceExpired("too old resource version: 10").Status()
	return &st
}

// TestRelistReleasesOldListArrays relists (after a 410 on the watch) and
// checks that the first list's arrays go once the new list replaced their
// objects, while the new list's stay in use.
func TestRelistReleasesOldListArrays(t *testing.T) {
	for _, tt := range []struct {
		name  string
		pods2 int // pods in the second list
	}{{"everything relisted", 10}, {"half deleted", 5}} {
		t.Run(tt.name, func(t *testing.T) {
			src := newPinningSource(10, 5)
			inf, w := pinningInformer(t, src, cache.SharedIndexInformerOptions[*corev1.Pod]{}, nil)
			src.mu.Lock()
			src.rv, src.pods = 40, tt.pods2
			src.mu.Unlock()
			w.Error(expiredStatus())
			<-src.watchers // the relist finished
			eventually(t, "the relist to reach the store", func() bool {
				p, ok, _ := inf.GetIndexer().GetByKey("a/p0")
				return ok && p.ResourceVersion == "40" && len(inf.GetIndexer().ListKeys()) == tt.pods2
			})
			alive := src.reachable()
			if len(alive) != 2+(tt.pods2+4)/5 {
				t.Fatalf("%d pages served, want %d", len(alive), 2+(tt.pods2+4)/5)
			}
			for p, a := range alive {
				if p < 2 && a {
					t.Errorf("the array of the first list's page %d is still reachable after a relist replaced its objects", p)
				}
				if p >= 2 && !a {
					t.Errorf("the array of the second list's page %d was released while all its objects are current", p)
				}
			}
			for i := 0; i < tt.pods2; i++ {
				checkStored(t, inf, src, i, 40, nil)
			}
			checkIndexes(t, inf.GetIndexer())
		})
	}
}

// TestShardFilteredPagesAreCopiedOrCounted lists two pages through a
// sharded informer whose source ignores the selector: page 0 has 2 of its 6
// pods in scope (fewer than half: they are copied, and the array goes at
// once), page 1 has 4 (the store points into it, until two of them are
// replaced).
func TestShardFilteredPagesAreCopiedOrCounted(t *testing.T) {
	src := newPinningSource(12, 6)
	inScope := map[int]bool{0: true, 3: true, 6: true, 7: true, 9: true, 10: true}
	src.ns = func(i int) string {
		if inScope[i] {
			return "in"
		}
		return "out"
	}
	scope, err := sharding.NewScope(sharding.FieldNamespace, []sharding.Range{{First: sharding.Hash("in"), Last: sharding.Hash("in")}})
	if err != nil {
		t.Fatal(err)
	}
	inf, w := pinningInformer(t, src, cache.SharedIndexInformerOptions[*corev1.Pod]{ShardScope: scope}, nil)
	alive := src.reachable()
	if len(alive) != 2 || alive[0] || !alive[1] {
		t.Fatalf("arrays reachable after the sync: %v, want [false true] (page 0 copied, page 1 in use)", alive)
	}
	if keys := inf.GetIndexer().ListKeys(); len(keys) != len(inScope) {
		t.Fatalf("store keys %v, want the %d pods in scope", keys, len(inScope))
	}
	for i := range inScope {
		got := checkStored(t, inf, src, i, 10, nil)
		if listed := src.listed(i/6, i%6); i >= 6 && got != listed {
			t.Errorf("p%d: a copy, want the listed item of the page kept", i)
		}
	}
	modify(t, inf, src, w, 6, 20)
	modify(t, inf, src, w, 7, 21)
	if alive := src.reachable(); alive[1] {
		t.Errorf("page 1's array is still reachable with 2 of its 6 objects current")
	}
	checkStored(t, inf, src, 9, 10, nil)
	checkStored(t, inf, src, 10, 10, nil)
	checkIndexes(t, inf.GetIndexer())
}

// TestTransformReplacingListedItems runs transforms that return new objects
// for some listed items and mutate the others in place: when the transform
// replaced more than half of a page, its remaining items are copied (the
// array goes at once); otherwise the store points into the array. A
// transform failing once fails that list, whose array is not kept either.
func TestTransformReplacingListedItems(t *testing.T) {
	label := func(p *corev1.Pod) { p.Labels = map[string]string{"seen": "yes"} }
	for _, tt := range []struct {
		name     string
		replace  func(i int) bool
		keptPage bool
	}{
		{"most replaced", func(i int) bool { return i%5 < 3 }, false},
		{"few replaced", func(i int) bool { return i%5 == 0 }, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			src := newPinningSource(10, 5)
			var mu sync.Mutex
			failed := false
			transform := func(p *corev1.Pod) (*corev1.Pod, error) {
				mu.Lock()
				defer mu.Unlock()
				if p.Name == "p7" && !failed {
					failed = true
					return nil, errors.New("transient")
				}
				i, _ := strconv.Atoi(p.Name[1:])
				if tt.replace(i) {
					c := *p
					label(&c)
					return &c, nil
				}
				label(p)
				return p, nil
			}
			inf, w := pinningInformer(t, src, cache.SharedIndexInformerOptions[*corev1.Pod]{}, transform)
			// The first list failed at p7 (page 1); the second succeeded.
			alive := src.reachable()
			if len(alive) != 4 {
				t.Fatalf("%d pages served, want 4 (a failed list of 2, then 2)", len(alive))
			}
			want := []bool{false, false, tt.keptPage, tt.keptPage}
			if !slicesEqual(alive, want) {
				t.Fatalf("arrays reachable after the sync: %v, want %v", alive, want)
			}
			for i := 0; i < 10; i++ {
				got := checkStored(t, inf, src, i, 10, label)
				if listed := src.listed(2+i/5, i%5); tt.keptPage && !tt.replace(i) && got != listed {
					t.Errorf("p%d: a copy, want the listed item", i)
				}
			}
			checkIndexes(t, inf.GetIndexer())
			if tt.keptPage {
				// Two more replaced per page leave 2 of each array's 5
				// items current (p0 and p5 never pointed into it).
				for _, i := range []int{1, 2, 6, 7} {
					modify(t, inf, src, w, i, 20+i)
				}
				if alive := src.reachable(); alive[2] || alive[3] {
					t.Errorf("arrays reachable %v after the store kept 2 of each page's 5 items", alive)
				}
				checkStored(t, inf, src, 3, 10, label)
				checkIndexes(t, inf.GetIndexer())
			}
		})
	}
}

func slicesEqual(a, b []bool) bool { return reflect.DeepEqual(a, b) }

// TestCompactionWithConcurrentReaders churns most of a paginated list
// while readers list, look up and query both indexes and a handler reads
// every object it is handed; run with -race it checks that compaction
// replaces objects only under the store's lock. At the end every array is
// gone and the indexes are consistent.
func TestCompactionWithConcurrentReaders(t *testing.T) {
	const pods = 400
	src := newPinningSource(pods, 100)
	var handled sync.WaitGroup
	inf, w := pinningInformer(t, src, cache.SharedIndexInformerOptions[*corev1.Pod]{}, nil)
	var sink sync.Map
	read := func(p *corev1.Pod) { sink.Store(p.Name, len(p.Annotations["payload"])+len(p.Spec.NodeName)) }
	reg, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs[*corev1.Pod]{
		AddFunc:    func(p *corev1.Pod) { read(p) },
		UpdateFunc: func(old, p *corev1.Pod) { read(old); read(p); handled.Done() },
		DeleteFunc: func(p *corev1.Pod) { read(p) },
	})
	if err != nil {
		t.Fatal(err)
	}
	waitSynced(t, reg)
	stop := make(chan struct{})
	var readers sync.WaitGroup
	for r := 0; r < 3; r++ {
		readers.Go(func() {
			idx := inf.GetIndexer()
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				for _, p := range idx.List() {
					read(p)
				}
				objs, _ := idx.ByIndex("node", "node"+strconv.Itoa(n%3))
				for _, p := range objs {
					read(p)
				}
				objs, _ = idx.ByIndex(cache.NamespaceIndex, "a")
				for _, p := range objs {
					read(p)
				}
				if p, ok, _ := idx.GetByKey("a/p" + strconv.Itoa(n%pods)); ok {
					read(p)
				}
			}
		})
	}
	// In chunks: the fake watcher's buffer holds 100 events.
	for i := 0; i < pods; i++ {
		if i%5 < 3 {
			handled.Add(1)
			p := src.pod(i, 100+i)
			w.Modify(&p)
		}
		if i%100 == 99 {
			handled.Wait()
		}
	}
	handled.Wait()
	close(stop)
	readers.Wait()
	for p, alive := range src.reachable() {
		if alive {
			t.Errorf("page %d's array is still reachable after 60%% of its objects were replaced", p)
		}
	}
	for i := 0; i < pods; i++ {
		if i%5 < 3 {
			checkStored(t, inf, src, i, 100+i, nil)
		} else {
			checkStored(t, inf, src, i, 10, nil)
		}
	}
	checkIndexes(t, inf.GetIndexer())
}
