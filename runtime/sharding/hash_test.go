package sharding

import (
	"hash/fnv"
	"math/rand"
	"testing"
)

// TestHashKnownVectors pins Hash to published FNV-1a 64-bit test vectors,
// including the empty string (namespace of cluster-scoped objects).
func TestHashKnownVectors(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want uint64
	}{
		{"", 0xcbf29ce484222325},
		{"a", 0xaf63dc4c8601ec8c},
		{"foobar", 0x85944171f73967e8},
	} {
		if got := Hash(tc.in); got != tc.want {
			t.Errorf("Hash(%q) = %#016x, want %#016x", tc.in, got, tc.want)
		}
	}
}

// TestHashMatchesStdlibFNV1a compares Hash with the standard library's
// FNV-1a on random byte strings, including non-UTF-8 and NUL bytes. The
// comparison with the apiserver's own function lives in
// test/e2e/shardingcompat.
func TestHashMatchesStdlibFNV1a(t *testing.T) {
	rng := rand.New(rand.NewSource(22))
	for i := 0; i < 5000; i++ {
		b := make([]byte, rng.Intn(80))
		rng.Read(b)
		h := fnv.New64a()
		h.Write(b)
		if got, want := Hash(string(b)), h.Sum64(); got != want {
			t.Fatalf("Hash(%q) = %#016x, want %#016x", b, got, want)
		}
	}
}
