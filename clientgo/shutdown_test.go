package clientgo_test

import (
	"context"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	toolscache "k8s.io/client-go/tools/cache"
)

// closed reports whether a registration's ShutdownChan is closed, without
// waiting; a registration without one reports so.
func closed(reg toolscache.ResourceEventHandlerRegistration) string {
	s, ok := reg.(interface{ ShutdownChan() <-chan struct{} })
	if !ok {
		return fmt.Sprintf("%T has no ShutdownChan", reg)
	}
	select {
	case <-s.ShutdownChan():
		return "closed"
	default:
		return "open"
	}
}

// started reports client-go's HasStarted (a method of its informer type,
// not of the interface).
func started(inf toolscache.SharedIndexInformer) string {
	s, ok := inf.(interface{ HasStarted() bool })
	if !ok {
		return fmt.Sprintf("%T has no HasStarted", inf)
	}
	return fmt.Sprint(s.HasStarted())
}

// shutdownScenario drives client-go's ShutDownEventHandler and the
// registrations' ShutdownChan: a typed handler shut down before Run, a
// handler removed while one of its calls is under way (its channel closes
// only once that call returns, and the next event never reaches it), and
// a handler left registered until the informer stops.
func shutdownScenario(t *testing.T, im impl) []string {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	lw := &scriptedLW{
		lists:   []runtime.Object{podList("10", pod("a", "a", "1", "1"), pod("a", "b", "2", "1"))},
		watches: make(chan *watch.RaceFreeFakeWatcher, 4),
	}
	inf := im.new(lw, &corev1.Pod{}, 0, toolscache.Indexers{})
	var out []string
	note := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	note("started before Run: %s", started(inf))

	early, err := im.typed(inf).AddTypedEventHandler(typedRecorder(&transcript{}))
	if err != nil {
		t.Fatal(err)
	}
	note("typed, never run: %s", closed(early))
	note("typed, shut down before Run: err=%v, %s", toolscache.ShutDownEventHandler(inf, early), closed(early))

	kept := &transcript{}
	keptReg, err := inf.AddEventHandler(recorder(kept))
	if err != nil {
		t.Fatal(err)
	}
	blocked, entered, release := &transcript{}, make(chan struct{}), make(chan struct{})
	blockedReg, err := inf.AddEventHandler(toolscache.ResourceEventHandlerDetailedFuncs{
		AddFunc: func(obj any, initial bool) { blocked.add("add %s initial=%v", describe(obj), initial) },
		UpdateFunc: func(o, n any) {
			close(entered)
			<-release
			blocked.add("update %s -> %s returns", describe(o), describe(n))
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { defer close(done); inf.RunWithContext(ctx) }()
	defer func() { cancel(); <-done }()
	w := <-lw.watches
	kept.waitLen(t, 2)
	blocked.waitLen(t, 2)
	note("started after Run: %s", started(inf))

	w.Modify(pod("a", "a", "3", "2"))
	<-entered
	note("remove during a call: err=%v, %s", inf.RemoveEventHandler(blockedReg), closed(blockedReg))
	w.Modify(pod("a", "b", "4", "2"))
	kept.waitLen(t, 4)
	close(release)
	<-blockedReg.(interface{ ShutdownChan() <-chan struct{} }).ShutdownChan()
	note("call returned: %s", closed(blockedReg))
	note("shut down again: err=%v", toolscache.ShutDownEventHandler(inf, blockedReg))
	note("kept while running: %s", closed(keptReg))

	cancel()
	<-done
	note("kept after stop: %s", closed(keptReg))
	note("shut down after stop: err=%v", toolscache.ShutDownEventHandler(inf, keptReg))
	out = append(out, "blocked:")
	out = append(out, blocked.snapshot()...)
	out = append(out, "kept:")
	return append(out, kept.snapshot()...)
}

func TestShutDownEventHandlerMatchesClientGo(t *testing.T) {
	got := map[string]map[string][]string{}
	for _, im := range impls {
		got[im.name] = map[string][]string{"transcript": shutdownScenario(t, im)}
	}
	compare(t, got)
}
