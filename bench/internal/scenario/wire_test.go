package scenario

import (
	"testing"
)

// Each side must sync through a real clientset and HTTP server in each
// encoding, with the lists asking for that encoding; the numbers are not
// checked. client-go reads its watch-list switch once per process, so
// after other tests it may first ask for a watch-list, which the server
// refuses; ours reads it per informer and never asks.
func TestWire(t *testing.T) {
	dir := t.TempDir()
	const n = 200
	if err := WriteWireFixture(dir, n); err != nil {
		t.Fatal(err)
	}
	for _, side := range []Side{ClientGo, Ours} {
		for _, enc := range []string{EncJSON, EncProtobuf} {
			t.Run(string(side)+"/"+enc, func(t *testing.T) {
				// Wire turns watch-list off for the process; restore it.
				t.Setenv("KUBE_FEATURE_WatchListClient", "false")
				r, err := Wire(side, enc, n, dir)
				if err != nil {
					t.Fatal(err)
				}
				if len(r.Lists) != 1 || r.Lists[enc] != 1 || r.Watches < 1 || r.SyncedHeap == 0 || r.SyncPeakRSS == 0 || (side == Ours && r.WatchLists != 0) {
					t.Fatalf("result %+v, want one %s list and a watch", r, enc)
				}
			})
		}
	}
}
