package dynamicinformer_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	cgdynamicinformer "k8s.io/client-go/dynamic/dynamicinformer"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	clienttesting "k8s.io/client-go/testing"
	toolscache "k8s.io/client-go/tools/cache"

	"github.com/typedinformer/typedinformer/clientgo/dynamicinformer"
)

var widgets = schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}

func widget(ns, name string, n int64) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "example.com/v1", "kind": "Widget",
		"metadata": map[string]any{"namespace": ns, "name": name},
		"spec":     map[string]any{"n": n},
	}}
}

// transcript records a handler's calls, one line each.
type transcript struct {
	mu    sync.Mutex
	calls []string
}

func describe(obj any) string {
	switch o := obj.(type) {
	case *unstructured.Unstructured:
		n, _, _ := unstructured.NestedInt64(o.Object, "spec", "n")
		return fmt.Sprintf("%s/%s rv=%s n=%d", o.GetNamespace(), o.GetName(), o.GetResourceVersion(), n)
	case toolscache.DeletedFinalStateUnknown:
		return "tombstone(" + o.Key + ": " + describe(o.Obj) + ")"
	}
	return fmt.Sprintf("%T", obj)
}

func (t *transcript) add(s string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.calls = append(t.calls, s)
}

func (t *transcript) lines() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Clone(t.calls)
}

func (t *transcript) handler() toolscache.ResourceEventHandler {
	return toolscache.ResourceEventHandlerDetailedFuncs{
		AddFunc:    func(obj any, initial bool) { t.add(fmt.Sprintf("add %s initial=%v", describe(obj), initial)) },
		UpdateFunc: func(o, n any) { t.add(fmt.Sprintf("update %s -> %s", describe(o), describe(n))) },
		DeleteFunc: func(obj any) { t.add("delete " + describe(obj)) },
	}
}

// normalized sorts the leading run of initial adds, whose order is that of
// the cache (a map in client-go) for a handler added late.
func normalized(lines []string) []string {
	out := slices.Clone(lines)
	i := 0
	for i < len(out) && strings.HasSuffix(out[i], "initial=true") {
		i++
	}
	slices.Sort(out[:i])
	return out
}

// controlledWatches wraps the fake's watches so that the test can drop
// their events (as a broken connection loses them) and end them with 410
// Gone, which makes both informers relist.
type controlledWatches struct {
	mu      sync.Mutex
	paused  bool
	dropped int // events dropped while paused
	open    map[*controlledWatch]struct{}
	started int
}

type controlledWatch struct {
	inner  watch.Interface
	out    chan watch.Event
	gone   chan struct{}
	stop   chan struct{}
	once   sync.Once
	parent *controlledWatches
	done   chan struct{}
}

func (c *controlledWatches) wrap(inner watch.Interface) watch.Interface {
	w := &controlledWatch{inner: inner, out: make(chan watch.Event), gone: make(chan struct{}), stop: make(chan struct{}), parent: c, done: make(chan struct{})}
	c.mu.Lock()
	c.open[w] = struct{}{}
	c.started++
	c.mu.Unlock()
	go w.run()
	return w
}

// drop reports whether to drop an event, counting it.
func (c *controlledWatches) drop() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.paused {
		c.dropped++
	}
	return c.paused
}

func (c *controlledWatches) droppedEvents() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.dropped
}

func (c *controlledWatches) setPaused(p bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.paused = p
}

func (c *controlledWatches) counts() (open, started int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.open), c.started
}

// expireAll ends every open watch with 410 Gone.
func (c *controlledWatches) expireAll() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for w := range c.open {
		close(w.gone)
		delete(c.open, w)
	}
}

func (w *controlledWatch) run() {
	defer close(w.done)
	defer close(w.out)
	defer w.inner.Stop()
	defer func() {
		w.parent.mu.Lock()
		delete(w.parent.open, w)
		w.parent.mu.Unlock()
	}()
	for {
		select {
		case <-w.stop:
			return
		case <-w.gone:
			st := metav1.Status{Status: metav1.StatusFailure, Code: 410, Reason: metav1.StatusReasonExpired, Message: "too old resource version"}
			select {
			case w.out <- watch.Event{Type: watch.Error, Object: &st}:
			case <-w.stop:
			}
			return
		case ev, ok := <-w.inner.ResultChan():
			if !ok {
				return
			}
			if w.parent.drop() {
				continue
			}
			select {
			case w.out <- ev:
			case <-w.stop:
				return
			}
		}
	}
}

func (w *controlledWatch) Stop() {
	w.once.Do(func() { close(w.stop) })
	<-w.done
}

func (w *controlledWatch) ResultChan() <-chan watch.Event { return w.out }

// informerUnderTest is what the script drives: client-go's factory or ours.
type informerUnderTest struct {
	name    string
	factory cgdynamicinformer.DynamicSharedInformerFactory
	first   transcript
	late    transcript
}

// TestSameHandlerCallsAsClientGo runs client-go's dynamic informer factory
// and this package's over one fake dynamic client and requires the same
// handler calls in the same order: the initial list, adds, updates and
// deletes from the watch, a relist after 410 Gone that finds changes the
// broken watch lost (updates, an add, and a delete as a tombstone), and a
// handler added late.
func TestSameHandlerCallsAsClientGo(t *testing.T) {
	scheme := runtime.NewScheme()
	client := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(scheme, map[schema.GroupVersionResource]string{widgets: "WidgetList"},
		widget("a", "w1", 1), widget("a", "w2", 2), widget("b", "w3", 3))
	watches := &controlledWatches{open: map[*controlledWatch]struct{}{}}
	tracker := client.Tracker()
	client.PrependWatchReactor("*", func(action clienttesting.Action) (bool, watch.Interface, error) {
		wa := action.(clienttesting.WatchActionImpl)
		w, err := tracker.Watch(action.GetResource(), action.GetNamespace(), wa.ListOptions)
		if err != nil {
			return true, nil, err
		}
		return true, watches.wrap(w), nil
	})
	res := client.Resource(widgets)
	ctx := context.Background()

	sides := []*informerUnderTest{
		{name: "client-go", factory: cgdynamicinformer.NewDynamicSharedInformerFactory(client, 0)},
		{name: "typedinformer", factory: dynamicinformer.NewDynamicSharedInformerFactory(client, 0)},
	}
	stop := make(chan struct{})
	for _, s := range sides {
		if _, err := s.factory.ForResource(widgets).Informer().AddEventHandler(s.first.handler()); err != nil {
			t.Fatal(err)
		}
		s.factory.Start(stop)
	}
	defer func() {
		for _, s := range sides {
			s.factory.Shutdown()
		}
	}()
	defer close(stop)
	for _, s := range sides {
		if synced := s.factory.WaitForCacheSync(stop); !synced[widgets] {
			t.Fatalf("%s: not synced", s.name)
		}
	}
	// waitFor waits until both sides' transcripts have first and late
	// calls, and both watches are open.
	waitFor := func(step string, first, late, watchesStarted int) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for {
			ok := true
			for _, s := range sides {
				ok = ok && len(s.first.lines()) >= first && len(s.late.lines()) >= late
			}
			open, started := watches.counts()
			if ok && open == 2 && started >= watchesStarted {
				return
			}
			if time.Now().After(deadline) {
				for _, s := range sides {
					t.Logf("%s:\n  %s\n late:\n  %s", s.name, strings.Join(s.first.lines(), "\n  "), strings.Join(s.late.lines(), "\n  "))
				}
				t.Fatalf("%s: timed out waiting for %d calls, %d late calls and 2 open watches (%d open, %d started)", step, first, late, open, started)
			}
			time.Sleep(time.Millisecond)
		}
	}
	waitFor("initial list", 3, 0, 2)

	mustDo := func(_ any, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	// Watch events.
	mustDo(res.Namespace("a").Create(ctx, widget("a", "w4", 4), metav1.CreateOptions{}))
	mustDo(res.Namespace("a").Update(ctx, widget("a", "w1", 10), metav1.UpdateOptions{}))
	mustDo(nil, res.Namespace("b").Delete(ctx, "w3", metav1.DeleteOptions{}))
	waitFor("watch events", 6, 0, 2)

	// A late handler gets the cache as initial adds.
	for _, s := range sides {
		if _, err := s.factory.ForResource(widgets).Informer().AddEventHandler(s.late.handler()); err != nil {
			t.Fatal(err)
		}
	}
	waitFor("late handler", 6, 3, 2)

	// Changes the watches lose, then 410 Gone: a relist finds them.
	watches.setPaused(true)
	mustDo(res.Namespace("a").Update(ctx, widget("a", "w2", 20), metav1.UpdateOptions{}))
	mustDo(nil, res.Namespace("a").Delete(ctx, "w4", metav1.DeleteOptions{}))
	mustDo(res.Namespace("b").Create(ctx, widget("b", "w5", 5), metav1.CreateOptions{}))
	deadline := time.Now().Add(30 * time.Second)
	for watches.droppedEvents() < 6 { // 3 changes, 2 watches
		if time.Now().After(deadline) {
			t.Fatalf("the watches dropped %d events, want 6", watches.droppedEvents())
		}
		time.Sleep(time.Millisecond)
	}
	watches.setPaused(false)
	watches.expireAll()
	waitFor("relist", 10, 7, 4)

	// The new watches deliver.
	mustDo(res.Namespace("b").Update(ctx, widget("b", "w5", 50), metav1.UpdateOptions{}))
	waitFor("after the relist", 11, 8, 4)

	want := sides[0]
	for _, s := range sides[1:] {
		if g, w := s.first.lines(), want.first.lines(); !slices.Equal(g, w) {
			t.Errorf("handler calls differ:\n%s:\n  %s\n%s:\n  %s", s.name, strings.Join(g, "\n  "), want.name, strings.Join(w, "\n  "))
		}
		if g, w := normalized(s.late.lines()), normalized(want.late.lines()); !slices.Equal(g, w) {
			t.Errorf("late handler calls differ:\n%s:\n  %s\n%s:\n  %s", s.name, strings.Join(g, "\n  "), want.name, strings.Join(w, "\n  "))
		}
		gl, err := s.factory.ForResource(widgets).Lister().List(labels.Everything())
		if err != nil {
			t.Fatal(err)
		}
		wl, _ := want.factory.ForResource(widgets).Lister().List(labels.Everything())
		if len(gl) != len(wl) || len(gl) != 3 {
			t.Errorf("lister holds %d objects, client-go's %d, want 3", len(gl), len(wl))
		}
	}
	t.Logf("client-go's calls:\n  %s", strings.Join(want.first.lines(), "\n  "))
}
