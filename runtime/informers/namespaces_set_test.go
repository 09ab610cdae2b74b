package informers_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/typedinformer/typedinformer/internal/testutil"
	"github.com/typedinformer/typedinformer/runtime/cache"
	"github.com/typedinformer/typedinformer/runtime/informers"
)

// exitLog is a callLog handler that implements cache.ScopeExitHandler.
type exitLog struct {
	cache.ResourceEventHandler[*corev1.Pod]
	log *callLog
}

func (e exitLog) OnScopeExit(p *corev1.Pod) { e.log.add("exit " + p.Namespace + "/" + p.Name) }

// TestFactorySetNamespacesAtRunTime moves a running factory from
// namespaces a and b to b and c: c starts its own list/watch, b's is not
// restarted, a's stops; a's objects leave the cache and each kind of
// handler is told as documented, exactly once; c's arrive as non-initial
// adds; HasSynced never turns false.
func TestFactorySetNamespacesAtRunTime(t *testing.T) {
	pods := newPodSource(newPod("a", "p1"), newPod("b", "p2"), newPod("c", "p3"))
	f := informers.NewFactory(0, informers.WithNamespaces("a", "b"))
	ctx := factoryContext(t, f)
	inf := informers.InformerFor(f, true, pods.newInformer)
	var plain, opted, exits callLog
	var regs []cache.ResourceEventHandlerRegistration
	for _, h := range []cache.ResourceEventHandler[*corev1.Pod]{plain.handler(), cache.IgnoreScopeExits(opted.handler()), exitLog{exits.handler(), &exits}} {
		reg, err := inf.AddEventHandler(h)
		if err != nil {
			t.Fatal(err)
		}
		regs = append(regs, reg)
	}
	f.Start(ctx)
	waitFactory(t, f)
	for _, r := range regs {
		testutil.Eventually(t, "registration synced", r.HasSynced)
	}

	everUnsynced := testutil.EverFalse(t, func() bool { return inf.HasSynced() && regs[0].HasSynced() })
	if err := f.SetNamespaces(ctx, "c", "b", "c"); err != nil {
		t.Fatal(err)
	}
	if got := f.Namespaces(); !slices.Equal(got, []string{"b", "c"}) {
		t.Errorf("Namespaces() = %q", got)
	}
	testutil.Eventually(t, "c listed", func() bool { return pods.listCalls("c") == 1 })
	testutil.Eventually(t, "store to hold b and c", func() bool { return slices.Equal(storeKeys(inf), []string{"b/p2", "c/p3"}) })
	pods.add(newPod("c", "new"))
	testutil.Eventually(t, "the live add in c", func() bool {
		return slices.Contains(plain.sorted(), "add c/new") && slices.Contains(opted.sorted(), "add c/new") && slices.Contains(exits.sorted(), "add c/new")
	})
	if everUnsynced() {
		t.Error("HasSynced turned false during SetNamespaces")
	}
	if a, b := pods.listCalls("a"), pods.listCalls("b"); a != 1 || b != 1 {
		t.Errorf("lists of a, b = %d, %d; want 1 each (b not restarted)", a, b)
	}
	base := []string{"add a/p1 initial", "add b/p2 initial", "add c/new", "add c/p3"}
	for name, tc := range map[string]struct {
		log  *callLog
		want []string
	}{
		"plain": {&plain, append(slices.Clone(base), "delete a/p1 unknown")},
		"opted": {&opted, base},
		"exits": {&exits, append(slices.Clone(base), "exit a/p1")},
	} {
		want := slices.Clone(tc.want)
		slices.Sort(want)
		if got := tc.log.sorted(); !slices.Equal(got, want) {
			t.Errorf("%s handler: %q, want %q", name, got, want)
		}
	}
	if name := inf.Name(); !strings.Contains(name, "b,c") {
		t.Errorf("Name() = %q", name)
	}
	if _, err := inf.GetIndexer().ByIndex(cache.NamespaceIndex, "a"); err != nil {
		t.Error(err)
	}
}

func TestFactorySetNamespacesRefusesWhatItCannotDo(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		opts []informers.Option
		ns   []string
		want string
	}{
		{"no namespace", []informers.Option{informers.WithNamespaces("a")}, nil, "at least one namespace"},
		{"all namespaces", []informers.Option{informers.WithNamespaces("a")}, []string{"b", metav1.NamespaceAll}, "NamespaceAll"},
		{"factory over every namespace", nil, []string{"a"}, "not built with WithNamespaces"},
		{"factory with WithNamespace", []informers.Option{informers.WithNamespace("a")}, []string{"b"}, "not built with WithNamespaces"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := informers.NewFactory(0, tc.opts...)
			if err := f.SetNamespaces(ctx, tc.ns...); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one containing %q", err, tc.want)
			}
		})
	}
	f := informers.NewFactory(0, informers.WithNamespaces("a"))
	f.Shutdown()
	if err := f.SetNamespaces(ctx, "b"); err == nil || !strings.Contains(err.Error(), informers.ErrShutdown.Error()) {
		t.Fatalf("after Shutdown: err = %v", err)
	}
}

// TestFactorySetNamespacesReportsANamespaceItCannotBuild: a NewInformerFunc
// that fails for one namespace fails that namespace only, by name; the
// others are applied and the cache never mentions the failed one.
func TestFactorySetNamespacesReportsANamespaceItCannotBuild(t *testing.T) {
	pods := newPodSource(newPod("a", "p1"), newPod("b", "p2"))
	f := informers.NewFactory(0, informers.WithNamespaces("a"))
	inf := informers.InformerFor(f, true, func(ns string, resync time.Duration) cache.SharedIndexInformer[*corev1.Pod] {
		if ns == "bad" {
			return nil
		}
		return pods.newInformer(ns, resync)
	})
	err := f.SetNamespaces(context.Background(), "a", "b", "bad")
	if err == nil || !strings.Contains(err.Error(), `"bad"`) {
		t.Fatalf("err = %v, want one naming namespace \"bad\"", err)
	}
	ctx := factoryContext(t, f)
	f.Start(ctx)
	waitFactory(t, f)
	if got := storeKeys(inf); !slices.Equal(got, []string{"a/p1", "b/p2"}) {
		t.Fatalf("store = %q", got)
	}
	if name := inf.Name(); strings.Contains(name, "bad") {
		t.Fatalf("Name() = %q mentions the failed namespace", name)
	}
}
