package generators

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/typedinformer/typedinformer/generators/internal/inputerr"
	"github.com/typedinformer/typedinformer/generators/model"
)

// fuzzBase is the fixed part of the fuzzed API package: a struct other
// declarations can be defined as, and a listable type that is always there
// (so that every run has output, and collisions with it are exercised).
const fuzzBase = `package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Bar is a struct to define other types as.
type Bar struct {
	metav1.TypeMeta   ` + "`json:\",inline\"`" + `
	metav1.ObjectMeta ` + "`json:\"metadata,omitempty\"`" + `
}

// DeepCopyObject returns a copy.
func (in *Bar) DeepCopyObject() runtime.Object { out := *in; return &out }

// +genclient

// Fixed is always generated.
type Fixed struct {
	metav1.TypeMeta   ` + "`json:\",inline\"`" + `
	metav1.ObjectMeta ` + "`json:\"metadata,omitempty\"`" + `
}

// DeepCopyObject returns a copy.
func (in *Fixed) DeepCopyObject() runtime.Object { out := *in; return &out }
`

// FuzzGenerate feeds the generator a type declaration and the tag comment
// above it. It must either fail with an InputError at file:line, writing
// nothing, or produce code that type-checks (go/types) together with the
// API package and a clientset with client-gen's names. Inputs whose API
// package is not valid Go themselves are skipped: the generator reads syntax
// only, by design. Run the seeds with go test; fuzz with
// go test ./generators -run '^$' -fuzz FuzzGenerate.
func FuzzGenerate(f *testing.F) {
	for _, seed := range [][2]string{
		{"+genclient", "Foo struct{ metav1.TypeMeta; metav1.ObjectMeta }"},
		{"+genclient\n+genclient:nonNamespaced", "Ñandu struct{ metav1.TypeMeta; metav1.ObjectMeta }"},
		{"+genclient", "Foo[T any] struct{ metav1.TypeMeta; metav1.ObjectMeta }"},
		{"+genclient", "日本 struct{ metav1.ObjectMeta }"},
		{"+genclient", "foo struct{ metav1.ObjectMeta }"},
		{"+genclient\n+resourceName=fixeds", "Foo Bar"},
		{"+genclient", "Foo = Bar"},
		{"+genclient", "FixedNamespace Bar"},
		{"+genclient", "FIXED Bar"},
		{"+genclient", "FilteredFixed Bar"},
		{"+genclient", "Interface Bar"},
		{"+genclient", "Fixed_test Bar"},
		{"+genclient", "Foo_windows Bar"},
		{"+genclient:noVerbs\n+genclient", "Foo struct{}"},
		{"+genclient\n+genclient:onlyVerbs=list,get", "Foo struct{ metav1.TypeMeta; metav1.ObjectMeta }"},
		{"+genclient\n+genclient:skipVerbs=watch", "Foo Bar"},
		{"+genclient\n+k8s:lister-gen=false", "Foo Bar"},
		{"+genclient\n+genclient:readonly\n+genclient:nonNamespaced", "List Bar"},
		{"+genclient\n+genclient:nonNamespace", "Foo Bar"},
		{"+genclient=true", "Foo Bar"},
		{"+genclient", "Foo Baz"},
		{"+genclient", "Foo *Bar"},
		{"+genclient", "Foo struct{ metav1.TypeMeta; *metav1.ObjectMeta }"},
	} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, tags, decl string) {
		var comment strings.Builder
		for _, line := range strings.Split(tags, "\n") {
			comment.WriteString("// " + line + "\n")
		}
		src := "package v1\n\nimport metav1 \"k8s.io/apimachinery/pkg/apis/meta/v1\"\n\nvar _ metav1.Object\n\n" +
			comment.String() + "type " + decl + "\n"
		dir := t.TempDir()
		writeTree(t, dir, map[string]string{
			"go.mod":               "module example.com/fz\n\ngo 1.26\n",
			"apis/foo/v1/doc.go":   "// +groupName=foo.example.com\npackage v1\n",
			"apis/foo/v1/base.go":  fuzzBase,
			"apis/foo/v1/types.go": src,
		})
		before := snapshot(t, dir)
		opts := Options{
			Patterns:                  []string{"./apis/..."},
			WorkDir:                   dir,
			OutputDir:                 "gen",
			OutputPkg:                 "example.com/fz/gen",
			VersionedClientsetPackage: "example.com/fz/clientset",
			Now:                       fixedNow,
		}
		res, err := Build(context.Background(), opts)
		if d := diffSnapshots(before, snapshot(t, dir)); d != "" {
			t.Fatalf("Build changed the tree: %s", d)
		}
		if err != nil {
			var ie *inputerr.InputError
			if !errors.As(err, &ie) {
				t.Fatalf("not an input error: %v", err)
			}
			if !regexp.MustCompile(`^apis/foo/v1/[a-z]+\.go:[0-9]+$`).MatchString(filepath.ToSlash(ie.Pos)) {
				t.Fatalf("input error without file:line: %v", err)
			}
			return
		}
		checkCompiles(t, dir, res, "example.com/fz")
	})
}

// checkCompiles type-checks the API packages under dir/apis, a clientset
// stub derived from the model, and every generated package of res.
func checkCompiles(t *testing.T, dir string, res *Result, module string) {
	t.Helper()
	sources := map[string]map[string][]byte{} // import path → file name → source
	add := func(ip, name string, src []byte) {
		if sources[ip] == nil {
			sources[ip] = map[string][]byte{}
		}
		sources[ip][name] = src
	}
	err := filepath.WalkDir(filepath.Join(dir, "apis"), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") {
			return err
		}
		rel, _ := filepath.Rel(dir, filepath.Dir(p))
		data, err := os.ReadFile(p)
		add(path.Join(module, filepath.ToSlash(rel)), filepath.Base(p), data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	add(module+"/clientset", "clientset.go", clientsetStub(res.Model))
	for _, file := range res.Files {
		rel, err := filepath.Rel(dir, filepath.Dir(file.Path))
		if err != nil {
			t.Fatal(err)
		}
		add(path.Join(module, filepath.ToSlash(rel)), filepath.Base(file.Path), file.Content)
	}
	tc := newTypeChecker(t, sources)
	var apiPaths, genPaths []string
	for ip := range sources {
		if strings.HasPrefix(ip, module+"/apis/") {
			apiPaths = append(apiPaths, ip)
		} else {
			genPaths = append(genPaths, ip)
		}
	}
	sort.Strings(apiPaths)
	sort.Strings(genPaths)
	// deepcopy-gen would give every type DeepCopyObject: add the missing ones.
	missing := false
	for _, ip := range apiPaths {
		p, err := tc.Import(ip)
		if err != nil {
			t.Skipf("the API package is not valid Go: %v", err)
		}
		var extra strings.Builder
		for _, g := range res.Model.Groups {
			for _, v := range g.Versions {
				if v.APIPackage != ip {
					continue
				}
				for _, typ := range v.Types {
					tn, ok := p.Scope().Lookup(typ.Name).(*types.TypeName)
					if !ok || tn.IsAlias() {
						continue
					}
					recv := typ.Name
					if named, ok := tn.Type().(*types.Named); ok && named.TypeParams().Len() > 0 {
						recv += "[" + strings.TrimSuffix(strings.Repeat("_, ", named.TypeParams().Len()), ", ") + "]"
					} else if obj, _, _ := types.LookupFieldOrMethod(types.NewPointer(tn.Type()), true, p, "DeepCopyObject"); obj != nil {
						continue
					}
					fmt.Fprintf(&extra, "func (in *%s) DeepCopyObject() runtime.Object { out := *in; return &out }\n", recv)
				}
			}
		}
		if extra.Len() > 0 {
			add(ip, "zz_deepcopy.go", []byte("package "+p.Name()+"\n\nimport \"k8s.io/apimachinery/pkg/runtime\"\n\n"+extra.String()))
			missing = true
		}
	}
	if missing {
		tc = newTypeChecker(t, sources)
		for _, ip := range apiPaths {
			if _, err := tc.Import(ip); err != nil {
				t.Skipf("the API package cannot be given DeepCopyObject methods: %v", err)
			}
		}
	}
	for _, ip := range genPaths {
		if _, err := tc.Import(ip); err != nil {
			var all bytes.Buffer
			for name, src := range sources[ip] {
				fmt.Fprintf(&all, "=== %s\n%s\n", name, src)
			}
			t.Fatalf("generated package %s does not compile: %v\n%s", ip, err, all.String())
		}
	}
}

// clientsetStub is a client-gen clientset reduced to what informers call,
// with client-gen's names for the model's groups, versions and types, and
// the testdata stand-in for client-go's REST client.
func clientsetStub(m *model.Model) []byte {
	var b strings.Builder
	b.WriteString("package versioned\n\nimport (\n\t\"context\"\n\n\tmetav1 \"k8s.io/apimachinery/pkg/apis/meta/v1\"\n\t\"k8s.io/apimachinery/pkg/runtime\"\n\t\"k8s.io/apimachinery/pkg/watch\"\n\n\t\"" + thisModule + "/generators/testdata/restclient\"\n)\n\n")
	b.WriteString("type ListWatcher interface {\n\tList(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error)\n\tWatch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error)\n}\n\n")
	b.WriteString("type Interface interface {\n")
	for _, g := range m.Groups {
		for _, v := range g.Versions {
			fmt.Fprintf(&b, "\t%s%s() interface {\n\t\tRESTClient() restclient.Interface\n", g.GoName, v.GoName)
			for _, t := range v.Types {
				if t.Namespaced {
					fmt.Fprintf(&b, "\t\t%s(namespace string) ListWatcher\n", t.Plural)
				} else {
					fmt.Fprintf(&b, "\t\t%s() ListWatcher\n", t.Plural)
				}
			}
			b.WriteString("\t}\n")
		}
	}
	b.WriteString("}\n")
	return []byte(b.String())
}

// typeChecker type-checks in-memory packages; everything else is imported
// from the export data the go tool built for this module's dependencies.
type typeChecker struct {
	fset    *token.FileSet
	sources map[string]map[string][]byte
	checked map[string]*types.Package
	errs    map[string]error
}

var (
	exportOnce  sync.Once
	exportFiles map[string]string
	exportErr   error
	exportMu    sync.Mutex
	gcImporter  types.Importer
	exportFset  = token.NewFileSet()
)

// exportData maps the import paths generated code uses (and their
// dependencies) to their export data files, built once per test binary.
func exportData(t *testing.T) {
	t.Helper()
	exportOnce.Do(func() {
		cmd := exec.Command("go", "list", "-export", "-deps", "-f", "{{.ImportPath}}\t{{.Export}}",
			"k8s.io/apimachinery/pkg/apis/meta/v1", "k8s.io/apimachinery/pkg/labels",
			"k8s.io/apimachinery/pkg/runtime", "k8s.io/apimachinery/pkg/runtime/schema", "k8s.io/apimachinery/pkg/watch",
			thisModule+"/runtime/cache", thisModule+"/runtime/informers", thisModule+"/runtime/listers", thisModule+"/runtime/wire",
			thisModule+"/generators/testdata/restclient")
		out, err := cmd.Output()
		if err != nil {
			exportErr = fmt.Errorf("go list -export: %w", err)
			return
		}
		exportFiles = map[string]string{}
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			if ip, file, ok := strings.Cut(line, "\t"); ok && file != "" {
				exportFiles[ip] = file
			}
		}
		gcImporter = importer.ForCompiler(exportFset, "gc", func(p string) (io.ReadCloser, error) {
			file, ok := exportFiles[p]
			if !ok {
				return nil, fmt.Errorf("no export data for %s", p)
			}
			return os.Open(file)
		})
	})
	if exportErr != nil {
		t.Fatal(exportErr)
	}
}

func newTypeChecker(t *testing.T, sources map[string]map[string][]byte) *typeChecker {
	exportData(t)
	return &typeChecker{fset: token.NewFileSet(), sources: sources, checked: map[string]*types.Package{}, errs: map[string]error{}}
}

// Import type-checks an in-memory package (once), or imports a dependency.
func (c *typeChecker) Import(ip string) (*types.Package, error) {
	if p, ok := c.checked[ip]; ok {
		return p, c.errs[ip]
	}
	files, ok := c.sources[ip]
	if !ok {
		exportMu.Lock()
		defer exportMu.Unlock()
		return gcImporter.Import(ip)
	}
	var names []string
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	var parsed []*ast.File
	for _, name := range names {
		af, err := parser.ParseFile(c.fset, ip+"/"+name, files[name], parser.SkipObjectResolution)
		if err != nil {
			c.checked[ip], c.errs[ip] = nil, err
			return nil, err
		}
		parsed = append(parsed, af)
	}
	var first error
	conf := types.Config{Importer: c, Error: func(err error) {
		if first == nil {
			first = err
		}
	}}
	p, _ := conf.Check(ip, c.fset, parsed, nil)
	c.checked[ip], c.errs[ip] = p, first
	return p, first
}
