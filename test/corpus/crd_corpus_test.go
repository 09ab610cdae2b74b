package corpus

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/typedinformer/typedinformer/generators"
)

// crdModule is a public CRD API module that ships its own client-gen
// clientset (and upstream informers and listers to compare with).
type crdModule struct {
	name   string
	module string
	// apis are the patterns of the API packages and clientset is the
	// module's client-gen clientset, relative to the module path.
	apis      []string
	clientset string
	// informers and listers are the module's own upstream-generated
	// packages, relative to the module root.
	informers, listers string
	// mustHave are files the generation must produce (relative to the output).
	mustHave []string
	// use is Go code calling the generated factory f, compiled with the rest.
	use string
}

// patterns are the import path patterns of m's API packages.
func (m crdModule) patterns() []string {
	out := make([]string, len(m.apis))
	for i, p := range m.apis {
		out[i] = m.module + "/" + p
	}
	return out
}

// clientsetPath is the import path of m's clientset.
func (m crdModule) clientsetPath() string { return m.module + "/" + m.clientset }

var crdModules = []crdModule{
	{
		// apis/v1alpha2 declares "type GRPCRoute v1.GRPCRoute" and
		// "type ReferenceGrant v1.ReferenceGrant": definitions of another
		// package's types; apisx is a second group with +groupGoName.
		name:      "gatewayapi",
		module:    "sigs.k8s.io/gateway-api",
		apis:      []string{"apis/...", "apisx/..."},
		clientset: "pkg/client/clientset/versioned",
		informers: "pkg/client/informers/externalversions",
		listers:   "pkg/client/listers",
		mustHave:  []string{"informers/externalversions/apis/v1alpha2/grpcroute.go", "listers/apis/v1alpha2/referencegrant.go"},
		use: `_ = f.Gateway().V1alpha2().GRPCRoutes().Lister()
	_ = f.Gateway().V1beta1().ReferenceGrants().Informer()
	_ = f.Gateway().V1().HTTPRoutes().Lister()
	_ = f.Experimental().V1alpha1()`,
	},
	{
		// Two groups, several versions each, in directories named unlike
		// their groups (volumesnapshot → snapshot.storage.k8s.io).
		name:      "snapshotter",
		module:    "github.com/kubernetes-csi/external-snapshotter/client/v8",
		apis:      []string{"apis/..."},
		clientset: "clientset/versioned",
		informers: "informers/externalversions",
		listers:   "listers",
		mustHave:  []string{"informers/externalversions/volumesnapshot/v1/volumesnapshot.go"},
		use: `_ = f.Snapshot().V1().VolumeSnapshots().Lister()
	_ = f.Snapshot().V1().VolumeSnapshotClasses().Lister()`,
	},
	{
		// Objects whose Spec types live in another module (istio.io/api),
		// in files named *.gen.go.
		name:      "istio",
		module:    "istio.io/client-go",
		apis:      []string{"pkg/apis/..."},
		clientset: "pkg/clientset/versioned",
		informers: "pkg/informers/externalversions",
		listers:   "pkg/listers",
		mustHave:  []string{"informers/externalversions/networking/v1/virtualservice.go"},
		use: `_ = f.Networking().V1().VirtualServices().Lister()
	_ = f.Security().V1().AuthorizationPolicies().Informer()`,
	},
}

// TestCRDModulesCorpus generates informers and listers for public CRD API
// modules into directories of this module and builds and vets them, in one
// go build, against each module's own client-gen clientset; the file lists
// must match the informers and listers the modules ship (made by upstream
// informer-gen and lister-gen).
func TestCRDModulesCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the modules' clientsets; skipped in -short mode")
	}
	ctx := context.Background()
	var built []string
	for _, m := range crdModules {
		dir, err := os.MkdirTemp(".", "zz_gen_"+m.name+"_")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(dir) })
		name := filepath.Base(dir)
		res, err := generators.Generate(ctx, generators.Options{
			Patterns:                  m.patterns(),
			OutputDir:                 dir,
			OutputPkg:                 modulePath + "/" + name,
			VersionedClientsetPackage: m.clientsetPath(),
			Now:                       func() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) },
		})
		if err != nil {
			t.Fatalf("%s: generate: %v", m.name, err)
		}
		t.Logf("%s: %d packages, %d group-versions, %d files", m.name, res.Packages, res.Model.GroupVersionCount(), len(res.Files))
		for _, f := range m.mustHave {
			if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(f))); err != nil {
				t.Errorf("%s: %s was not generated", m.name, f)
			}
		}
		use := "package namecheck\n\nimport (\n\tclientset \"" + m.clientsetPath() + "\"\n\n\tinformers \"" + modulePath + "/" + name + "/informers/externalversions\"\n)\n\n" +
			"// Use spells out accessors of the generated factory.\nfunc Use(client clientset.Interface) {\n\tf := informers.NewSharedInformerFactory(client, 0)\n\t" + m.use + "\n}\n"
		if err := os.MkdirAll(filepath.Join(dir, "namecheck"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "namecheck", "namecheck.go"), []byte(use), 0o644); err != nil {
			t.Fatal(err)
		}
		built = append(built, "./"+name+"/...")

		out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", m.module).Output()
		if err != nil {
			t.Fatalf("locating %s: %v", m.module, err)
		}
		modDir := strings.TrimSpace(string(out))
		compareFileLists(t, m.name, filepath.Join(dir, "informers", "externalversions"), filepath.Join(modDir, filepath.FromSlash(m.informers)))
		compareFileLists(t, m.name, filepath.Join(dir, "listers"), filepath.Join(modDir, filepath.FromSlash(m.listers)))
	}
	for _, verb := range []string{"build", "vet"} {
		start := time.Now()
		cmd := exec.CommandContext(ctx, "go", append([]string{verb}, built...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %s %s: %v\n%s", verb, strings.Join(built, " "), err, out)
		}
		t.Logf("go %s: %v", verb, time.Since(start).Round(time.Millisecond))
	}
}

// compareFileLists checks that ours holds the generated files of theirs
// (some modules name them *.gen.go: compared without ".gen"). Upstream's
// lister-gen also writes listers for verb-less types, which cannot be
// listed; those are the only files allowed to be theirs alone.
func compareFileLists(t *testing.T, name, ours, theirs string) {
	t.Helper()
	o := goFiles(t, ours)
	var th []string
	for _, f := range goFiles(t, theirs) {
		if isGenerated(t, filepath.Join(theirs, f)) {
			if base, ok := strings.CutSuffix(f, ".gen.go"); ok {
				f = base + ".go"
			}
			th = append(th, f)
		}
	}
	if only := minus(o, th); len(only) > 0 {
		t.Errorf("%s: files only we generate under %s: %v", name, ours, only)
	}
	if only := minus(th, o); len(only) > 0 {
		t.Logf("%s: files only upstream generated under %s: %v", name, theirs, only)
	}
}
