package clientgo_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/fake"
	toolscache "k8s.io/client-go/tools/cache"

	"github.com/typedinformer/typedinformer/clientgo"
)

// newInformerFunc is the constructor under test: client-go's or ours.
type newInformerFunc func(toolscache.ListerWatcher, runtime.Object, time.Duration, toolscache.Indexers) toolscache.SharedIndexInformer

// typedView is the matching TypedSharedIndexInformer view.
type typedView func(toolscache.SharedIndexInformer) toolscache.TypedSharedIndexInformer[*corev1.Pod]

type impl struct {
	name  string
	new   newInformerFunc
	typed typedView
}

var impls = []impl{
	{"client-go", toolscache.NewSharedIndexInformer, toolscache.NewTypedSharedIndexInformer[*corev1.Pod]},
	{"clientgo", clientgo.NewSharedIndexInformer, clientgo.NewTypedSharedIndexInformer[*corev1.Pod]},
}

// transcript records handler calls as lines.
type transcript struct {
	mu    sync.Mutex
	lines []string
}

func (t *transcript) add(format string, args ...any) {
	t.mu.Lock()
	t.lines = append(t.lines, fmt.Sprintf(format, args...))
	t.mu.Unlock()
}

func (t *transcript) snapshot() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Clone(t.lines)
}

// waitLen waits until the transcript has n lines (or fails the test after
// a generous deadline, which only a broken informer reaches).
func (t *transcript) waitLen(tb testing.TB, n int) {
	tb.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for len(t.snapshot()) < n {
		if time.Now().After(deadline) {
			tb.Fatalf("waited for %d handler calls, got %d:\n%s", n, len(t.snapshot()), strings.Join(t.snapshot(), "\n"))
		}
		time.Sleep(time.Millisecond)
	}
}

func describe(obj any) string {
	switch o := obj.(type) {
	case toolscache.DeletedFinalStateUnknown:
		return fmt.Sprintf("tombstone(%s, %s)", o.Key, describe(o.Obj))
	case *corev1.Pod:
		return fmt.Sprintf("%s/%s rv=%q label=%q", o.Namespace, o.Name, o.ResourceVersion, o.Labels["v"])
	default:
		return fmt.Sprintf("%T", obj)
	}
}

// recorder is an untyped client-go handler.
func recorder(t *transcript) toolscache.ResourceEventHandler {
	return toolscache.ResourceEventHandlerDetailedFuncs{
		AddFunc:    func(obj any, initial bool) { t.add("add %s initial=%v", describe(obj), initial) },
		UpdateFunc: func(o, n any) { t.add("update %s -> %s", describe(o), describe(n)) },
		DeleteFunc: func(obj any) { t.add("delete %s", describe(obj)) },
	}
}

// typedRecorder is a client-go typed handler.
func typedRecorder(t *transcript) toolscache.TypedResourceEventHandler[*corev1.Pod] {
	return toolscache.TypedResourceEventHandlerDetailedFuncs[*corev1.Pod]{
		AddFunc:    func(obj *corev1.Pod, initial bool) { t.add("add %s initial=%v", describe(obj), initial) },
		UpdateFunc: func(o, n *corev1.Pod) { t.add("update %s -> %s", describe(o), describe(n)) },
		DeleteFunc: func(d toolscache.DeletedObject[*corev1.Pod]) {
			if d.FinalStateUnknown != nil {
				t.add("delete %s unknown=%s obj=%s", describe(d.OptionalObj), d.FinalStateUnknown.Key, describe(d.FinalStateUnknown.Obj))
				return
			}
			t.add("delete %s", describe(d.OptionalObj))
		},
	}
}

func pod(ns, name, rv, label string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, ResourceVersion: rv, Labels: map[string]string{"v": label}}}
}

func waitFor(tb testing.TB, what string, cond func() bool) {
	tb.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			tb.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// sortBlock sorts lines[from:to]: the order of a replay of the cache to a
// late handler, and of a fake clientset's list, is a map's order.
func sortBlock(lines []string, from, to int) []string {
	out := slices.Clone(lines)
	slices.Sort(out[from:to])
	return out
}

// fakeScenario runs one scenario on a client-go fake clientset and returns
// the transcripts of its handlers.
func fakeScenario(t *testing.T, im impl) map[string][]string {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	client := fake.NewClientset(pod("a", "p1", "", "1"), pod("a", "p2", "", "1"))
	// Changes are made once the informer watches: the fake clientset
	// sends a watch only what happens after it started.
	watching := make(chan struct{}, 1)
	lw := toolscache.ToListWatcherWithWatchListSemantics(&toolscache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			return client.CoreV1().Pods("").List(ctx, opts)
		},
		WatchFuncWithContext: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			w, err := client.CoreV1().Pods("").Watch(ctx, opts)
			select {
			case watching <- struct{}{}:
			default:
			}
			return w, err
		},
	}, client)
	inf := im.new(lw, &corev1.Pod{}, 0, toolscache.Indexers{toolscache.NamespaceIndex: toolscache.MetaNamespaceIndexFunc})
	first, late, typed := &transcript{}, &transcript{}, &transcript{}
	reg1, err := inf.AddEventHandler(recorder(first))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := im.typed(inf).AddTypedEventHandler(typedRecorder(typed)); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { defer close(done); inf.RunWithContext(ctx) }()
	defer func() { cancel(); <-done }()
	<-inf.HasSyncedChecker().Done()
	<-reg1.HasSyncedChecker().Done()
	if !inf.HasSynced() || !reg1.HasSynced() {
		t.Fatalf("HasSynced false after the DoneCheckers closed")
	}
	first.waitLen(t, 2)
	<-watching

	pods := client.CoreV1().Pods("a")
	if _, err := pods.Create(ctx, pod("a", "p3", "", "1"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// The fake sets no resourceVersion: the update keeps "", and must
	// still reach every handler.
	if _, err := pods.Update(ctx, pod("a", "p1", "", "2"), metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := pods.Delete(ctx, "p2", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	first.waitLen(t, 5)
	typed.waitLen(t, 5)

	reg2, err := inf.AddEventHandler(recorder(late))
	if err != nil {
		t.Fatal(err)
	}
	<-reg2.HasSyncedChecker().Done()
	late.waitLen(t, 2)
	if err := inf.RemoveEventHandler(reg1); err != nil {
		t.Fatal(err)
	}
	if err := inf.RemoveEventHandler(reg1); err != nil {
		t.Fatalf("removing a registration twice: %v", err)
	}
	if _, err := pods.Update(ctx, pod("a", "p3", "", "2"), metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	late.waitLen(t, 3)
	typed.waitLen(t, 6)

	keys := inf.GetStore().ListKeys()
	slices.Sort(keys)
	byNS, err := inf.GetIndexer().ByIndex(toolscache.NamespaceIndex, "a")
	if err != nil {
		t.Fatal(err)
	}
	return map[string][]string{
		"first": sortBlock(first.snapshot(), 0, 2),
		"typed": sortBlock(typed.snapshot(), 0, 2),
		"late":  sortBlock(late.snapshot(), 0, 2),
		"store": append(keys, fmt.Sprintf("byNamespace(a)=%d", len(byNS))),
	}
}

func TestFakeClientsetTranscriptsMatchClientGo(t *testing.T) {
	got := map[string]map[string][]string{}
	for _, im := range impls {
		got[im.name] = fakeScenario(t, im)
	}
	compare(t, got)
}

func compare(t *testing.T, got map[string]map[string][]string) {
	t.Helper()
	want := got[impls[0].name]
	for _, im := range impls[1:] {
		for name, lines := range want {
			if !slices.Equal(got[im.name][name], lines) {
				t.Errorf("%s: handler %q got\n  %s\nwant (client-go)\n  %s", im.name, name,
					strings.Join(got[im.name][name], "\n  "), strings.Join(lines, "\n  "))
			}
		}
	}
	if testing.Verbose() {
		for name, lines := range want {
			t.Logf("%s:\n  %s", name, strings.Join(lines, "\n  "))
		}
	}
}

// scriptedLW serves scripted lists, one per List call (the last one
// repeats), and hands each watch to the test. It cannot stream a
// watch-list, and says so as client-go's fake clientsets do.
type scriptedLW struct {
	mu      sync.Mutex
	lists   []runtime.Object
	calls   int
	watches chan *watch.RaceFreeFakeWatcher
}

func (l *scriptedLW) List(metav1.ListOptions) (runtime.Object, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	i := min(l.calls, len(l.lists)-1)
	l.calls++
	return l.lists[i].DeepCopyObject(), nil
}

func (l *scriptedLW) Watch(metav1.ListOptions) (watch.Interface, error) {
	w := watch.NewRaceFreeFake()
	l.watches <- w
	return w, nil
}

func (l *scriptedLW) IsWatchListSemanticsUnSupported() bool { return true }

func podList(rv string, pods ...*corev1.Pod) *corev1.PodList {
	l := &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: rv}}
	for _, p := range pods {
		l.Items = append(l.Items, *p)
	}
	return l
}

// scriptedScenario: an initial list, watch events (including an update that
// keeps the resourceVersion), a 410 Gone, a relist that misses a delete (a
// tombstone) and finds one object unchanged, and a watch delete of a key the
// cache never held.
func scriptedScenario(t *testing.T, im impl) map[string][]string {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	lw := &scriptedLW{
		lists: []runtime.Object{
			podList("10", pod("a", "a", "1", "1"), pod("a", "b", "2", "1"), pod("b", "c", "3", "1")),
			podList("20", pod("a", "a", "12", "2"), pod("b", "d", "14", "2"), pod("b", "e", "15", "1")),
		},
		watches: make(chan *watch.RaceFreeFakeWatcher, 4),
	}
	inf := im.new(lw, &corev1.Pod{}, 0, toolscache.Indexers{})
	untypedT, typedT := &transcript{}, &transcript{}
	if _, err := inf.AddEventHandler(recorder(untypedT)); err != nil {
		t.Fatal(err)
	}
	if _, err := im.typed(inf).AddTypedEventHandler(typedRecorder(typedT)); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { defer close(done); inf.RunWithContext(ctx) }()
	defer func() { cancel(); <-done }()

	w := <-lw.watches
	w.Add(pod("b", "d", "11", "1"))
	w.Modify(pod("a", "a", "12", "2"))
	w.Delete(pod("a", "b", "13", "1"))
	w.Modify(pod("b", "c", "3", "2")) // same resourceVersion
	untypedT.waitLen(t, 7)
	w.Error(&apierrors.NewResourceExpired("too old resource version").ErrStatus)
	w2 := <-lw.watches
	untypedT.waitLen(t, 11)
	w2.Delete(pod("b", "e", "21", "1"))
	w2.Delete(pod("b", "never-cached", "22", "1"))
	w2.Add(pod("a", "sentinel", "23", "1"))
	untypedT.waitLen(t, 14)
	typedT.waitLen(t, 14)
	keys := inf.GetStore().ListKeys()
	slices.Sort(keys)
	return map[string][]string{
		"untyped": untypedT.snapshot(),
		"typed":   typedT.snapshot(),
		"store":   keys,
		"rv":      {inf.LastSyncResourceVersion()},
	}
}

func TestScriptedTranscriptsMatchClientGo(t *testing.T) {
	got := map[string]map[string][]string{}
	for _, im := range impls {
		got[im.name] = scriptedScenario(t, im)
	}
	compare(t, got)
}
