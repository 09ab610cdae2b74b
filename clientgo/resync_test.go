package clientgo_test

import (
	"context"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	corev1 "k8s.io/api/core/v1"
)

// TestResyncMatchesClientGo: a handler with a resync period gets each cached
// object again as an update with an unchanged resourceVersion; a handler
// without one stops getting such updates once resync checks run
// (client-go's rule). It waits for one real resync (client-go's informer
// takes no clock), at the minimum period of one second.
func TestResyncMatchesClientGo(t *testing.T) {
	got := map[string]map[string][]string{}
	for _, im := range impls {
		lw := &scriptedLW{lists: []runtime.Object{podList("10", pod("a", "p1", "1", "1"), pod("a", "p2", "2", "1"))},
			watches: make(chan *watch.RaceFreeFakeWatcher, 4)}
		// client-go's informer resyncs handlers only when its own default
		// period is set.
		inf := im.new(lw, &corev1.Pod{}, time.Second, nil)
		resyncing, quiet := &transcript{}, &transcript{}
		if _, err := inf.AddEventHandler(recorder(resyncing)); err != nil {
			t.Fatal(err)
		}
		if _, err := inf.AddEventHandlerWithResyncPeriod(recorder(quiet), 0); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan struct{})
		go func() { defer close(done); inf.RunWithContext(ctx) }()
		w := <-lw.watches
		resyncing.waitLen(t, 4)
		// An event after the resync: once the quiet handler has it, it
		// would have had the resync's updates before it.
		w.Add(pod("a", "p3", "11", "1"))
		quiet.waitLen(t, 3)
		cancel()
		<-done
		got[im.name] = map[string][]string{
			"resyncing": sortBlock(sortBlock(resyncing.snapshot()[:4], 0, 2), 2, 4),
			"quiet":     sortBlock(quiet.snapshot(), 0, 2),
		}
	}
	compare(t, got)
}
