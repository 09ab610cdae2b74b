package scenario

import (
	"maps"
	"strings"
	"testing"
	"time"
)

// TestCRWire syncs every whole-cache mode over every object from the wire
// server: each must cache every object, through one list or watch-list in
// the object's encoding, and for Pods read back one namespace and single
// Pods.
func TestCRWire(t *testing.T) {
	dir := t.TempDir()
	const n = 300
	if err := WriteWireFixture(dir, PodsTwoManagers, n); err != nil {
		t.Fatal(err)
	}
	if err := WriteFooFixture(dir, n); err != nil {
		t.Fatal(err)
	}
	encOf := map[string]string{CRObjPods: EncProtobuf, CRObjFoos: EncJSON, CRObjUnstructured: EncJSON}
	for _, mode := range []string{ModeCRDefault, ModeCRCache, ModeCRCacheLean} {
		for _, obj := range []string{CRObjPods, CRObjFoos, CRObjUnstructured} {
			t.Run(mode+"/"+obj, func(t *testing.T) {
				res, err := CRWire(CRWireOptions{Mode: mode, Object: obj, N: n, Dir: dir, ReadFor: time.Millisecond})
				if err != nil {
					t.Fatal(err)
				}
				if res.N != n || res.SyncSeconds <= 0 || res.SyncedHeap == 0 || res.SyncPeakRSS == 0 {
					t.Errorf("result %+v", res)
				}
				served := map[string]int{}
				for enc, c := range res.Lists {
					served[enc] += c
				}
				for enc, c := range res.WatchLists {
					served[enc] += c
				}
				if want := map[string]int{encOf[obj]: 1}; !maps.Equal(served, want) {
					t.Errorf("served lists %v and watch-lists %v, want one of them in %s", res.Lists, res.WatchLists, encOf[obj])
				}
				wantCache, wantInformer := "github.com/typedinformer/typedinformer/crcache", "github.com/typedinformer/typedinformer/clientgo"
				if mode == ModeCRDefault {
					wantCache, wantInformer = "sigs.k8s.io/controller-runtime/pkg/cache", "k8s.io/client-go/tools/cache"
				}
				if res.CachePkg != wantCache || !strings.HasPrefix(res.InformerPkg, wantInformer) {
					t.Errorf("cache from %s, informer from %s; want %s and %s", res.CachePkg, res.InformerPkg, wantCache, wantInformer)
				}
				if obj == CRObjPods {
					wantMF := 2
					if mode == ModeCRCacheLean {
						wantMF = 0
					}
					if res.GotManagedFields != wantMF {
						t.Errorf("Get returned a Pod with %d managedFields entries, want %d", res.GotManagedFields, wantMF)
					}
					if res.ListItems != n/100 || res.ListNs <= 0 || res.GetNs <= 0 || res.ReadLookups == 0 {
						t.Errorf("reads %+v", res)
					}
				} else if res.ListNs != 0 || res.GetNs != 0 {
					t.Errorf("reads of %s timed: %+v", obj, res)
				}
			})
		}
	}
	for _, bad := range []struct {
		opts CRWireOptions
		want string
	}{
		{CRWireOptions{Mode: "nope", Object: CRObjPods, N: n, Dir: dir}, `no mode "nope"`},
		{CRWireOptions{Mode: ModeCROurs, Object: CRObjPods, N: n, Dir: dir}, `no mode "cr-ours"`},
		{CRWireOptions{Mode: ModeCRCache, Object: "bars", N: n, Dir: dir}, `no object "bars"`},
		{CRWireOptions{Mode: ModeCRCache, Object: CRObjFoos, N: n + 1, Dir: dir, SyncTimeout: time.Second}, "did not sync"},
	} {
		_, err := CRWire(bad.opts)
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("CRWire(%+v): error %v, want one containing %q", bad.opts, err, bad.want)
		}
	}
}
