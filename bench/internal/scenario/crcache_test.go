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
