package scenario

import "testing"

// Both sides' dynamic factories sync every Pod through a real dynamic
// client and HTTP server by streaming the initial state; the numbers are
// not checked.
func TestDynamic(t *testing.T) {
	dir := t.TempDir()
	const n = 200
	if err := WriteWireFixture(dir, PodsTwoManagers, n); err != nil {
		t.Fatal(err)
	}
	for _, side := range []Side{ClientGo, Ours} {
		r, err := Dynamic(side, PodsTwoManagers, n, dir)
		if err != nil {
			t.Fatal(err)
		}
		if r.SyncedHeap == 0 || r.SyncPeakRSS == 0 || r.WatchLists[EncJSON] != 1 {
			t.Fatalf("%s: %+v, want a heap, a peak RSS and one JSON watch-list", side, r)
		}
	}
}
