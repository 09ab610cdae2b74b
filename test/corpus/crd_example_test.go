package corpus

import (
	"fmt"
	"go/types"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
)

// crdExampleModule is examples/crd's module path, the same in every copy.
const crdExampleModule = "github.com/typedinformer/typedinformer/examples/crd"

// crdExampleGenerated are the packages gen_client writes in examples/crd.
const crdExampleGenerated = crdExampleModule + "/pkg/generated"

// TestCRDExampleMatchesUpstream compares examples/crd's committed
// clientset, fake, apply configurations, listers and informers (written by
// typedinformer::codegen::gen_client) with what upstream's gen_client
// (code-generator v0.37.2's kube_codegen.sh, with the same arguments, through
// hack/update-codegen-upstream.sh) writes for the same API packages in a
// copy of the repository: the same generated files, and the same exported API
// of every package through go/types (every exported name, signature,
// interface and pointer method set, struct field and tag). Both copies share
// the module path, so the APIs describe identically when they are the same.
func TestCRDExampleMatchesUpstream(t *testing.T) {
	if testing.Short() {
		t.Skip("runs kube_codegen.sh over examples/crd; skipped in -short mode")
	}
	example, err := filepath.Abs(filepath.Join("..", "..", "examples", "crd"))
	if err != nil {
		t.Fatal(err)
	}
	scratch := t.TempDir()
	ours, theirs := filepath.Join(scratch, "ours"), filepath.Join(scratch, "upstream")
	for _, dst := range []string{ours, theirs} {
		if out, err := exec.Command(filepath.Join(example, "hack", "scratch-copy.sh"), dst).CombinedOutput(); err != nil {
			t.Fatalf("copying %s: %v\n%s", example, err, out)
		}
	}
	// Upstream starts from no generated client code at all, so a file only
	// ours would write cannot survive into its tree.
	if err := os.RemoveAll(filepath.Join(theirs, "pkg", "generated")); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	cmd := exec.Command(filepath.Join(theirs, "hack", "update-codegen-upstream.sh"))
	cmd.Env = append(os.Environ(), "GOBIN="+filepath.Join(scratch, "bin"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("upstream's update-codegen: %v\n%s", err, out)
	}
	t.Logf("upstream's update-codegen: %v", time.Since(start).Round(time.Millisecond))

	ourFiles, theirFiles := goFiles(t, filepath.Join(ours, "pkg", "generated")), goFiles(t, filepath.Join(theirs, "pkg", "generated"))
	if !slices.Equal(ourFiles, theirFiles) {
		t.Errorf("generated files differ from upstream's:\nonly ours: %v\nonly upstream: %v", minus(ourFiles, theirFiles), minus(theirFiles, ourFiles))
	}

	start = time.Now()
	pattern, roots := []string{"./pkg/generated/..."}, []string{crdExampleGenerated}
	o := describePackagesWith(t, ours, describeCRDExample, pattern, roots)[crdExampleGenerated]
	th := describePackagesWith(t, theirs, describeCRDExample, pattern, roots)[crdExampleGenerated]
	t.Logf("described %d packages of ours and %d of upstream's: %v", len(o), len(th), time.Since(start).Round(time.Millisecond))
	if len(o) == 0 {
		t.Fatal("no generated package of ours was loaded")
	}
	diffs := crdExampleDiffs(o, th)
	for _, d := range diffs {
		if !knownNameGaps(d) {
			t.Error(d)
		}
	}
	for _, gv := range []string{"/ops/v1", "/samples/v1alpha1"} {
		for _, kind := range []string{"MaintenanceWindow", "Foo", "FooClass"} {
			if (gv == "/ops/v1") != (kind == "MaintenanceWindow") {
				continue
			}
			for _, m := range indexInformerMethodGaps {
				want := fmt.Sprintf("pkg/generated/informers/externalversions%s: only upstream: type %sIndexInformer method %s", gv, kind, m)
				if !slices.Contains(diffs, want) {
					t.Errorf("known gap closed, drop it from indexInformerMethodGaps: %s", want)
				}
			}
		}
	}
}

// indexInformerMethodGaps are the methods of client-go's SharedIndexInformer
// that upstream's <Type>IndexInformer has and the runtime's informer has not.
var indexInformerMethodGaps = []string{"GetController", "RunWithContext", "SetWatchErrorHandlerWithContext"}

// knownNameGaps reports whether d is a name of upstream's informers that
// ours lacks knowingly: the methods above, and client-go's untyped informer
// registry (InformerFor and its NewInformerFunc, Start on the internal
// factory interface), which the typed factory replaces by its typed informers.
func knownNameGaps(d string) bool {
	for _, m := range indexInformerMethodGaps {
		if strings.HasSuffix(d, "IndexInformer method "+m) && strings.Contains(d, ": only upstream: type ") {
			return true
		}
	}
	switch d {
	case "pkg/generated/informers/externalversions/internalinterfaces: only upstream: type NewInformerFunc",
		"pkg/generated/informers/externalversions/internalinterfaces: only upstream: type SharedInformerFactory method InformerFor",
		"pkg/generated/informers/externalversions/internalinterfaces: only upstream: type SharedInformerFactory method Start",
		"pkg/generated/informers/externalversions: only upstream: type SharedInformerFactory method InformerFor":
		return true
	}
	return false
}

// namesOnly reports whether the generated package at rel (below
// pkg/generated) is held to upstream's names rather than its whole API: the
// listers and informers, whose signatures name the runtime's types where
// upstream's name client-go's.
func namesOnly(rel string) bool {
	return strings.HasPrefix(rel, "/listers") || strings.HasPrefix(rel, "/informers")
}

// describeCRDExample describes a package of examples/crd's pkg/generated:
// the whole exported API, or only its names where namesOnly.
func describeCRDExample(p *types.Package) []string {
	if namesOnly(strings.TrimPrefix(p.Path(), crdExampleGenerated)) {
		return describeNames(p)
	}
	return describeAPI(p, nil)
}

// crdExampleDiffs compares ours with upstream's, packages keyed by their path
// below pkg/generated: the clientset, its fake and the apply configurations
// must have the same API; every name of upstream's listers and informers
// must exist in ours (ours may add names, such as WithNamespaces).
func crdExampleDiffs(ours, theirs map[string][]string) []string {
	exactO, exactT := map[string][]string{}, map[string][]string{}
	var diffs []string
	for rel, th := range theirs {
		if !namesOnly(rel) {
			exactT[rel] = th
			continue
		}
		o, ok := ours[rel]
		if !ok {
			diffs = append(diffs, fmt.Sprintf("pkg/generated%s: package only in upstream", rel))
			continue
		}
		for _, l := range minus(th, o) {
			diffs = append(diffs, fmt.Sprintf("pkg/generated%s: only upstream: %s", rel, l))
		}
	}
	for rel, o := range ours {
		if !namesOnly(rel) {
			exactO[rel] = o
		} else if _, ok := theirs[rel]; !ok {
			diffs = append(diffs, fmt.Sprintf("pkg/generated%s: package only in ours", rel))
		}
	}
	sort.Strings(diffs)
	return append(diffs, diffAPIs(exactO, exactT, "pkg/generated", "upstream")...)
}
