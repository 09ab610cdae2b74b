package names_test

import (
	"os"
	"strings"
	"testing"

	clientgo "github.com/typedinformer/typedinformer/examples/migration/names/clientgo"
	typed "github.com/typedinformer/typedinformer/examples/migration/names/typed"
	v037clientgo "github.com/typedinformer/typedinformer/examples/migration/names/v037/clientgo"
	v037typed "github.com/typedinformer/typedinformer/examples/migration/names/v037/typed"
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
	differOnlyInImports(t, "clientgo/names.go", "typed/names.go", importSwaps)
}

// v037Swaps are the only lines in which v037/typed/names.go may differ from
// v037/clientgo/names.go: client-go's cache and code-generator v0.37's
// informers (before/generated) for typedinformer's runtime and informer-gen's
// informers (examples/crd).
var v037Swaps = map[string]string{
	`"k8s.io/client-go/tools/cache"`: `"github.com/typedinformer/typedinformer/runtime/cache"`,
	`informers "github.com/typedinformer/typedinformer/examples/migration/before/generated/informers/externalversions"`:             `informers "github.com/typedinformer/typedinformer/examples/crd/pkg/generated/informers/externalversions"`,
	`"github.com/typedinformer/typedinformer/examples/migration/before/generated/informers/externalversions/internalinterfaces"`:    `"github.com/typedinformer/typedinformer/examples/crd/pkg/generated/informers/externalversions/internalinterfaces"`,
	`foos "github.com/typedinformer/typedinformer/examples/migration/before/generated/informers/externalversions/samples/v1alpha1"`: `foos "github.com/typedinformer/typedinformer/examples/crd/pkg/generated/informers/externalversions/samples/v1alpha1"`,
}

// A file written against client-go v0.37's typed informer API and the typed
// informers code-generator v0.37 emits compiles against typedinformer with
// only its import paths swapped.
func TestV037TypedNamesFileDiffersOnlyInImportPaths(t *testing.T) {
	differOnlyInImports(t, "v037/clientgo/names.go", "v037/typed/names.go", v037Swaps)
}

// differOnlyInImports fails unless the files a and b have the same lines
// but for the import lines in swaps (a's line to b's), each swapped once.
func differOnlyInImports(t *testing.T, a, b string, swaps map[string]string) {
	t.Helper()
	read := func(p string) []string {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return strings.Split(string(data), "\n")
	}
	cg, ti := read(a), read(b)
	if len(cg) != len(ti) {
		t.Fatalf("%s has %d lines, %s %d: they must differ only in import paths", a, len(cg), b, len(ti))
	}
	swapped := 0
	for i := range cg {
		if cg[i] == ti[i] {
			continue
		}
		if want, ok := swaps[strings.TrimSpace(cg[i])]; ok && strings.TrimSpace(ti[i]) == want {
			swapped++
			continue
		}
		t.Errorf("line %d differs beyond an import swap:\n  client-go: %s\n  typed:     %s", i+1, cg[i], ti[i])
	}
	if swapped != len(swaps) {
		t.Errorf("%d import paths swapped, want %d", swapped, len(swaps))
	}
}

// The v0.37 copies observe the same handler calls, identity, index and
// lister results over the same fake clientset. client-go's fake sets no
// resourceVersion, so the updates test that equal-RV updates are
// delivered as client-go delivers them.
func TestV037TypedNamesBehaveAlike(t *testing.T) {
	want, err := v037clientgo.Observe(t.Context())
	if err != nil {
		t.Fatalf("client-go: %v\n%s", err, strings.Join(want, "\n"))
	}
	got, err := v037typed.Observe(t.Context())
	if err != nil {
		t.Fatalf("typedinformer: %v\n%s", err, strings.Join(got, "\n"))
	}
	compareObservations(t, want, got)
}

// Both copies observe the same behaviour.
func TestNamesBehaveAlike(t *testing.T) {
	compareObservations(t, clientgo.Observe(), typed.Observe())
}

func compareObservations(t *testing.T, want, got []string) {
	t.Helper()
	if len(want) != len(got) {
		t.Errorf("client-go made %d observations, typedinformer %d", len(want), len(got))
	}
	for i := range min(len(want), len(got)) {
		if want[i] != got[i] {
			t.Errorf("observation %d:\n  client-go:     %s\n  typedinformer: %s", i, want[i], got[i])
		}
	}
	if testing.Verbose() || t.Failed() {
		for _, l := range got {
			t.Log(l)
		}
	}
}

// v037ControllerSwaps are the import lines in which v037/after/controller.go
// may differ from v037/before/controller.go.
var v037ControllerSwaps = map[string]string{
	`informers "github.com/typedinformer/typedinformer/examples/migration/before/generated/informers/externalversions/samples/v1alpha1"`: `informers "github.com/typedinformer/typedinformer/examples/crd/pkg/generated/informers/externalversions/samples/v1alpha1"`,
	`listers "github.com/typedinformer/typedinformer/examples/migration/before/generated/listers/samples/v1alpha1"`:                      `listers "github.com/typedinformer/typedinformer/examples/crd/pkg/generated/listers/samples/v1alpha1"`,
	`coreinformers "k8s.io/client-go/informers/core/v1"`:                                                                                 `coreinformers "github.com/typedinformer/typedinformer/kube/informers/core/v1"`,
	`corelisters "k8s.io/client-go/listers/core/v1"`:                                                                                     `corelisters "github.com/typedinformer/typedinformer/kube/listers/core/v1"`,
	`"k8s.io/client-go/tools/cache"`:                                                                                                     `"github.com/typedinformer/typedinformer/runtime/cache"`,
	`"k8s.io/client-go/util/workqueue"`:                                                                                                  `"github.com/typedinformer/typedinformer/runtime/workqueue"`,
}

// The controller written against client-go v0.37's typed API and
// code-generator v0.37's typed informers ports by an import swap alone.
func TestV037ControllerPortIsAnImportSwap(t *testing.T) {
	differOnlyInImports(t, "../v037/before/controller.go", "../v037/after/controller.go", v037ControllerSwaps)
}
