package corpus

import (
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
)

// buildModule is a temporary module, named after the generated code's
// import path, that requires an API module at its version, client-go
// v0.37.2 and this repository's module: the generated code is built
// against the client-go it is generated for, and both generators run
// inside it so that they read the API types with the dependencies it
// builds them with (an old API module's go.mod would pick an older
// apimachinery, whose ObjectMeta has members client-go v0.37.2's apply
// configurations lack).
type buildModule struct {
	dir, outPkg string
}

// newBuildModule writes the module and a deps.go importing the inputs,
// and resolves its requirements with go mod tidy.
func newBuildModule(t *testing.T, m upstreamModule, outPkg string, inputs []string) *buildModule {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	b := &buildModule{dir: t.TempDir(), outPkg: outPkg}
	b.write(t, "go.mod", "module "+outPkg+"\n\ngo 1.26.0\n\nrequire (\n\t"+m.module+" "+m.version+
		"\n\tgithub.com/typedinformer/typedinformer v0.0.0\n\tk8s.io/client-go "+codeGeneratorVersion+
		"\n)\n\nreplace github.com/typedinformer/typedinformer => "+root+"\n")
	deps := "//go:build deps\n\n// Package deps keeps the inputs' module and client-go required.\npackage deps\n\nimport (\n"
	for _, in := range append([]string{"k8s.io/client-go/rest", "github.com/typedinformer/typedinformer/runtime/informers"}, inputs...) {
		deps += "\t_ \"" + in + "\"\n"
	}
	b.write(t, "deps.go", deps+")\n")
	b.tidy(t)
	return b
}

func (b *buildModule) write(t *testing.T, rel, content string) {
	t.Helper()
	p := filepath.Join(b.dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// goCmd runs the go command in the module and returns its output.
func (b *buildModule) goCmd(t *testing.T, args ...string) (string, error) {
	t.Helper()
	start := time.Now()
	cmd := exec.Command("go", args...)
	cmd.Dir = b.dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	out, err := cmd.CombinedOutput()
	shown := args
	if len(shown) > 4 {
		shown = append(shown[:3:3], fmt.Sprintf("(%d more)", len(args)-3))
	}
	t.Logf("go %s: %v", strings.Join(shown, " "), time.Since(start).Round(time.Millisecond))
	return string(out), err
}

func (b *buildModule) tidy(t *testing.T) {
	t.Helper()
	if out, err := b.goCmd(t, "mod", "tidy"); err != nil {
		t.Fatalf("go mod tidy: %v\n%s", err, out)
	}
}

// addGenerated writes our generated tree at the module's root and
// upstream's under upstream/, its imports of the output package moved
// there, and resolves the requirements they add.
func (b *buildModule) addGenerated(t *testing.T, ours, theirs map[string][]byte) {
	t.Helper()
	for rel, c := range ours {
		b.write(t, rel, string(c))
	}
	for rel, c := range theirs {
		b.write(t, path.Join("upstream", rel), strings.ReplaceAll(string(c), `"`+b.outPkg+"/", `"`+b.outPkg+"/upstream/"))
	}
	b.tidy(t)
}

// valueDepartures finds the files of ours whose code differs from
// theirs only in assignments of "value" where theirs assign "&value",
// makes theirs the same as ours there, and returns their paths.
func valueDepartures(ours, theirs map[string][]byte) []string {
	var paths []string
	for p, o := range ours {
		th, ok := theirs[p]
		if !ok {
			continue
		}
		oc, oerr := canonicalCode(o)
		tc, terr := canonicalCode(th)
		if oerr != nil || terr != nil || oc == tc {
			continue
		}
		if strings.ReplaceAll(tc, " = &value\n", " = value\n") == strings.ReplaceAll(oc, " = &value\n", " = value\n") {
			theirs[p] = o
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	return paths
}

// checkBuilds writes both generated trees into bm, vets ours (but for
// m.notBuilt), runs m.use in ours, and, given m.upstreamFails, builds
// upstream's, which must fail with each of them.
func checkBuilds(t *testing.T, m upstreamModule, bm *buildModule, ours, theirs map[string][]byte) {
	t.Helper()
	bm.addGenerated(t, ours, theirs)
	out, err := bm.goCmd(t, "list", "./clientset/...", "./applyconfiguration/...", "./listers/...", "./informers/...")
	if err != nil {
		t.Fatalf("go list of our output: %v\n%s", err, out)
	}
	vet := []string{"vet"}
	for _, p := range strings.Fields(out) {
		if !slices.Contains(m.notBuilt, strings.TrimPrefix(p, bm.outPkg+"/")) {
			vet = append(vet, p)
		}
	}
	if out, err := bm.goCmd(t, vet...); err != nil {
		t.Errorf("go vet of our output: %v\n%s", err, out)
	}
	if m.use != "" {
		use, err := os.ReadFile(filepath.Join("testdata", "applyuse", m.use+".go.txt"))
		if err != nil {
			t.Fatal(err)
		}
		bm.write(t, path.Join(m.usePkg, "zz_use_test.go"), string(use))
		if out, err := bm.goCmd(t, "test", "-count=1", "./"+m.usePkg); err != nil {
			t.Errorf("go test of our %s: %v\n%s", m.usePkg, err, out)
		}
	}
	if len(m.upstreamFails) == 0 {
		return
	}
	out, err = bm.goCmd(t, "build", "./upstream/...")
	if err == nil {
		t.Errorf("upstream's output was expected not to compile (%s)", strings.Join(m.upstreamFails, "; "))
	}
	for _, want := range m.upstreamFails {
		if !strings.Contains(out, want) {
			t.Errorf("building upstream's output did not fail with %q:\n%s", want, out)
		}
	}
	t.Logf("upstream's output: go build: %v\n%s", err, out)
}

// departs reports whether d, a difference diffGeneratedCode found, is one
// m expects: a file of m.oursOnly only ours have, or one of m.codeDeparts
// whose code differs.
func departs(d string, m upstreamModule) bool {
	for _, p := range m.oursOnly {
		if d == "only ours: "+p {
			return true
		}
	}
	for _, p := range m.codeDeparts {
		if strings.HasPrefix(d, p+": code differs") {
			return true
		}
	}
	return false
}
