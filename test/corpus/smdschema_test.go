package corpus

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	openapiv2 "github.com/google/gnostic-models/openapiv2"
	yaml "go.yaml.in/yaml/v2"
	"k8s.io/kube-openapi/pkg/schemaconv"
	"k8s.io/kube-openapi/pkg/util/proto"
	"k8s.io/kube-openapi/pkg/validation/spec"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/typedinformer/typedinformer/generators"
)

// TestSchemaYAMLMatchesApplyconfigurationGen converts the OpenAPI documents
// of kube-openapi's schemaconv tests (a Kubernetes swagger.json, and the
// documents of its defaults, atomic, preserve-unknown-fields and field-level
// annotation cases) with informer-gen's converter and with what
// applyconfiguration-gen runs (the document read into kube-openapi's
// spec.Swagger and back, the models validated, schemaconv.ToSchema, yaml
// marshalling), every definition a root, and requires the same bytes.
func TestSchemaYAMLMatchesApplyconfigurationGen(t *testing.T) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "k8s.io/kube-openapi").Output()
	if err != nil {
		t.Fatalf("locating k8s.io/kube-openapi: %v", err)
	}
	dir := filepath.Join(strings.TrimSpace(string(out)), "pkg", "schemaconv", "testdata")
	for _, name := range []string{"swagger.json", "defaults.json", "atomic-types.json", "preserve-unknown.json", "field-level-annotation.json"} {
		t.Run(name, func(t *testing.T) {
			// Some of the documents are YAML-lenient JSON (a trailing comma):
			// both converters read the same strict JSON of it.
			lenient, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			raw, err := sigsyaml.YAMLToJSON(lenient)
			if err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(t.TempDir(), name)
			if err := os.WriteFile(file, raw, 0o644); err != nil {
				t.Fatal(err)
			}
			doc := &spec.Swagger{}
			if err := json.Unmarshal(raw, doc); err != nil {
				t.Fatal(err)
			}
			var defs []string
			for n := range doc.Definitions {
				defs = append(defs, n)
			}
			sort.Strings(defs)
			again, err := json.Marshal(doc)
			if err != nil {
				t.Fatal(err)
			}
			parsed, err := openapiv2.ParseDocument(again)
			if err != nil {
				t.Fatal(err)
			}
			models, err := proto.NewOpenAPIData(parsed)
			if err != nil {
				t.Fatal(err)
			}
			schema, err := schemaconv.ToSchema(models)
			if err != nil {
				t.Fatal(err)
			}
			want, err := yaml.Marshal(schema)
			if err != nil {
				t.Fatal(err)
			}
			got, err := generators.SchemaYAML(file, defs)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				g, w := strings.Split(got, "\n"), strings.Split(string(want), "\n")
				for i := 0; i < len(g) && i < len(w); i++ {
					if g[i] != w[i] {
						lo := max(0, i-8)
						t.Fatalf("%d definitions: schema differs at line %d:\nours:\n%s\napplyconfiguration-gen's:\n%s", len(defs), i+1,
							strings.Join(g[lo:min(len(g), i+4)], "\n"), strings.Join(w[lo:min(len(w), i+4)], "\n"))
					}
				}
				t.Fatalf("schema differs in length: ours %d lines, applyconfiguration-gen's %d", len(g), len(w))
			}
			t.Logf("%d definitions, %d lines of schema, the same", len(defs), strings.Count(got, "\n"))
		})
	}
}
