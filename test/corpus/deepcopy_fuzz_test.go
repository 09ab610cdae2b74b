package corpus

import (
	"bytes"
	"context"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/typedinformer/typedinformer/generators"
)

// deepFuzzModule is the module path of the copy the fuzz runs in; the
// copied packages keep their import paths under it.
const deepFuzzModule = "deepfuzz.test"

// deepFuzzIterations is the number of random values filled per type.
const deepFuzzIterations = 300

// TestDeepCopyFuzzMatchesShipped copies k8s.io/api v0.37.2 and
// apimachinery's pkg/apis/meta/v1 into a module of their own (import
// paths under deepfuzz.test/), without their shipped deepcopy files,
// generates ours into the copy, and runs a test program there that, for
// every type our files give a DeepCopy, fills values of the shipped type
// at random and requires of our DeepCopy, DeepCopyInto and DeepCopyObject
// (run on the same memory read as the copy's type): a value equal to what
// the shipped function of the same name gives, no pointer target, slice
// element or map shared with the original, and an original left unchanged when every member of the
// copy is changed. Every type is filled on its own, so a member type's
// copy functions are fuzzed in full even where they sit too deep in a
// larger type for randfill's depth limit.
//
// DEEPFUZZ_DIR, if set, names an empty directory to write the module to
// and leave there, for running the program by hand:
// go test -trimpath ./deepfuzz -iterations N -seed S.
func TestDeepCopyFuzzMatchesShipped(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two copies of k8s.io/api and fuzzes every type; skipped in -short mode")
	}
	t.Setenv("GOWORK", "off")
	t.Setenv("GOFLAGS", "-mod=mod")
	dir := os.Getenv("DEEPFUZZ_DIR")
	if dir == "" {
		dir = t.TempDir()
	}
	start := time.Now()
	apiDir, machineryDir := moduleDir(t, "k8s.io/api"), moduleDir(t, "k8s.io/apimachinery")
	// The protobuf code of k8s.io/api, a third of its source, is left
	// out of the copy (nothing else in it calls that code); meta/v1's
	// time types call theirs.
	copyForFuzz(t, apiDir, filepath.Join(dir, "k8s.io", "api"), true, "generated.pb.go")
	copyForFuzz(t, filepath.Join(machineryDir, "pkg", "apis", "meta", "v1"), filepath.Join(dir, "k8s.io", "apimachinery", "pkg", "apis", "meta", "v1"), false)
	writeFuzzModule(t, dir)

	res, err := generators.Build(context.Background(), generators.Options{
		Patterns:     []string{"./k8s.io/..."},
		WorkDir:      dir,
		DeepCopyOnly: true,
	})
	if err != nil {
		t.Fatalf("build: %v", err)
	}
	var pkgs []fuzzPackage
	for _, f := range res.Files {
		if err := os.WriteFile(f.Path, f.Content, 0o644); err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, deepCopiedTypes(t, dir, f.Path, f.Content))
	}
	if want := len(shippedDeepCopy(t, apiDir)) + 1; len(pkgs) != want {
		t.Fatalf("generated %d deepcopy files into the copy, want %d (one per package that ships one)", len(pkgs), want)
	}
	slices.SortFunc(pkgs, func(a, b fuzzPackage) int { return strings.Compare(a.importPath, b.importPath) })
	cases := fuzzCases(t, pkgs)
	harness, err := os.ReadFile(filepath.Join("testdata", "deepfuzz", "harness_test.go.txt"))
	if err != nil {
		t.Fatal(err)
	}
	prog := filepath.Join(dir, "deepfuzz")
	if err := os.MkdirAll(prog, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, src := range map[string][]byte{"harness_test.go": harness, "cases_test.go": cases} {
		if err := os.WriteFile(filepath.Join(prog, name), src, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("copied and generated %d packages: %v", len(pkgs), time.Since(start).Round(time.Millisecond))

	start = time.Now()
	// -trimpath keeps the temporary directory out of the build cache's
	// keys, so that a second run reuses the compiled copy.
	cmd := exec.Command("go", "test", "-trimpath", "-count=1", "-v", "./deepfuzz", "-iterations", strconv.Itoa(deepFuzzIterations))
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the DeepCopy fuzz failed (%v):\n%s", err, failureLines(out))
	}
	for _, line := range strings.Split(string(out), "\n") {
		if strings.Contains(line, "types, ") {
			t.Logf("%s (go test: %v)", strings.TrimSpace(line), time.Since(start).Round(time.Millisecond))
		}
	}
}

// maxFailureLines bounds the go test output a failure shows: a broken
// copy function fails every type that reaches it.
const maxFailureLines = 60

// failureLines keeps the lines of go test -v output that are not a
// passing subtest's or a subtest's FAIL line, the first maxFailureLines
// of them, and counts the failed types.
func failureLines(out []byte) string {
	var keep []string
	failed := 0
	for _, line := range strings.Split(string(out), "\n") {
		l := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(l, "--- FAIL: TestDeepCopy/"):
			failed++
			continue
		case l == "", strings.HasPrefix(l, "=== "), strings.HasPrefix(l, "--- PASS"):
			continue
		}
		keep = append(keep, line)
	}
	if len(keep) > maxFailureLines {
		keep = append(keep[:maxFailureLines], fmt.Sprintf("... %d more lines", len(keep)-maxFailureLines))
	}
	return fmt.Sprintf("%d types failed\n%s", failed, strings.Join(keep, "\n"))
}

// copyForFuzz copies the non-test Go files of the package directories
// under from (only from itself unless recursive) to to, leaving out the
// shipped deepcopy functions, the declarative validations (which call
// apimachinery packages with the shipped types) and the files named in
// drop, and moves every import of k8s.io/api/... and of meta/v1 under
// deepFuzzModule.
func copyForFuzz(t *testing.T, from, to string, recursive bool, drop ...string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != from && (!recursive || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		name := d.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") ||
			name == "zz_generated.deepcopy.go" || name == "zz_generated.validations.go" || slices.Contains(drop, name) {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		src, err = rewriteFuzzImports(p, src)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(from, p)
		if err != nil {
			return err
		}
		dst := filepath.Join(to, rel)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		return os.WriteFile(dst, src, 0o644)
	})
	if err != nil {
		t.Fatalf("copying %s: %v", from, err)
	}
}

// copiedPackage reports whether an import path is one the fuzz copies.
func copiedPackage(importPath string) bool {
	return strings.HasPrefix(importPath, "k8s.io/api/") || importPath == "k8s.io/apimachinery/pkg/apis/meta/v1"
}

// rewriteFuzzImports returns src with each import of a copied package
// moved under deepFuzzModule; nothing else changes.
func rewriteFuzzImports(name string, src []byte) ([]byte, error) {
	f, err := parser.ParseFile(token.NewFileSet(), name, src, parser.ImportsOnly)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	last := 0
	for _, imp := range f.Imports {
		p, err := strconv.Unquote(imp.Path.Value)
		if err != nil {
			return nil, fmt.Errorf("%s: import %s: %w", name, imp.Path.Value, err)
		}
		if !copiedPackage(p) {
			continue
		}
		// ParseFile's positions start at 1 for the file's first byte.
		start, end := int(imp.Path.Pos())-1, int(imp.Path.End())-1
		out.Write(src[last:start])
		out.WriteString(strconv.Quote(deepFuzzModule + "/" + p))
		last = end
	}
	out.Write(src[last:])
	return out.Bytes(), nil
}

// writeFuzzModule writes the copy's go.mod, which requires the shipped
// modules the test program compares with, and this module's go.sum.
func writeFuzzModule(t *testing.T, dir string) {
	t.Helper()
	sum, err := os.ReadFile("go.sum")
	if err != nil {
		t.Fatal(err)
	}
	mod := "module " + deepFuzzModule + "\n\ngo 1.26.0\n\nrequire (\n" +
		"\tgopkg.in/inf.v0 v0.9.1\n" +
		"\tk8s.io/api v0.37.2\n" +
		"\tk8s.io/apimachinery v0.37.2\n" +
		"\tsigs.k8s.io/randfill v1.0.0\n)\n"
	for name, data := range map[string][]byte{"go.mod": []byte(mod), "go.sum": sum} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// fuzzPackage is a package of the copy with the types its generated
// deepcopy file gives DeepCopy.
type fuzzPackage struct {
	importPath string // in the copy
	types      []fuzzType
}

// fuzzType is a type with a generated DeepCopy.
type fuzzType struct {
	name string
	// pointer is set where DeepCopy has a pointer receiver (structs); a
	// named map or slice type has a value receiver.
	pointer bool
	object  bool // it has DeepCopyObject
}

// deepCopiedTypes reads a generated deepcopy file and lists the types it
// declares DeepCopy for, with their receivers, and which of them have
// DeepCopyObject.
func deepCopiedTypes(t *testing.T, dir, file string, src []byte) fuzzPackage {
	t.Helper()
	rel, err := filepath.Rel(dir, filepath.Dir(file))
	if err != nil || strings.HasPrefix(rel, "..") {
		t.Fatalf("%s: generated outside the copy %s", file, dir)
	}
	f, err := parser.ParseFile(token.NewFileSet(), file, src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatalf("parsing generated %s: %v", file, err)
	}
	pkg := fuzzPackage{importPath: deepFuzzModule + "/" + filepath.ToSlash(rel)}
	byName := map[string]*fuzzType{}
	var order []string
	for _, decl := range f.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok || fn.Recv == nil || len(fn.Recv.List) != 1 {
			continue
		}
		recv := fn.Recv.List[0].Type
		star, pointer := recv.(*ast.StarExpr)
		if pointer {
			recv = star.X
		}
		id, ok := recv.(*ast.Ident)
		if !ok {
			t.Fatalf("%s: %s has a receiver that is not a named type", file, fn.Name.Name)
		}
		switch fn.Name.Name {
		case "DeepCopy":
			if byName[id.Name] == nil {
				byName[id.Name] = &fuzzType{name: id.Name}
				order = append(order, id.Name)
			}
			byName[id.Name].pointer = pointer
		case "DeepCopyObject":
			if byName[id.Name] == nil {
				byName[id.Name] = &fuzzType{name: id.Name}
				order = append(order, id.Name)
			}
			byName[id.Name].object = true
		}
	}
	for _, n := range order {
		pkg.types = append(pkg.types, *byName[n])
	}
	if len(pkg.types) == 0 {
		t.Fatalf("%s declares no DeepCopy", file)
	}
	return pkg
}

// fuzzCases writes the test program's list of cases: one per type, each
// with the shipped and our copy functions.
func fuzzCases(t *testing.T, pkgs []fuzzPackage) []byte {
	t.Helper()
	var b bytes.Buffer
	b.WriteString("package deepfuzz\n\nimport (\n\t\"k8s.io/apimachinery/pkg/runtime\"\n")
	for i, p := range pkgs {
		shipped := strings.TrimPrefix(p.importPath, deepFuzzModule+"/")
		fmt.Fprintf(&b, "\ts%d %q\n\to%d %q\n", i, shipped, i, p.importPath)
	}
	b.WriteString(")\n\nvar _ runtime.Object\n\nvar cases = []fuzzCase{\n")
	n := 0
	for i, p := range pkgs {
		shipped := strings.TrimPrefix(p.importPath, deepFuzzModule+"/")
		short := strings.TrimPrefix(strings.TrimPrefix(shipped, "k8s.io/api/"), "k8s.io/apimachinery/pkg/apis/")
		for _, ty := range p.types {
			s, o := fmt.Sprintf("s%d.%s", i, ty.name), fmt.Sprintf("o%d.%s", i, ty.name)
			name := strconv.Quote(path.Join(short, ty.name))
			n++
			if !ty.pointer {
				if ty.object {
					t.Fatalf("%s.%s: DeepCopyObject on a type whose DeepCopy has a value receiver", p.importPath, ty.name)
				}
				fmt.Fprintf(&b, "\ttypeCase[%[1]s, %[2]s]{typeName: %[3]s, shipped: byValue(%[1]s.DeepCopy), shippedInto: intoByValue(%[1]s.DeepCopyInto), ours: byValue(%[2]s.DeepCopy), oursInto: intoByValue(%[2]s.DeepCopyInto)},\n",
					s, o, name)
				continue
			}
			objects := ""
			if ty.object {
				objects = fmt.Sprintf(", shippedObject: (*%s).DeepCopyObject, oursObject: (*%s).DeepCopyObject", s, o)
			}
			fmt.Fprintf(&b, "\ttypeCase[%[1]s, %[2]s]{typeName: %[3]s, shipped: (*%[1]s).DeepCopy, shippedInto: (*%[1]s).DeepCopyInto, ours: (*%[2]s).DeepCopy, oursInto: (*%[2]s).DeepCopyInto%[4]s, pointerReceiver: true},\n",
				s, o, name, objects)
		}
	}
	b.WriteString("}\n")
	src, err := format.Source(b.Bytes())
	if err != nil {
		t.Fatalf("formatting the cases: %v\n%s", err, b.Bytes())
	}
	t.Logf("%d types to fuzz", n)
	return src
}
