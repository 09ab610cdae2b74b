package informers_test

import (
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/typedinformer/typedinformer/internal/testutil"
	"github.com/typedinformer/typedinformer/runtime/cache"
	"github.com/typedinformer/typedinformer/runtime/informers"
)

// awaitChecker waits for c's channel, failing after testutil.WaitLimit.
func awaitChecker(t *testing.T, c cache.DoneChecker) {
	t.Helper()
	select {
	case <-c.Done():
	case <-time.After(testutil.WaitLimit):
		t.Fatalf("%s: not done after %v", c.Name(), testutil.WaitLimit)
	}
}

// TestFactoryWithNamespacesHasSyncedCheckers checks the checkers of an
// informer over several namespaces: the informer's is done once every
// namespace synced, a registration's once its handler returned from the
// initial adds of every namespace, also for a handler added later; each
// agrees with its HasSynced.
func TestFactoryWithNamespacesHasSyncedCheckers(t *testing.T) {
	pods := newPodSource(newPod("a", "p1"), newPod("b", "p2"), newPod("c", "p3"))
	f := informers.NewFactory(0, informers.WithNamespaces("a", "b"))
	ctx := factoryContext(t, f)
	inf := informers.InformerFor(f, true, pods.newInformer)

	gate, entered := make(chan struct{}), make(chan struct{}, 10)
	var openGate sync.Once
	release := func() { openGate.Do(func() { close(gate) }) }
	t.Cleanup(release) // a failed test must not leave the handler blocked
	gated := cache.ResourceEventHandlerDetailedFuncs[*corev1.Pod]{AddFunc: func(_ *corev1.Pod, initial bool) {
		if initial {
			entered <- struct{}{}
			<-gate
		}
	}}
	reg, err := inf.AddEventHandler(gated)
	if err != nil {
		t.Fatal(err)
	}
	if cache.IsDone(inf.HasSyncedChecker()) || cache.IsDone(reg.HasSyncedChecker()) {
		t.Fatal("checkers done before Start")
	}
	f.Start(ctx)
	awaitChecker(t, inf.HasSyncedChecker())
	if !inf.HasSynced() {
		t.Fatal("informer checker done, HasSynced false")
	}
	<-entered
	if cache.IsDone(reg.HasSyncedChecker()) || reg.HasSynced() {
		t.Fatal("registration synced while its handler is in an initial add")
	}
	release()
	awaitChecker(t, reg.HasSyncedChecker())
	if !reg.HasSynced() {
		t.Fatal("registration checker done, HasSynced false")
	}

	late, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs[*corev1.Pod]{})
	if err != nil {
		t.Fatal(err)
	}
	awaitChecker(t, late.HasSyncedChecker())
	if !late.HasSynced() {
		t.Fatal("late registration checker done, HasSynced false")
	}
}
