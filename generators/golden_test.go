package generators

import (
	"bytes"
	"context"
	"flag"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "regenerate the golden files under testdata/golden")

// TestGolden generates the testdata API tree, which exercises every tag and
// both scopes, and compares the result with testdata/golden. With -update
// it rewrites the goldens instead (go test ./generators -update).
func TestGolden(t *testing.T) {
	checkGolden(t, goldenOptions(goldenDir, goldenPkg), "goldens", "go test ./generators -update")
}

// checkGolden builds opts and fails t unless the output tree already holds
// exactly that (what names the tree, rerun the command regenerating it);
// with -update it writes the tree instead.
func checkGolden(t *testing.T, opts Options, what, rerun string) {
	t.Helper()
	res, err := Build(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := res.Write(); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %d %s files, removed %d", res.ChangedCount(), strings.TrimSuffix(what, "s"), len(res.Stale))
		return
	}
	if !res.UpToDate() {
		var diff bytes.Buffer
		if err := res.Diff(&diff); err != nil {
			t.Fatal(err)
		}
		t.Fatalf("%s are out of date; run %s and review:\n%s", what, rerun, diff.String())
	}
}

// TestGoldenShape checks what the tags must produce, independently of the
// golden text.
func TestGoldenShape(t *testing.T) {
	res, err := Build(context.Background(), goldenOptions(t.TempDir(), "example.com/out"))
	if err != nil {
		t.Fatal(err)
	}
	type kinds struct{ informer, lister, namespaced bool }
	got := map[string]kinds{}
	for _, g := range res.Model.Groups {
		for _, v := range g.Versions {
			for _, typ := range v.Types {
				got[g.GoName+v.GoName+"."+typ.Plural+"/"+typ.Resource] = kinds{typ.Informer, typ.Lister, typ.Namespaced}
			}
		}
	}
	want := map[string]kinds{
		"ExampleV1.Widgets/widgets":               {true, true, true},
		"ExampleV1.Gadgets/gadgets":               {true, true, false},  // tags in the detached block
		"ExampleV1.Policies/policies":             {true, true, true},   // readonly
		"ExampleV1.NodeMetricses/nodemetricses":   {true, true, false},  // onlyVerbs
		"ExampleV1.ServiceMeshes/servicemeshes":   {false, true, true},  // skipVerbs=watch
		"ExampleV1.Reports/reports":               {true, false, true},  // no get
		"ExampleV1.Secrets/secrets":               {true, false, true},  // lister-gen=false
		"ExampleV1.Hiddens/hiddens":               {false, true, false}, // informer-gen=false
		"ExampleV1.Things/thingamajigs":           {true, true, true},   // resourceName
		"ExampleV1.Endpoints/endpoints":           {true, true, true},   // default plural exception
		"ExampleV1alpha1.Widgets/widgets":         {true, true, true},   //
		"CertmanagerV1.Certificates/certificates": {true, true, true},   // hyphenated group label
		"CoreV1.Pods/pods":                        {true, true, true},   // GroupName constant
		"CoreV1.Nodes/nodes":                      {true, true, false},  //
		"ThirdPartyV2beta1.Buckets/buckets":       {true, false, false}, // groupGoName, package lister-gen=false
	}
	for k, w := range want {
		if g, ok := got[k]; !ok {
			t.Errorf("missing %s", k)
		} else if g != w {
			t.Errorf("%s: got informer=%v lister=%v namespaced=%v, want %+v", k, g.informer, g.lister, g.namespaced, w)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("unexpected %s (Review has noVerbs, skipped/v1 opts out)", k)
		}
	}
	if res.GenclientPackages != 6 {
		t.Errorf("GenclientPackages = %d, want 6", res.GenclientPackages)
	}
}

// TestGoldenCompiles builds and vets the goldens, with the hand-written user
// expansion file and the stand-in clientset, against the runtime packages.
func TestGoldenCompiles(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go vet; skipped in -short mode")
	}
	cmd := exec.Command("go", "vet", "./testdata/golden/...", "./testdata/clientset/...", "./testdata/apis/...",
		"./testdata/dottedgolden/...", "./testdata/dottedclientset/...", "./testdata/dottedapis/...")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go vet on the goldens: %v\n%s", err, out)
	}
}

// TestGenerateIntoEmptyDirMatchesGolden generates into a fresh directory
// holding only the user's expansion file: the files must equal the goldens
// byte for byte (so the goldens do not depend on their own history), and a
// second run must change nothing.
func TestGenerateIntoEmptyDirMatchesGolden(t *testing.T) {
	ctx := context.Background()
	out := filepath.Join(t.TempDir(), "golden")
	const user = "listers/example/v1/widget_expansion.go"
	data := readFile(t, filepath.Join(goldenDir, filepath.FromSlash(user)))
	writeTree(t, out, map[string]string{user: string(data)})

	res, err := Generate(ctx, goldenOptions(out, goldenPkg))
	if err != nil {
		t.Fatal(err)
	}
	if d := diffSnapshots(snapshot(t, goldenDir), snapshot(t, out)); d != "" {
		t.Fatalf("fresh output differs from the goldens: %s", d)
	}
	if res.ChangedCount() != len(res.Files) {
		t.Errorf("first run: %d of %d files changed, want all", res.ChangedCount(), len(res.Files))
	}

	again, err := Build(ctx, goldenOptions(out, goldenPkg))
	if err != nil {
		t.Fatal(err)
	}
	if !again.UpToDate() {
		t.Errorf("second run is not up to date: %d changed, %d stale", again.ChangedCount(), len(again.Stale))
	}
	for i := range res.Files {
		if !bytes.Equal(res.Files[i].Content, again.Files[i].Content) {
			t.Errorf("%s differs between two runs", res.Files[i].Path)
		}
	}
}

// TestExpansionNeverClobbersUser checks that expansion_generated.go leaves
// out exactly the interfaces declared in hand-written files.
func TestExpansionNeverClobbersUser(t *testing.T) {
	data := readFile(t, filepath.Join(goldenDir, "listers", "example", "v1", "expansion_generated.go"))
	src := string(data)
	if strings.Contains(src, "type WidgetListerExpansion ") {
		t.Error("expansion_generated.go redeclares WidgetListerExpansion, which widget_expansion.go declares")
	}
	if !strings.Contains(src, "type WidgetNamespaceListerExpansion interface{}") {
		t.Error("expansion_generated.go lacks WidgetNamespaceListerExpansion")
	}
}

// TestImportPathPatterns resolves the testdata packages by import path
// (through go list) instead of by directory: the output must be the same.
func TestImportPathPatterns(t *testing.T) {
	ctx := context.Background()
	byDir, err := Build(ctx, goldenOptions(goldenDir, goldenPkg))
	if err != nil {
		t.Fatal(err)
	}
	opts := goldenOptions(goldenDir, goldenPkg)
	opts.Patterns = nil
	for _, p := range []string{"cert-manager/v1", "core/v1", "example/v1", "example/v1alpha1", "thirdparty/v2beta1", "skipped/v1"} {
		opts.Patterns = append(opts.Patterns, thisModule+"/generators/testdata/apis/"+p)
	}
	byPath, err := Build(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(byPath.Files) != len(byDir.Files) {
		t.Fatalf("%d files by import path, %d by directory", len(byPath.Files), len(byDir.Files))
	}
	for i := range byDir.Files {
		if byPath.Files[i].Path != byDir.Files[i].Path || !bytes.Equal(byPath.Files[i].Content, byDir.Files[i].Content) {
			t.Errorf("%s differs between import-path and directory patterns", byDir.Files[i].Path)
		}
	}
}

// oddOptions generates the odd-but-valid API tree (testdata/oddapis: type
// definitions and aliases within a package, across packages and from another
// module, three versions of one group, a dashed group directory with
// +groupGoName, keyword-named directories, a non-ASCII type name) into
// outDir (import path outPkg).
func oddOptions(outDir, outPkg string) Options {
	return treeOptions("./testdata/oddapis/...", outDir, outPkg, thisModule+"/generators/testdata/oddclientset/versioned")
}

// TestOddGolden compares the generation of testdata/oddapis with
// testdata/oddgolden (rewritten with -update); TestOddGeneratedFactoryRuns
// compiles and runs it.
func TestOddGolden(t *testing.T) {
	checkGolden(t, oddOptions("testdata/oddgolden", thisModule+"/generators/testdata/oddgolden"),
		"odd goldens", "go test ./generators -run Golden -update")
}

// dottedOptions generates the API tree whose group directories are named
// after their groups (testdata/dottedapis: cilium.io/v2, kubeflow.org/v1,
// two directories whose first label is cilium, an upper-case directory) into
// outDir (import path outPkg).
func dottedOptions(outDir, outPkg string) Options {
	return treeOptions("./testdata/dottedapis/...", outDir, outPkg, thisModule+"/generators/testdata/dottedclientset/versioned")
}

// TestDottedGolden compares the generation of testdata/dottedapis with
// testdata/dottedgolden (rewritten with -update): upstream's directories
// (cilium.io/, and serving.example.dev/ for the listers of
// Serving.example.dev) and package names (cilium, Serving); TestGoldenCompiles
// vets it.
func TestDottedGolden(t *testing.T) {
	checkGolden(t, dottedOptions("testdata/dottedgolden", thisModule+"/generators/testdata/dottedgolden"),
		"dotted goldens", "go test ./generators -run Golden -update")
}

// clientOptions generates informers, listers and the clientset with its
// fake for testdata/clientapis (every +genclient form, extension verbs with
// input and result types of this and another package, a core group, a
// hand-written expansion) into outDir (import path outPkg).
func clientOptions(outDir, outPkg string) Options {
	o := treeOptions("./testdata/clientapis/...", outDir, outPkg, "")
	o.WithClientset, o.ApplyConfigurationPackage = true, "example.com/applyconfigurations"
	return o
}

// TestClientGolden compares the generation of testdata/clientapis with
// testdata/clientgolden (rewritten with -update). The tree imports
// k8s.io/client-go, which this module may not require: test/corpus
// compiles the clientset generated for all of k8s.io/api, and examples/crd
// runs one.
func TestClientGolden(t *testing.T) {
	checkGolden(t, clientOptions("testdata/clientgolden", thisModule+"/generators/testdata/clientgolden"),
		"client goldens", "go test ./generators -run Golden -update")
}

// acOptions generates the clientset and the apply configurations of
// testdata/acapis (structs of one group-version reached from another,
// directly and through aliases declared in a file without json tags; a type
// defined as another version's; a package with a +genclient line and no
// type; a struct of a package that is no input, embedded inline) into
// outDir (import path outPkg).
func acOptions(outDir, outPkg string) Options {
	o := clientOptions(outDir, outPkg)
	o.Patterns = []string{"./testdata/acapis/..."}
	o.ClientsetOnly, o.WithApplyConfig = true, true
	o.ApplyConfigurationPackage = "" // the generated ones
	return o
}

// TestApplyConfigGolden compares the generation of testdata/acapis with
// testdata/acgolden (rewritten with -update). Like the client goldens, the
// tree imports k8s.io/client-go and is not built here.
func TestApplyConfigGolden(t *testing.T) {
	checkGolden(t, acOptions("testdata/acgolden", thisModule+"/generators/testdata/acgolden"),
		"apply configuration goldens", "go test ./generators -run Golden -update")
}
