package corpus

import (
	"context"
	"fmt"
	"go/types"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"golang.org/x/tools/go/packages"

	"github.com/typedinformer/typedinformer/generators"
)

// kubePluralExceptions are the plural exceptions Kubernetes' own
// hack/update-codegen.sh gives client-gen for client-go.
var kubePluralExceptions = []string{
	"Endpoints:Endpoints",
	"ResourceClaimParameters:ResourceClaimParameters",
	"ResourceClassParameters:ResourceClassParameters",
}

// TestKubeClientsetMatchesClientGo generates the versioned clientset and its
// fake for every k8s.io/api group-version, as client-go's own is generated
// (apply configurations from k8s.io/client-go/applyconfigurations, protobuf
// preferred, Kubernetes' plural exceptions), into a tree that already holds
// client-go's hand-written expansion files (so that client-gen's expansion
// rule applies, and those files compile only against client-gen's
// unexported names), builds it, and compares the exported API of every
// package with client-go v0.37.2's kubernetes/ tree through go/types: every
// exported name, its kind, signature, interface method set, struct fields
// and tags, and the pointer method set of named types.
func TestKubeClientsetMatchesClientGo(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a clientset for all of k8s.io/api; skipped in -short mode")
	}
	ctx := context.Background()
	dir, err := os.MkdirTemp(".", "zz_cs_")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	name := filepath.Base(dir)
	outPkg := modulePath + "/" + name
	// client-go's clientset is package kubernetes, as its hand-written doc.go says.
	csDir := filepath.Join(dir, "clientset", "kubernetes")
	csPkg := outPkg + "/clientset/kubernetes"

	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "k8s.io/client-go").Output()
	if err != nil {
		t.Fatalf("locating k8s.io/client-go: %v", err)
	}
	theirRoot := filepath.Join(strings.TrimSpace(string(out)), "kubernetes")
	handWritten := copyHandWrittenUnder(t, theirRoot, csDir, clientset, csPkg)
	t.Logf("copied %d hand-written files of client-go's kubernetes/", handWritten)

	// client-gen's way of naming the inputs, --input-base and --input, with
	// the group-versions Kubernetes gives it: every k8s.io/api package but
	// imagepolicy/v1alpha1, which client-go has no client for.
	list, err := exec.Command("go", "list", "k8s.io/api/...").Output()
	if err != nil {
		t.Fatalf("go list k8s.io/api/...: %v", err)
	}
	var inputs []string
	for _, p := range strings.Fields(string(list)) {
		if rest, ok := strings.CutPrefix(p, "k8s.io/api/"); ok && strings.Count(rest, "/") == 1 && rest != "imagepolicy/v1alpha1" {
			inputs = append(inputs, rest)
		}
	}
	opts := kubeOptions(dir, outPkg)
	opts.Patterns = nil
	opts.InputBase, opts.Inputs = "k8s.io/api", inputs
	opts.VersionedClientsetPackage = ""
	opts.WithClientset = true
	opts.ClientsetName = "kubernetes"
	opts.ApplyConfigurationPackage = "k8s.io/client-go/applyconfigurations"
	opts.PrefersProtobuf = true
	opts.PluralExceptions = kubePluralExceptions
	generateAndCompare(t, ctx, opts, csDir, theirRoot, "client-go's kubernetes/", "./"+name+"/clientset/...",
		"./"+name+"/clientset/kubernetes/...", csPkg, clientset+"/...", clientset)
}

// compareAPIs loads the packages of two patterns through go/types (export
// data of the build just done) and returns, package by package (matched by
// their path below ourRoot and theirRoot), every exported declaration one
// side has and the other has not, or has with another shape. Our package
// paths are written as theirs, so that identical APIs describe identically.
func compareAPIs(t *testing.T, ourPattern, ourRoot, theirPattern, theirRoot string) []string {
	t.Helper()
	qualifier := func(p *types.Package) string {
		if rest, ok := strings.CutPrefix(p.Path(), ourRoot); ok {
			return theirRoot + rest
		}
		return p.Path()
	}
	described := describePackages(t, "", qualifier, []string{ourPattern, theirPattern}, []string{ourRoot, theirRoot})
	return diffAPIs(described[ourRoot], described[theirRoot], "kubernetes", "client-go")
}

// describePackages loads patterns in dir (the current directory when empty)
// and returns the API of every package (describeAPI with qualifier) whose
// import path lies under one of roots, keyed by that root and then by its
// path below it ("" for the root itself).
func describePackages(t *testing.T, dir string, qualifier types.Qualifier, patterns, roots []string) map[string]map[string][]string {
	t.Helper()
	return describePackagesWith(t, dir, func(p *types.Package) []string { return describeAPI(p, qualifier) }, patterns, roots)
}

// describePackagesWith is describePackages with describe in place of
// describeAPI.
func describePackagesWith(t *testing.T, dir string, describe func(*types.Package) []string, patterns, roots []string) map[string]map[string][]string {
	t.Helper()
	cfg := &packages.Config{Mode: packages.NeedName | packages.NeedTypes, Dir: dir}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string][]string{}
	for _, p := range pkgs {
		for _, e := range p.Errors {
			t.Errorf("loading %s: %v", p.PkgPath, e)
		}
		if p.Types == nil {
			continue
		}
		for _, root := range roots {
			if rest, ok := strings.CutPrefix(p.PkgPath, root); ok && (rest == "" || rest[0] == '/') {
				if out[root] == nil {
					out[root] = map[string][]string{}
				}
				out[root][rest] = describe(p.Types)
				break
			}
		}
	}
	return out
}

// diffAPIs compares two sets of package APIs keyed by package path below
// their roots and returns every package or exported declaration that only one
// side has (an API described differently is on both lists), each line naming
// the package as where/path and the other side as theirName.
func diffAPIs(ours, theirs map[string][]string, where, theirName string) []string {
	var diffs []string
	keys := map[string]bool{}
	for k := range ours {
		keys[k] = true
	}
	for k := range theirs {
		keys[k] = true
	}
	sorted := make([]string, 0, len(keys))
	for k := range keys {
		sorted = append(sorted, k)
	}
	sort.Strings(sorted)
	for _, k := range sorted {
		o, ok1 := ours[k]
		th, ok2 := theirs[k]
		at := path.Join(where, k)
		switch {
		case !ok1:
			diffs = append(diffs, fmt.Sprintf("%s: package only in %s", at, theirName))
		case !ok2:
			diffs = append(diffs, fmt.Sprintf("%s: package only in ours", at))
		case !reflect.DeepEqual(o, th):
			for _, l := range minus(o, th) {
				diffs = append(diffs, fmt.Sprintf("%s: only ours: %s", at, l))
			}
			for _, l := range minus(th, o) {
				diffs = append(diffs, fmt.Sprintf("%s: only %s: %s", at, theirName, l))
			}
		}
	}
	return diffs
}

// generateAndCompare runs the generator with opts, requires the generated
// files under ourDir to be those under theirRoot (what names the latter in
// errors), builds buildPattern and compares the exported API of ourPattern
// (rooted at ourPkg) with theirPattern's (rooted at theirPkg) through
// go/types, reporting every difference.
func generateAndCompare(t *testing.T, ctx context.Context, opts generators.Options, ourDir, theirRoot, what, buildPattern, ourPattern, ourPkg, theirPattern, theirPkg string) {
	t.Helper()
	start := time.Now()
	res, err := generators.Generate(ctx, opts)
	if err != nil {
		t.Fatalf("generate: %v", err)
	}
	t.Logf("generated %d files in %v", len(res.Files), time.Since(start).Round(time.Millisecond))

	ours, theirs := goFiles(t, ourDir), goFiles(t, theirRoot)
	ours = slices.DeleteFunc(ours, func(f string) bool { return !isGenerated(t, filepath.Join(ourDir, f)) })
	theirs = slices.DeleteFunc(theirs, func(f string) bool { return !isGenerated(t, filepath.Join(theirRoot, f)) })
	if !slices.Equal(ours, theirs) {
		t.Errorf("generated files differ from %s:\nonly ours: %v\nonly upstream: %v", what, minus(ours, theirs), minus(theirs, ours))
	}

	start = time.Now()
	cmd := exec.CommandContext(ctx, "go", "build", buildPattern)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	t.Logf("go build: %v", time.Since(start).Round(time.Millisecond))

	start = time.Now()
	diffs := compareAPIs(t, ourPattern, ourPkg, theirPattern, theirPkg)
	t.Logf("compared APIs: %v", time.Since(start).Round(time.Millisecond))
	for _, d := range diffs {
		t.Error(d)
	}
}
