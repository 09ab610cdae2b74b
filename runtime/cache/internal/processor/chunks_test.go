package processor

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// orderHandler records the names of the objects it is handed, on the
// listener's goroutine, and closes all once it has want of them.
type orderHandler struct {
	names []string
	want  int
	all   chan struct{}
}

func (h *orderHandler) OnAdd(p *corev1.Pod, _ bool) {
	h.names = append(h.names, p.Name)
	if len(h.names) == h.want {
		close(h.all)
	}
}
func (h *orderHandler) OnUpdate(_, _ *corev1.Pod)  {}
func (h *orderHandler) OnDelete(*corev1.Pod, bool) {}

func chunkPods(n int) []*corev1.Pod {
	out := make([]*corev1.Pod, n)
	for i := range out {
		out[i] = &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: fmt.Sprint(i)}}
	}
	return out
}

// A backlog of several chunks reaches the handler whole and in order, and
// once delivered the listener keeps at most noteFreeChunks emptied chunks.
func TestListenerBurstOfChunksIsDeliveredInOrderAndMostChunksDropped(t *testing.T) {
	n := 3*noteChunkSize + 5
	h := &orderHandler{want: n, all: make(chan struct{})}
	l := NewListener[*corev1.Pod](h, ListenerConfig{Now: time.Now(), Synced: func() bool { return true }})
	pods := chunkPods(n)
	// Queued before the listener runs, in uneven pieces as the processor
	// would hand them, half as plain adds and half as a replay.
	var notes []Notification[*corev1.Pod]
	for _, p := range pods[:n/2] {
		notes = append(notes, Notification[*corev1.Pod]{Kind: Add, Obj: p})
	}
	for len(notes) > 0 {
		k := min(len(notes), 100)
		l.enqueue(notes[:k], false)
		notes = notes[k:]
	}
	l.enqueueInitialAdds(pods[n/2:])
	if got := l.initialPending.Load(); got != int64(n-n/2) {
		t.Fatalf("%d initial adds pending, want %d", got, n-n/2)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); l.run(ctx) }()
	select {
	case <-h.all:
	case <-time.After(time.Minute):
		t.Fatalf("handler got %d of %d notifications", len(h.names), n)
	}
	// The listener recycles the chain after the last call returns, before
	// it next looks at ctx: once run returns, recycling is done.
	cancel()
	<-done
	for i, name := range h.names {
		if name != fmt.Sprint(i) {
			t.Fatalf("notification %d was for %s, want %d (order lost)", i, name, i)
		}
	}
	if got := l.initialPending.Load(); got != 0 {
		t.Fatalf("%d initial adds still pending after delivery", got)
	}
	kept := 0
	for c := l.free; c != nil; c = c.next {
		kept++
		if c.n != 0 || c.notes[0].Obj != nil {
			t.Fatalf("a kept chunk still holds %d notifications / object %v", c.n, c.notes[0].Obj)
		}
	}
	if kept != l.nFree || kept > noteFreeChunks {
		t.Fatalf("%d chunks kept (counted %d), want at most %d", kept, l.nFree, noteFreeChunks)
	}
}

// Replaying a store to a late handler allocates only the chunks it fills.
func TestListenerReplayAllocatesOnlyItsChunks(t *testing.T) {
	pods := chunkPods(1000)
	l := NewListener[*corev1.Pod](&orderHandler{}, ListenerConfig{Now: time.Now(), Synced: func() bool { return true }})
	allocs := testing.AllocsPerRun(10, func() {
		l.enqueueInitialAdds(pods)
		l.head, l.tail, l.queued = nil, nil, 0
		l.initialPending.Store(0)
	})
	want := float64((len(pods) + noteChunkSize - 1) / noteChunkSize)
	if allocs > want {
		t.Fatalf("replaying %d objects made %v allocations, want at most %v (one per chunk)", len(pods), allocs, want)
	}
}
