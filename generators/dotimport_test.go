package generators

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestDotImportedDefinitions checks that a +genclient type whose metadata
// comes from a package imported with "." is followed into that package, and
// that a name found neither locally nor in a dot import is reported with
// the imports that were searched.
func TestDotImportedDefinitions(t *testing.T) {
	base := "package base\n\nimport metav1 \"k8s.io/apimachinery/pkg/apis/meta/v1\"\n\n" +
		"// Object is the common part of every kind.\ntype Object struct {\n\tmetav1.TypeMeta `json:\",inline\"`\n\tmetav1.ObjectMeta `json:\"metadata,omitempty\"`\n}\n\n" +
		"// Named is Object under another name.\ntype Named = Object\n"
	for _, c := range []struct {
		name    string
		types   string
		want    []string // listable kinds
		wantErr string
	}{
		{
			name:  "embedded struct of a dot import",
			types: "package v1\n\nimport . \"example.com/dot/base\"\n\n// +genclient\n\n// Foo embeds base.Object.\ntype Foo struct {\n\tObject `json:\",inline\"`\n}\n",
			want:  []string{"Foo"},
		},
		{
			name:  "definition of a dot-imported alias",
			types: "package v1\n\nimport . \"example.com/dot/base\"\n\n// +genclient\n\n// Foo is base.Named.\ntype Foo Named\n",
			want:  []string{"Foo"},
		},
		{
			name:    "name in no dot import",
			types:   "package v1\n\nimport . \"example.com/dot/base\"\n\n// +genclient\n\n// Foo is nothing known.\ntype Foo Missing\n",
			wantErr: "apis/foo/v1/types.go:8: type Foo has +genclient but informers and listers need it to embed metav1.ObjectMeta, and following its definition did not find it: Missing: no type Missing in package example.com/dot/apis/foo/v1 nor in its file's dot imports (example.com/dot/base)",
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			writeTree(t, dir, map[string]string{
				"go.mod":               "module example.com/dot\n\ngo 1.26\n",
				"base/base.go":         base,
				"apis/foo/v1/doc.go":   "// +groupName=foo.example.com\npackage v1\n",
				"apis/foo/v1/types.go": c.types,
			})
			res, err := Generate(context.Background(), Options{
				Patterns:                  []string{"./apis/..."},
				WorkDir:                   dir,
				OutputDir:                 "gen",
				OutputPkg:                 "example.com/dot/gen",
				VersionedClientsetPackage: "example.com/dot/clientset",
				Now:                       fixedNow,
			})
			if c.wantErr != "" {
				if err == nil {
					t.Fatal("generate succeeded")
				}
				msg := filepath.ToSlash(strings.ReplaceAll(err.Error(), dir+string(filepath.Separator), ""))
				if !strings.HasPrefix(msg, c.wantErr) {
					t.Fatalf("error:\n  %s\nwant prefix:\n  %s", msg, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, g := range res.Model.Groups {
				for _, v := range g.Versions {
					for _, typ := range v.Types {
						if typ.Informer {
							got = append(got, typ.Name)
						}
					}
				}
			}
			if strings.Join(got, ",") != strings.Join(c.want, ",") {
				t.Fatalf("types with informers %v, want %v", got, c.want)
			}
		})
	}
}
