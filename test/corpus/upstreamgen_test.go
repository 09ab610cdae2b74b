package corpus

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/typedinformer/typedinformer/generators"
)

// codeGeneratorVersion is the k8s.io/code-generator whose client-gen and
// applyconfiguration-gen the generated code is compared with.
const codeGeneratorVersion = "v0.37.2"

// upstreamModule is a public API module, at a pinned version, whose
// group-versions both generators are run on.
type upstreamModule struct {
	name, module, version string
	// inputs are the API packages, relative to the module path.
	inputs []string
	// build: both generators run inside a buildModule requiring this
	// module, where our output is then vetted and upstream's built.
	build bool
	// upstreamFails are what building upstream's output there fails with
	// (substrings of go build's output); without them upstream's is not
	// built.
	upstreamFails []string
	// use names testdata/applyuse/<use>.go.txt, a test file run with go
	// test in our apply configuration package usePkg (relative to the
	// output): it sets members through the With methods whose code departs
	// from upstream's and round-trips the apply configurations through
	// JSON.
	usePkg, use string
	// oursOnly are the files only ours write and codeDeparts those whose
	// code is ours, where upstream's do not compile: the apply
	// configurations of +genclient types that embed another package's
	// ObjectMeta (applyconfiguration-gen writes none, and client-gen's
	// Apply methods then name a missing type), and those of structs with
	// a member of an unexported type (which ours leave out).
	oursOnly, codeDeparts []string
	// notBuilt are packages of our output (relative) left out of go vet:
	// client-gen's code, upstream's and ours alike, does not compile there.
	notBuilt []string
}

var upstreamModules = []upstreamModule{
	{
		// apis/v1alpha2 embeds v1's CommonRouteSpec through an alias
		// declared in a file without json tags, and defines GRPCRoute and
		// others as v1's types ("type GRPCRoute v1.GRPCRoute"), whose Status
		// member comes from the struct they are defined as.
		name: "gatewayapi", module: "sigs.k8s.io/gateway-api", version: "v1.6.3",
		inputs: []string{"apis/v1", "apis/v1alpha2", "apis/v1alpha3", "apis/v1beta1", "apisx/v1alpha1"},
	},
	{
		// v2's CleanupPolicySpec has members of type MatchResources, an
		// alias of v2beta1's declared in a file of its own. The other
		// group-versions load the same dependencies and add little time.
		name: "kyverno", module: "github.com/kyverno/kyverno", version: "v1.19.1",
		inputs: []string{"api/kyverno/v1", "api/kyverno/v1beta1", "api/kyverno/v2", "api/kyverno/v2alpha1", "api/kyverno/v2beta1", "api/policyreport/v1alpha2", "api/reports/v1"},
	},
	{
		// kueue/v1alpha1 has a +genclient line but no type: client-gen
		// writes an empty KueueV1alpha1 client.
		name: "kueue", module: "sigs.k8s.io/kueue", version: "v0.17.0",
		inputs: []string{"apis/kueue/v1alpha1", "apis/kueue/v1beta1", "apis/kueue/v1beta2", "apis/visibility/v1beta1", "apis/visibility/v1beta2"},
	},
	{
		// Structs embed runtime.TypeMeta and knative's duckv1.Status
		// inline; members are of aliases declared in packages that are no
		// input (pod.PodTemplate = pod.Template; resource/v1alpha1's
		// PipelineResourceType = string).
		name: "tekton", module: "github.com/tektoncd/pipeline", version: "v1.6.0",
		inputs: []string{"pkg/apis/pipeline/v1", "pkg/apis/pipeline/v1beta1"},
		build:  true, upstreamFails: []string{"cannot use &value (value of type *string) as string value"},
		usePkg: "applyconfiguration/pipeline/v1", use: "tekton",
	},
	{
		// SidecarContainer embeds k8s.io/api's Container inline and
		// ContainerProbeSpec its Probe.
		name: "openkruise", module: "github.com/openkruise/kruise-api", version: "v1.8.0",
		inputs: []string{"apps/v1alpha1"},
		build:  true, upstreamFails: []string{"cannot use &value (value of type *string) as string value"},
		usePkg: "applyconfiguration/apps/v1alpha1", use: "openkruise",
	},
	{
		// specs' HTTPMatch has a member of an unexported type
		// (httpHeaders); metrics' TrafficMetrics embeds *Interval inline.
		// The module requires apimachinery v0.18, whose ObjectMeta has
		// ClusterName: generated against it, neither side's apply
		// configurations would compile with client-go v0.37.2's.
		name: "smi", module: "github.com/servicemeshinterface/smi-sdk-go", version: "v0.5.0",
		inputs: []string{"pkg/apis/access/v1alpha3", "pkg/apis/metrics/v1alpha1", "pkg/apis/specs/v1alpha2", "pkg/apis/specs/v1alpha4", "pkg/apis/split/v1alpha4"},
		build:  true, upstreamFails: []string{"name httpHeaders not exported by package v1alpha2"},
		usePkg: "applyconfiguration/specs/v1alpha2", use: "smi",
		codeDeparts: []string{"applyconfiguration/specs/v1alpha2/httpmatch.go", "applyconfiguration/specs/v1alpha4/httpmatch.go"},
		// TrafficMetricsList's Items are pointers ([]*TrafficMetrics),
		// which the fake client's list conversion does not take.
		notBuilt: []string{"clientset/versioned/typed/metrics/v1alpha1/fake", "clientset/versioned/fake"},
	},
	{
		// Members are uint8 (applyconfiguration-gen writes byte) and of
		// cilium's slim copies of k8s.io/api and meta/v1 types.
		name: "cilium", module: "github.com/cilium/cilium", version: "v1.20.2",
		inputs: []string{"pkg/k8s/apis/cilium.io/v2", "pkg/k8s/apis/cilium.io/v2alpha1"},
		build:  true,
	},
	{
		// cilium's slim core, discovery and networking types, as its own
		// gen_client generates their clientset.
		name: "ciliumslim", module: "github.com/cilium/cilium", version: "v1.20.2",
		inputs: []string{"pkg/k8s/slim/k8s/api/core/v1", "pkg/k8s/slim/k8s/api/discovery/v1", "pkg/k8s/slim/k8s/api/networking/v1"},
		build:  true, upstreamFails: []string{"undefined: applyconfigurationcorev1.NamespaceApplyConfiguration"},
		usePkg: "applyconfiguration/core/v1", use: "ciliumslim",
		oursOnly: []string{
			"applyconfiguration/core/v1/namespace.go", "applyconfiguration/core/v1/node.go", "applyconfiguration/core/v1/pod.go",
			"applyconfiguration/core/v1/secret.go", "applyconfiguration/core/v1/service.go",
			"applyconfiguration/discovery/v1/endpointslice.go", "applyconfiguration/networking/v1/networkpolicy.go",
		},
		codeDeparts: []string{"applyconfiguration/utils.go"},
	},
}

// knownCodeDifferences are the generated files whose code (not only
// comments) is ours and not client-gen's, with why; every other file must
// have the same code.
var knownCodeDifferences = map[string]string{
	"clientset/versioned/clientset.go":                "the clientset's unexported fields are named after the typed packages' import names",
	"clientset/versioned/fake/clientset_generated.go": "NewSimpleClientset and NewClientset share one unexported constructor",
}

// TestClientsetAndApplyConfigurationsMatchUpstreamGenerators runs
// code-generator v0.37.2's applyconfiguration-gen, client-gen, lister-gen
// and informer-gen, as kube_codegen.sh's gen_client runs them, and
// informer-gen with --with-clientset --with-applyconfig on the
// group-versions of public API modules (fetched with go mod download, each
// run inside its own module so that its go.mod picks the dependencies). The
// clientset and the apply configurations must be the same files with the
// same code: each file is compared with its comments removed (the generated
// comments are written in our own words) and every import qualifier
// replaced by the import path it stands for (the import names are chosen by
// our own rule); the files of knownCodeDifferences only have to exist on
// both sides. The listers and informers, whose signatures name the
// runtime's types where upstream's name client-go's, must be the same files
// and hold every exported name upstream's declare (sourceNames).
func TestClientsetAndApplyConfigurationsMatchUpstreamGenerators(t *testing.T) {
	if testing.Short() {
		t.Skip("runs upstream's type-checking generators over public API modules; skipped in -short mode")
	}
	// Each module is its own main module; a go.work shipped in a module
	// zip would name directories the zip does not hold.
	t.Setenv("GOWORK", "off")
	bin := installUpstreamGenerators(t, "applyconfiguration-gen", "client-gen", "lister-gen", "informer-gen")
	header, err := filepath.Abs(filepath.Join("..", "..", "hack", "boilerplate.go.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range upstreamModules {
		t.Run(m.name, func(t *testing.T) {
			modDir := downloadModule(t, m.module+"@"+m.version)
			out := t.TempDir()
			outPkg := m.module + "/zz_generated"
			inputs := make([]string, len(m.inputs))
			for i, in := range m.inputs {
				inputs[i] = path.Join(m.module, in)
			}
			workDir := modDir
			var bm *buildModule
			if m.build {
				bm = newBuildModule(t, m, outPkg, inputs)
				workDir = bm.dir
			}
			start := time.Now()
			runUpstreamClientGenerators(t, bin, workDir, header, filepath.Join(out, "upstream"), outPkg, m.module, m.inputs, inputs)
			t.Logf("upstream's generators: %v", time.Since(start).Round(time.Millisecond))

			start = time.Now()
			res, err := generators.Build(context.Background(), generators.Options{
				Patterns:                  inputs,
				WorkDir:                   workDir,
				OutputDir:                 filepath.Join(out, "ours"),
				OutputPkg:                 outPkg,
				HeaderFile:                header,
				WithClientset:             true,
				ClientsetPackage:          outPkg + "/clientset",
				ClientsetDir:              filepath.Join(out, "ours", "clientset"),
				WithApplyConfig:           true,
				ApplyConfigurationPackage: outPkg + "/applyconfiguration",
				ApplyConfigurationDir:     filepath.Join(out, "ours", "applyconfiguration"),
				Now:                       func() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) },
			})
			if err != nil {
				t.Fatalf("informer-gen: %v", err)
			}
			t.Logf("informer-gen: %d files, %v", len(res.Files), time.Since(start).Round(time.Millisecond))
			ours := map[string][]byte{}
			for _, f := range res.Files {
				rel, err := filepath.Rel(filepath.Join(out, "ours"), f.Path)
				if err != nil {
					t.Fatal(err)
				}
				ours[filepath.ToSlash(rel)] = f.Content
			}
			theirs := readGoFiles(t, filepath.Join(out, "upstream"))
			oursCode, theirsCode := filesUnder(ours, "clientset/", "applyconfiguration/"), filesUnder(theirs, "clientset/", "applyconfiguration/")
			if m.build {
				// Built below: a With method of an embedded API type's
				// member that is no pointer stores the value, where
				// upstream's stores its address and does not compile.
				departing := valueDepartures(oursCode, theirsCode)
				t.Logf("%d apply configuration files store value where upstream stores &value: %v", len(departing), departing)
			}
			for _, p := range m.oursOnly {
				if _, ok := ours[p]; !ok {
					t.Errorf("%s: not generated", p)
				}
			}
			for _, d := range diffGeneratedCode(oursCode, theirsCode) {
				if departs(d, m) {
					t.Logf("departs from upstream: %s", strings.SplitN(d, "\n", 2)[0])
					continue
				}
				t.Error(d)
			}
			for _, d := range diffSourceNames(filesUnder(ours, "listers/", "informers/"), filesUnder(theirs, "listers/", "informers/")) {
				t.Error(d)
			}
			if bm != nil {
				checkBuilds(t, m, bm, ours, theirs)
			}
		})
	}
}

// installUpstreamGenerators builds the named tools of code-generator
// (client-gen, applyconfiguration-gen, lister-gen, informer-gen) into a
// temporary directory and returns it.
func installUpstreamGenerators(t *testing.T, tools ...string) string {
	t.Helper()
	bin := t.TempDir()
	start := time.Now()
	args := []string{"install"}
	for _, tool := range tools {
		args = append(args, "k8s.io/code-generator/cmd/"+tool+"@"+codeGeneratorVersion)
	}
	cmd := exec.Command("go", args...)
	cmd.Dir = bin // outside any module: the @version form builds the tools' own
	cmd.Env = append(os.Environ(), "GOBIN="+bin, "GOFLAGS=")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("installing code-generator %s: %v\n%s", codeGeneratorVersion, err, out)
	}
	t.Logf("go install code-generator %s: %v", codeGeneratorVersion, time.Since(start).Round(time.Millisecond))
	return bin
}

// downloadModule fetches module@version into the module cache and returns
// its directory.
func downloadModule(t *testing.T, modVersion string) string {
	t.Helper()
	out, err := exec.Command("go", "mod", "download", "-json", modVersion).Output()
	if err != nil {
		t.Fatalf("go mod download %s: %v", modVersion, err)
	}
	var info struct{ Dir, Error string }
	if err := json.Unmarshal(out, &info); err != nil {
		t.Fatalf("go mod download %s: %v", modVersion, err)
	}
	if info.Error != "" || info.Dir == "" {
		t.Fatalf("go mod download %s: %s", modVersion, info.Error)
	}
	return info.Dir
}

// runUpstreamClientGenerators runs applyconfiguration-gen, client-gen,
// lister-gen and informer-gen, at once, in modDir, with the arguments
// kube_codegen.sh's gen_client gives them (--with-watch for the listers and
// informers), writing <out>/applyconfiguration, <out>/clientset/versioned,
// <out>/listers and <out>/informers/externalversions.
func runUpstreamClientGenerators(t *testing.T, bin, modDir, header, out, outPkg, module string, rel, inputs []string) {
	t.Helper()
	ac := append([]string{"--go-header-file", header,
		"--output-dir", filepath.Join(out, "applyconfiguration"), "--output-pkg", outPkg + "/applyconfiguration"}, inputs...)
	cs := []string{"--go-header-file", header,
		"--output-dir", filepath.Join(out, "clientset"), "--output-pkg", outPkg + "/clientset",
		"--clientset-name", "versioned", "--apply-configuration-package", outPkg + "/applyconfiguration",
		"--input-base", module}
	for _, r := range rel {
		cs = append(cs, "--input", r)
	}
	ls := append([]string{"--go-header-file", header,
		"--output-dir", filepath.Join(out, "listers"), "--output-pkg", outPkg + "/listers"}, inputs...)
	inf := append([]string{"--go-header-file", header,
		"--output-dir", filepath.Join(out, "informers"), "--output-pkg", outPkg + "/informers",
		"--versioned-clientset-package", outPkg + "/clientset/versioned", "--listers-package", outPkg + "/listers"}, inputs...)
	runs := []struct {
		tool string
		args []string
	}{{"applyconfiguration-gen", ac}, {"client-gen", cs}, {"lister-gen", ls}, {"informer-gen", inf}}
	var wg sync.WaitGroup
	errs := make([]error, len(runs))
	for i, run := range runs {
		wg.Go(func() {
			cmd := exec.Command(filepath.Join(bin, run.tool), run.args...)
			cmd.Dir = modDir
			if b, err := cmd.CombinedOutput(); err != nil {
				errs[i] = fmt.Errorf("%s: %w\n%s", run.tool, err, b)
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}

// readGoFiles returns the .go files under dir keyed by slash-separated
// relative path.
func readGoFiles(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		files[filepath.ToSlash(rel)], err = os.ReadFile(p)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// diffGeneratedCode compares two generated trees, keyed by relative path:
// files only one side has, and files whose code (canonicalCode) differs,
// each with a line diff of the canonical code.
func diffGeneratedCode(ours, theirs map[string][]byte) []string {
	var paths []string
	for p := range theirs {
		paths = append(paths, p)
	}
	for p := range ours {
		if _, ok := theirs[p]; !ok {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	var diffs []string
	for _, p := range paths {
		o, inOurs := ours[p]
		th, inTheirs := theirs[p]
		switch {
		case !inOurs:
			diffs = append(diffs, "only upstream: "+p)
			continue
		case !inTheirs:
			diffs = append(diffs, "only ours: "+p)
			continue
		}
		if _, known := knownCodeDifferences[p]; known {
			continue
		}
		oc, oerr := canonicalCode(o)
		tc, terr := canonicalCode(th)
		if oerr != nil || terr != nil {
			diffs = append(diffs, fmt.Sprintf("%s: cannot parse: ours %v, upstream %v", p, oerr, terr))
			continue
		}
		if oc != tc {
			diffs = append(diffs, fmt.Sprintf("%s: code differs (- upstream, + ours):\n%s", p, lineDiff(tc, oc)))
		}
	}
	return diffs
}

// canonicalCode prints a Go file's code without its comments, imports and
// the names they are given: the package clause, the sorted import paths,
// then every declaration with each import qualifier written as «path».
func canonicalCode(src []byte) (string, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", src, parser.SkipObjectResolution)
	if err != nil {
		return "", err
	}
	byName := map[string]string{}
	var paths []string
	for _, imp := range f.Imports {
		p, err := strconv.Unquote(imp.Path.Value)
		if err != nil {
			return "", err
		}
		name := path.Base(p)
		if imp.Name != nil {
			name = imp.Name.Name
		}
		byName[name] = "«" + p + "»"
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var b bytes.Buffer
	fmt.Fprintf(&b, "package %s\n", f.Name.Name)
	for _, p := range paths {
		fmt.Fprintf(&b, "import %q\n", p)
	}
	for _, d := range f.Decls {
		if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.IMPORT {
			continue
		}
		ast.Inspect(d, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if id, ok := sel.X.(*ast.Ident); ok {
					if q, ok := byName[id.Name]; ok {
						id.Name = q
					}
				}
			}
			return true
		})
		b.WriteString("\n")
		// Printed without positions: the blank lines the removed comments
		// leave do not count.
		if err := printer.Fprint(&b, token.NewFileSet(), d); err != nil {
			return "", err
		}
		b.WriteString("\n")
	}
	return b.String(), nil
}

// lineDiff lists the lines of a and b that the other lacks, in order, after
// their common prefix and suffix: enough to see what a difference is.
func lineDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	pre := 0
	for pre < len(al) && pre < len(bl) && al[pre] == bl[pre] {
		pre++
	}
	suf := 0
	for suf < len(al)-pre && suf < len(bl)-pre && al[len(al)-1-suf] == bl[len(bl)-1-suf] {
		suf++
	}
	var out strings.Builder
	for _, l := range al[pre : len(al)-suf] {
		if !slices.Contains(bl[pre:len(bl)-suf], l) {
			out.WriteString("- " + l + "\n")
		}
	}
	for _, l := range bl[pre : len(bl)-suf] {
		if !slices.Contains(al[pre:len(al)-suf], l) {
			out.WriteString("+ " + l + "\n")
		}
	}
	return out.String()
}
