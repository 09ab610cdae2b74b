package migration_test

import (
	"bytes"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
)

// This file checks that informer-gen writes the files upstream's
// informer-gen and lister-gen (k8s.io/code-generator, pinned in go.mod as
// tool dependencies) write: the same relative paths, each with the same
// package clause. It lives here because this module already builds upstream's
// generators; the input is the main module's generators/testdata trees, which
// every tool reads from the repository root (upstream type-checks them, so
// they must load there).

const (
	repoRoot    = "../.."
	testdataPkg = "github.com/typedinformer/typedinformer/generators/testdata"
	outPkg      = "example.com/generated"
	headerFile  = "generators/testdata/boilerplate.go.txt"
)

// layoutTree is one generators/testdata API tree and what is known to differ.
type layoutTree struct {
	dir       string // under generators/testdata
	clientset string // its stand-in clientset (--versioned-clientset-package)
	// upstreamAccepts: upstream's tools exit 0 on it.
	upstreamAccepts bool
	// dirsOnly compares directories and their package clauses, not files:
	// the tree's types are definitions, aliases and generic instances, which
	// upstream (type-checking) and informer-gen (following syntax) pick
	// differently, and upstream writes files it cannot format.
	dirsOnly bool
	// onlyUpstream are files upstream writes and informer-gen deliberately
	// does not, with why.
	onlyUpstream map[string]string
}

var layoutTrees = []layoutTree{
	{dir: "dottedapis", clientset: testdataPkg + "/dottedclientset/versioned", upstreamAccepts: true},
	{dir: "apis", clientset: testdataPkg + "/clientset/versioned", onlyUpstream: map[string]string{
		"informers/externalversions/example/v1/hidden.go": "+k8s:informer-gen=false on the type, which upstream reads only in doc.go",
		"listers/example/v1/secret.go":                    "+k8s:lister-gen=false on the type, which upstream reads only in doc.go",
		"listers/example/v1/review.go":                    "+genclient:noVerbs, which upstream lister-gen does not check",
	}},
	{dir: "oddapis", clientset: testdataPkg + "/oddclientset/versioned", dirsOnly: true},
}

// TestUpstreamLayout runs kube_codegen.sh's lister-gen and informer-gen
// command lines (gen_client --with-watch) over each testdata tree with
// upstream's binaries and with informer-gen swapped in for both, and
// compares the files written and their package clauses. Where upstream's
// package clause cannot compile (a directory named cert-manager or type),
// informer-gen keeps the directory and writes a valid package name instead.
// It takes about 20 s (upstream type-checks its input); -short skips it.
func TestUpstreamLayout(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs upstream informer-gen and lister-gen; skipped in -short mode")
	}
	bin := t.TempDir()
	goBuild(t, ".", filepath.Join(bin, "upstream")+string(filepath.Separator), "k8s.io/code-generator/cmd/informer-gen", "k8s.io/code-generator/cmd/lister-gen")
	goBuild(t, repoRoot, filepath.Join(bin, "ours", "informer-gen"), "./cmd/informer-gen")

	for _, tree := range layoutTrees {
		t.Run(tree.dir, func(t *testing.T) {
			t.Parallel()
			pkgs := treePackages(t, tree.dir)
			up, ours, oursListers := t.TempDir(), t.TempDir(), t.TempDir()
			var wg sync.WaitGroup
			var upErrs [2]error
			run := func(i int, tool, out string, args func(string) []string) {
				wg.Add(1)
				go func() {
					defer wg.Done()
					upErrs[i] = runTool(filepath.Join(bin, "upstream", tool), args(out), pkgs)
				}()
			}
			run(0, "lister-gen", up, listerGenArgs)
			run(1, "informer-gen", up, func(out string) []string { return informerGenArgs(out, tree.clientset) })
			// informer-gen given lister-gen's command line writes the listers alone.
			if err := runTool(filepath.Join(bin, "ours", "informer-gen"), listerGenArgs(oursListers), pkgs); err != nil {
				t.Errorf("informer-gen with lister-gen's command line: %v", err)
			}
			if err := runTool(filepath.Join(bin, "ours", "informer-gen"), informerGenArgs(ours, tree.clientset), pkgs); err != nil {
				t.Errorf("informer-gen with informer-gen's command line: %v", err)
			}
			wg.Wait()
			for i, tool := range []string{"lister-gen", "informer-gen"} {
				if tree.upstreamAccepts && upErrs[i] != nil {
					t.Errorf("upstream %s: %v", tool, upErrs[i])
				}
			}
			upFiles, ourFiles, ourListers := packageClauses(t, up), packageClauses(t, ours), packageClauses(t, oursListers)
			if d := onlyUnder(ourListers, "listers/"); len(d) != len(ourListers) {
				t.Errorf("with lister-gen's command line informer-gen wrote outside listers/: %v", sortedKeys(ourListers))
			}
			t.Run("lister-gen command line", func(t *testing.T) {
				compareLayout(t, tree, onlyUnder(upFiles, "listers/"), ourListers)
			})
			t.Run("informer-gen command line", func(t *testing.T) {
				compareLayout(t, tree, upFiles, ourFiles)
			})
		})
	}
}

// listerGenArgs is kube_codegen.sh's lister-gen command line for out.
func listerGenArgs(out string) []string {
	return []string{"-v", "0", "--go-header-file", headerFile,
		"--output-dir", filepath.Join(out, "listers"), "--output-pkg", outPkg + "/listers",
		"--plural-exceptions", ""}
}

// informerGenArgs is kube_codegen.sh's informer-gen command line for out.
func informerGenArgs(out, clientset string) []string {
	return []string{"-v", "0", "--go-header-file", headerFile,
		"--output-dir", filepath.Join(out, "informers"), "--output-pkg", outPkg + "/informers",
		"--versioned-clientset-package", clientset,
		"--listers-package", outPkg + "/listers",
		"--plural-exceptions", ""}
}

// compareLayout compares the files (relative path → package clause) that
// upstream and informer-gen wrote, as tree says.
func compareLayout(t *testing.T, tree layoutTree, up, ours map[string]string) {
	t.Helper()
	if tree.dirsOnly {
		up, ours = byDirectory(t, "upstream", up), byDirectory(t, "informer-gen", ours)
	}
	for p, reason := range tree.onlyUpstream {
		if _, ok := up[p]; !ok {
			continue // the other command line's file
		}
		if _, ok := ours[p]; ok {
			t.Errorf("%s: informer-gen writes it, but should not (%s)", p, reason)
		}
		delete(up, p)
	}
	for _, p := range sortedKeys(up) {
		got, ok := ours[p]
		switch {
		case !ok:
			t.Errorf("%s: upstream writes it (package %s), informer-gen does not", p, up[p])
		case usablePackageName(up[p]) && got != up[p]:
			t.Errorf("%s: package %s, upstream's is %s", p, got, up[p])
		case !usablePackageName(up[p]) && !usablePackageName(got):
			t.Errorf("%s: package %q cannot compile (upstream's: %q)", p, got, up[p])
		}
	}
	for _, p := range sortedKeys(ours) {
		if _, ok := up[p]; !ok {
			t.Errorf("%s: informer-gen writes it (package %s), upstream does not", p, ours[p])
		}
	}
}

// byDirectory maps each directory of files to the package clause its files
// share.
func byDirectory(t *testing.T, who string, files map[string]string) map[string]string {
	t.Helper()
	dirs := map[string]string{}
	for p, pkg := range files {
		d := filepath.ToSlash(filepath.Dir(p)) + "/"
		if other, ok := dirs[d]; ok && other != pkg {
			t.Errorf("%s: directory %s holds packages %s and %s", who, d, other, pkg)
		}
		dirs[d] = pkg
	}
	return dirs
}

// usablePackageName reports whether a package clause can compile.
func usablePackageName(name string) bool {
	return token.IsIdentifier(name) && !token.IsKeyword(name) && name != "_"
}

// goBuild builds pkgs in module directory dir into out.
func goBuild(t *testing.T, dir, out string, pkgs ...string) {
	t.Helper()
	cmd := exec.Command("go", append([]string{"build", "-o", out}, pkgs...)...)
	cmd.Dir = dir
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %v: %v\n%s", pkgs, err, b)
	}
}

// runTool runs a generator from the repository root with args and the input
// packages, as kube_codegen.sh passes them (import paths, last).
func runTool(bin string, args, pkgs []string) error {
	cmd := exec.Command(bin, append(append([]string{}, args...), pkgs...)...)
	cmd.Dir = repoRoot
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return &toolError{err: err, output: lastLines(out.String(), 8)}
	}
	return nil
}

type toolError struct {
	err    error
	output string
}

func (e *toolError) Error() string { return e.err.Error() + "\n" + e.output }

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// treePackages returns the import paths of the packages of a testdata tree,
// sorted.
func treePackages(t *testing.T, tree string) []string {
	t.Helper()
	root := filepath.Join(repoRoot, "generators", "testdata", tree)
	seen := map[string]bool{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") {
			return err
		}
		rel, err := filepath.Rel(root, filepath.Dir(p))
		if err != nil {
			return err
		}
		seen[testdataPkg+"/"+tree+"/"+filepath.ToSlash(rel)] = true
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return sortedKeys(seen)
}

// packageClauses maps every .go file under dir (slash-separated, relative)
// to its package clause. A file whose package clause does not parse (upstream
// writes unformatted files it could not format, such as "package
// cert-manager") gets the text after "package " on its line.
func packageClauses(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out[filepath.ToSlash(rel)] = packageClause(src)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func packageClause(src []byte) string {
	if f, err := parser.ParseFile(token.NewFileSet(), "", src, parser.PackageClauseOnly); err == nil {
		return f.Name.Name
	}
	for _, line := range strings.Split(string(src), "\n") {
		if name, ok := strings.CutPrefix(line, "package "); ok {
			return strings.TrimSpace(name)
		}
	}
	return ""
}

// onlyUnder returns the entries of files whose path starts with prefix.
func onlyUnder(files map[string]string, prefix string) map[string]string {
	out := map[string]string{}
	for p, pkg := range files {
		if strings.HasPrefix(p, prefix) {
			out[p] = pkg
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
