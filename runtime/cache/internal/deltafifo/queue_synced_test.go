package deltafifo

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// TestDeltaFIFOSyncedChannelClosesExactlyWithHasSynced steps a queue through
// its first population and checks after every step that Synced's channel is
// closed exactly when HasSynced is true, and that onSynced ran once, when it
// turned true.
func TestDeltaFIFOSyncedChannelClosesExactlyWithHasSynced(t *testing.T) {
	popOne := func(f *Queue[*corev1.Pod]) {
		if err := f.PopBatch(1, func([]Delta[*corev1.Pod], bool) error { return nil }); err != nil {
			t.Fatal(err)
		}
	}
	type step struct {
		do   func(f *Queue[*corev1.Pod])
		want bool // HasSynced after the step
	}
	for _, tc := range []struct {
		name  string
		early bool // call Synced before the first step
		steps []step
	}{
		{name: "replace then pops", steps: []step{
			{func(f *Queue[*corev1.Pod]) {
				_ = f.Replace([]*corev1.Pod{pod("ns", "a", "1"), pod("ns", "b", "2")}, "2")
			}, false},
			{popOne, false},
			{func(f *Queue[*corev1.Pod]) { _ = f.Add(pod("ns", "c", "3")) }, false},
			{popOne, true},
			{popOne, true},
		}},
		{name: "replace then pops, channel taken first", early: true, steps: []step{
			{func(f *Queue[*corev1.Pod]) { _ = f.Replace([]*corev1.Pod{pod("ns", "a", "1")}, "1") }, false},
			{popOne, true},
		}},
		{name: "empty replace", steps: []step{
			{func(f *Queue[*corev1.Pod]) { _ = f.Replace(nil, "1") }, true},
		}},
		{name: "add before any replace", early: true, steps: []step{
			{func(f *Queue[*corev1.Pod]) { _ = f.Add(pod("ns", "a", "1")) }, true},
			{func(f *Queue[*corev1.Pod]) { _ = f.Replace([]*corev1.Pod{pod("ns", "b", "2")}, "2") }, true},
		}},
		{name: "delete before any replace", steps: []step{
			{func(f *Queue[*corev1.Pod]) { _ = f.Delete(pod("ns", "a", "1")) }, true},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := New[*corev1.Pod](nil)
			calls := 0
			f.SetOnSynced(func() {
				calls++
				if !f.HasSynced() {
					t.Error("onSynced ran before HasSynced was true")
				}
			})
			if tc.early {
				_ = f.Synced()
			}
			for i, s := range tc.steps {
				s.do(f)
				closed := false
				select {
				case <-f.Synced():
					closed = true
				default:
				}
				if got := f.HasSynced(); got != s.want || closed != s.want {
					t.Fatalf("step %d: HasSynced %v, channel closed %v, want %v", i, got, closed, s.want)
				}
				if want := map[bool]int{false: 0, true: 1}[s.want]; calls != want {
					t.Fatalf("step %d: onSynced ran %d times, want %d", i, calls, want)
				}
			}
		})
	}
}
