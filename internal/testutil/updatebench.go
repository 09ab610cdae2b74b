package testutil

import (
	"strconv"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/watch"
)

// PodGenerations returns the updates of the informer update-throughput
// benchmarks: a copy of every Pod of list with resourceVersion "2", then
// one of every Pod with resourceVersion "3". Sent round-robin, consecutive
// updates of a key always change its resourceVersion, so none is taken for
// a resync. list is not modified.
func PodGenerations(list *corev1.PodList) []*corev1.Pod {
	n := len(list.Items)
	updates := make([]*corev1.Pod, 2*n)
	for i := range updates {
		p := list.Items[i%n].DeepCopy()
		p.ResourceVersion = strconv.Itoa(2 + i/n)
		updates[i] = p
	}
	return updates
}

// TimeUpdates times b.N watch updates: it resets b's timer with allocations
// reported, sends Modify(updates[i%len(updates)]) for i in [0, b.N) on w
// from a goroutine of its own, calls delivered(b.N), which must return once
// b.N more events have reached the handlers being measured, waits for the
// sender and stops the timer. The informer must already be synced over w,
// and w must be read for TimeUpdates to return.
func TimeUpdates(b *testing.B, w *watch.FakeWatcher, updates []*corev1.Pod, delivered func(n int)) {
	var wg sync.WaitGroup
	b.ReportAllocs()
	b.ResetTimer()
	wg.Go(func() {
		for i := 0; i < b.N; i++ {
			w.Modify(updates[i%len(updates)])
		}
	})
	delivered(b.N)
	wg.Wait()
	b.StopTimer()
}
