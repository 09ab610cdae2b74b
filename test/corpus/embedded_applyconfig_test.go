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

// embedAPI is an API package whose struct embeds a struct of a package that
// is no input (k8s.io/api's Container) inline.
const embedAPI = modulePath + "/testdata/embedapi/v1"

// embeddedStepFile is the apply configuration whose code departs from
// applyconfiguration-gen's: its With methods of the embedded Container's
// members that are no pointers.
const embeddedStepFile = "applyconfiguration/embedapi/v1/step.go"

// embeddedStepUse builds a Step through the embedded Container's members
// and checks what it sends.
const embeddedStepUse = `package v1

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestStepSetsEmbeddedMembers(t *testing.T) {
	s := Step().WithName("build").WithImage("golang").WithArgs("go", "test").
		WithEnv(corev1.EnvVar{Name: "A", Value: "1"}).
		WithResources(corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}}).
		WithSecurityContext(corev1.SecurityContext{RunAsNonRoot: new(true)}).
		WithTimeout(metav1.Duration{Duration: time.Minute})
	if s.Name != "build" || s.Image != "golang" || len(s.Args) != 2 || s.Env[0].Name != "A" || s.SecurityContext == nil || !*s.SecurityContext.RunAsNonRoot {
		t.Fatalf("members not set: %+v", s)
	}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{` + "`" + `"name":"build"` + "`" + `, ` + "`" + `"image":"golang"` + "`" + `, ` + "`" + `"args":["go","test"]` + "`" + `, ` + "`" + `"limits":{"cpu":"1"}` + "`" + `, ` + "`" + `"runAsNonRoot":true` + "`" + `, ` + "`" + `"timeout":"1m0s"` + "`" + `} {
		if !strings.Contains(string(b), want) {
			t.Errorf("%s lacks %s", b, want)
		}
	}
}
`

// TestEmbeddedAPITypeApplyConfigurationCompiles runs code-generator
// v0.37.2's applyconfiguration-gen and informer-gen --with-applyconfig on
// a package whose struct embeds k8s.io/api's Container inline. Upstream's
// With methods of the Container's members that are no pointers assign a
// pointer to them and do not compile; ours must compile, set the members
// (a test built into our tree calls them and encodes the result), and
// every other file must have upstream's code.
func TestEmbeddedAPITypeApplyConfigurationCompiles(t *testing.T) {
	if testing.Short() {
		t.Skip("runs upstream's applyconfiguration-gen and builds both outputs; skipped in -short mode")
	}
	bin := installUpstreamGenerators(t, "applyconfiguration-gen")
	header, err := filepath.Abs(filepath.Join("..", "..", "hack", "boilerplate.go.txt"))
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp(".", "zz_embed_")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	name := filepath.Base(dir)
	outPkg := modulePath + "/" + name
	if dir, err = filepath.Abs(dir); err != nil {
		t.Fatal(err)
	}

	cmd := exec.Command(filepath.Join(bin, "applyconfiguration-gen"), "--go-header-file", header,
		"--output-dir", filepath.Join(dir, "upstream", "applyconfiguration"), "--output-pkg", outPkg+"/upstream/applyconfiguration", embedAPI)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("applyconfiguration-gen: %v\n%s", err, out)
	}
	res, err := generators.Build(context.Background(), generators.Options{
		Patterns:                  []string{embedAPI},
		OutputDir:                 filepath.Join(dir, "ours"),
		OutputPkg:                 outPkg + "/ours",
		HeaderFile:                header,
		WithClientset:             true,
		ClientsetOnly:             true,
		ClientsetPackage:          outPkg + "/ours/clientset",
		ClientsetDir:              filepath.Join(dir, "ours", "clientset"),
		WithApplyConfig:           true,
		ApplyConfigurationPackage: outPkg + "/ours/applyconfiguration",
		ApplyConfigurationDir:     filepath.Join(dir, "ours", "applyconfiguration"),
		Now:                       func() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) },
	})
	if err != nil {
		t.Fatalf("informer-gen: %v", err)
	}
	ours := map[string][]byte{}
	for _, f := range res.Files {
		rel, err := filepath.Rel(filepath.Join(dir, "ours"), f.Path)
		if err != nil {
			t.Fatal(err)
		}
		if rel = filepath.ToSlash(rel); !strings.HasPrefix(rel, "clientset/") {
			ours[rel] = f.Content
			if err := os.MkdirAll(filepath.Dir(f.Path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(f.Path, f.Content, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	theirs := readGoFiles(t, filepath.Join(dir, "upstream"))
	for p, b := range theirs {
		theirs[p] = []byte(strings.ReplaceAll(string(b), outPkg+"/upstream/", outPkg+"/ours/"))
	}
	if _, ok := ours[embeddedStepFile]; !ok {
		t.Fatalf("%s was not generated", embeddedStepFile)
	}
	for _, d := range diffGeneratedCode(ours, theirs) {
		if !strings.HasPrefix(d, embeddedStepFile+": code differs") {
			t.Error(d)
		}
	}

	out, err := exec.Command("go", "build", "./"+name+"/upstream/...").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "cannot use &value") {
		t.Errorf("upstream's apply configurations were expected not to compile (cannot use &value): %v\n%s", err, out)
	}
	if err := os.WriteFile(filepath.Join(dir, "ours", "applyconfiguration", "embedapi", "v1", "use_test.go"), []byte(embeddedStepUse), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("go", "vet", "./"+name+"/ours/...").CombinedOutput(); err != nil {
		t.Fatalf("go vet of ours: %v\n%s", err, out)
	}
	if out, err := exec.Command("go", "test", "-count=1", "./"+name+"/ours/applyconfiguration/embedapi/v1").CombinedOutput(); err != nil {
		t.Fatalf("go test of ours: %v\n%s", err, out)
	}
}
