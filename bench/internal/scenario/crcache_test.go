package scenario

import (
	"path/filepath"
	"testing"
)

// TestCRCache runs every controller-runtime cache mode on a few Pods: each
// must see every add and every churn update.
func TestCRCache(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pods.jsonl")
	const n = 300
	if err := WriteTwoManagerFixture(path, n); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{ModeCRDefault, ModeCROurs, ModeCROursLean} {
		t.Run(mode, func(t *testing.T) {
			res, err := CRCache(mode, n, path)
			if err != nil {
				t.Fatal(err)
			}
			if res.N != n || res.Updates != n*DecodeChurnPercent/100 || res.SyncSeconds <= 0 || res.UpdateSeconds <= 0 {
				t.Errorf("result %+v", res)
			}
		})
	}
	if _, err := CRCache("nope", n, path); err == nil {
		t.Error("unknown mode: no error")
	}
}

// TestCREvents runs every controller-runtime cache mode on row 2's
// workload, scaled down: every handler behind source.Kind must see every
// add and every update.
func TestCREvents(t *testing.T) {
	const keys, handlers, total = 200, 2, 1_000
	for _, mode := range []string{ModeCRDefault, ModeCROurs, ModeCROursLean, ModeCRCache, ModeCRCacheLean} {
		t.Run(mode, func(t *testing.T) {
			res, err := CREvents(mode, keys, handlers, total)
			if err != nil {
				t.Fatal(err)
			}
			if res.Mode != mode || res.Keys != keys || res.Handlers != handlers || res.Events != total || res.Seconds <= 0 {
				t.Errorf("result %+v", res)
			}
		})
	}
	if _, err := CREvents("nope", keys, handlers, total); err == nil {
		t.Error("unknown mode: no error")
	}
}
