package scenario

import (
	"path/filepath"
	"testing"
)

// Each decode mode must sync and churn through a real clientset, with the
// requests its mode implies; the numbers are not checked.
func TestDecode(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pods.jsonl")
	const n = 200
	if err := WriteDecodeFixture(path, n); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		side       Side
		mode       string
		lists, wls int
	}{
		{ClientGo, ModeList, 1, 0},
		{ClientGo, ModeWatchList, 0, 1},
		{Ours, ModeList, 1, 0},
		{Ours, ModeWatchList, 0, 1},
		{Ours, ModeLean, 0, 1},
		{Ours, ModeMetadata, 0, 1},
		{Ours, ModeMetadataLean, 0, 1},
	} {
		t.Run(string(tc.side)+"/"+tc.mode, func(t *testing.T) {
			if tc.side == ClientGo && tc.mode == ModeList {
				t.Setenv("KUBE_FEATURE_WatchListClient", "false")
			}
			r, err := Decode(tc.side, tc.mode, n, path)
			if err != nil {
				t.Fatal(err)
			}
			if tc.side == ClientGo {
				// client-go reads its feature gates once per process, so
				// only the first client-go case gets the mode it asks for;
				// the bench runs each in a fresh process.
				tc.lists, tc.wls = r.Lists, r.WatchLists
				if r.Lists+r.WatchLists != 1 {
					t.Fatalf("result %+v, want one list or one watch-list", r)
				}
			}
			if r.Lists != tc.lists || r.WatchLists != tc.wls || r.SyncedHeap == 0 || r.ChurnedHeap == 0 || r.SyncPeakRSS == 0 {
				t.Fatalf("result %+v, want %d lists and %d watch-lists", r, tc.lists, tc.wls)
			}
		})
	}
}
