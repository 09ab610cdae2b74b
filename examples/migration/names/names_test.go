package names_test

import (
	"os"
	"strings"
	"testing"

	clientgo "github.com/typedinformer/typedinformer/examples/migration/names/clientgo"
	typed "github.com/typedinformer/typedinformer/examples/migration/names/typed"
)

// importSwaps are the only lines in which typed/names.go may differ from
// clientgo/names.go.
var importSwaps = map[string]string{
	`"k8s.io/client-go/tools/cache"`:    `"github.com/typedinformer/typedinformer/runtime/cache"`,
	`"k8s.io/client-go/util/workqueue"`: `"github.com/typedinformer/typedinformer/runtime/workqueue"`,
}

// A file written against client-go's workqueue and cache names compiles
// against typedinformer with only its import paths swapped: the two
// committed copies differ in nothing else (both compile, being packages of
// this module).
func TestNamesFileDiffersOnlyInImportPaths(t *testing.T) {
	read := func(p string) []string {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return strings.Split(string(b), "\n")
	}
	cg, ti := read("clientgo/names.go"), read("typed/names.go")
	if len(cg) != len(ti) {
		t.Fatalf("clientgo/names.go has %d lines, typed/names.go %d: they must differ only in import paths", len(cg), len(ti))
	}
	swapped := 0
	for i := range cg {
		if cg[i] == ti[i] {
			continue
		}
		if want, ok := importSwaps[strings.TrimSpace(cg[i])]; ok && strings.TrimSpace(ti[i]) == want {
			swapped++
			continue
		}
		t.Errorf("line %d differs beyond an import swap:\n  client-go: %s\n  typed:     %s", i+1, cg[i], ti[i])
	}
	if swapped != len(importSwaps) {
		t.Errorf("%d import paths swapped, want %d", swapped, len(importSwaps))
	}
}

// Both copies observe the same behaviour.
func TestNamesBehaveAlike(t *testing.T) {
	want, got := clientgo.Observe(), typed.Observe()
	if len(want) != len(got) {
		t.Fatalf("client-go made %d observations, typedinformer %d", len(want), len(got))
	}
	for i := range want {
		if want[i] != got[i] {
			t.Errorf("observation %d:\n  client-go:     %s\n  typedinformer: %s", i, want[i], got[i])
		}
	}
	if testing.Verbose() {
		for _, l := range got {
			t.Log(l)
		}
	}
}
