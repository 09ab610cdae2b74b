package corpus

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

const applyConfigurations = "k8s.io/client-go/applyconfigurations"

// TestKubeApplyConfigurationsMatchClientGo generates the apply
// configurations of every k8s.io/api package with types and of meta/v1, the
// inputs Kubernetes gives applyconfiguration-gen for client-go, with an
// OpenAPI document naming no definitions (so every applied type gets its
// Extract functions, as with Kubernetes' schema), into a tree that holds
// client-go's hand-written files of applyconfigurations/, builds it, and
// compares the exported API of every package with client-go v0.37.2's
// applyconfigurations/ through go/types: every exported name, signature,
// method set (promoted methods included) and struct tag.
func TestKubeApplyConfigurationsMatchClientGo(t *testing.T) {
	if testing.Short() {
		t.Skip("builds apply configurations for all of k8s.io/api; skipped in -short mode")
	}
	ctx := context.Background()
	dir, err := os.MkdirTemp(".", "zz_ac_")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	name := filepath.Base(dir)
	outPkg := modulePath + "/" + name
	acDir := filepath.Join(dir, "applyconfigurations")
	acPkg := outPkg + "/applyconfigurations"

	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "k8s.io/client-go").Output()
	if err != nil {
		t.Fatalf("locating k8s.io/client-go: %v", err)
	}
	theirRoot := filepath.Join(strings.TrimSpace(string(out)), "applyconfigurations")
	n := copyHandWrittenUnder(t, theirRoot, acDir, applyConfigurations, acPkg)
	t.Logf("copied %d hand-written files of client-go's applyconfigurations/", n)

	// Kubernetes' inputs: every k8s.io/api directory with a types.go, and meta/v1.
	out, err = exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "k8s.io/api").Output()
	if err != nil {
		t.Fatalf("locating k8s.io/api: %v", err)
	}
	apiDir := strings.TrimSpace(string(out))
	var patterns []string
	err = filepath.WalkDir(apiDir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() == "types.go" {
			rel, _ := filepath.Rel(apiDir, filepath.Dir(p))
			patterns = append(patterns, "k8s.io/api/"+filepath.ToSlash(rel))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(patterns)
	patterns = append(patterns, "k8s.io/apimachinery/pkg/apis/meta/v1")

	schema := filepath.Join(t.TempDir(), "openapi.json")
	if err := os.WriteFile(schema, []byte(`{"swagger": "2.0", "definitions": {}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	opts := kubeOptions(dir, outPkg)
	opts.Patterns = patterns
	opts.VersionedClientsetPackage = ""
	opts.WithClientset = true
	opts.WithApplyConfig = true
	opts.ApplyConfigName = "applyconfigurations"
	opts.OpenAPISchema = schema
	opts.PluralExceptions = kubePluralExceptions
	generateAndCompare(t, ctx, opts, acDir, theirRoot, "client-go's applyconfigurations/", "./"+name+"/applyconfigurations/...",
		"./"+name+"/applyconfigurations/...", acPkg, applyConfigurations+"/...", applyConfigurations)
}

// copyHandWrittenUnder copies the non-generated, non-test .go files under
// from into the same places under to, their imports of theirPkg's packages
// rewritten to ourPkg's, and returns how many it copied.
func copyHandWrittenUnder(t *testing.T, from, to, theirPkg, ourPkg string) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(from, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") || isGenerated(t, p) {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		src := strings.ReplaceAll(string(data), `"`+theirPkg+`/`, `"`+ourPkg+`/`)
		dst := filepath.Join(to, rel)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		n++
		return os.WriteFile(dst, []byte(src), 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}
