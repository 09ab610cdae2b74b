package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestTaggedPackages: the deepcopy packages are picked as kube_codegen.sh's
// gen_helpers picks them, by a `// +k8s:deepcopy-gen=` line in any .go file
// of the package, indented or not; other tags and tags in other files do
// not count.
func TestTaggedPackages(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  []string
	}{
		{"package tag in doc.go", map[string]string{"apps/v1/doc.go": "// +k8s:deepcopy-gen=package\n\npackage v1\n"}, []string{"example.com/api/apps/v1"}},
		{"indented type tag", map[string]string{"core/v1/types.go": "package v1\n\n\t// +k8s:deepcopy-gen=true\ntype T struct{}\n"}, []string{"example.com/api/core/v1"}},
		{"module root", map[string]string{"doc.go": "// +k8s:deepcopy-gen=package\npackage api\n"}, []string{"example.com/api"}},
		{"other generator's tag", map[string]string{"core/v1/doc.go": "// +k8s:defaulter-gen=TypeMeta\n// +k8s:deepcopy-gen:interfaces=x\npackage v1\n"}, []string{}},
		{"tag outside a .go file", map[string]string{"core/v1/generated.proto": "// +k8s:deepcopy-gen=package\n", "core/v1/doc.go": "package v1\n"}, []string{}},
		{"two packages, sorted", map[string]string{
			"b/v1/doc.go": "// +k8s:deepcopy-gen=package\npackage v1\n",
			"a/v1/doc.go": "// +k8s:deepcopy-gen=package\npackage v1\n",
			"a/v1/x.go":   "// +k8s:deepcopy-gen=true\npackage v1\n",
		}, []string{"example.com/api/a/v1", "example.com/api/b/v1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for rel, content := range tc.files {
				p := filepath.Join(dir, rel)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, err := taggedPackages(dir, "example.com/api", deepCopyTag.MatchString)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestCopyTree: a read-only tree (the module cache's) is copied whole, its
// files writable in the copy, so the generators can write into it.
func TestCopyTree(t *testing.T) {
	src := t.TempDir()
	files := map[string]string{"go.mod": "module example.com/api\n", "core/v1/types.go": "package v1\n", "core/v1/zz_generated.deepcopy.go": "package v1\n", "core/v1/zz_generated.defaults.go": "package v1\n"}
	for rel, content := range files {
		p := filepath.Join(src, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o444); err != nil {
			t.Fatal(err)
		}
	}
	dst := filepath.Join(t.TempDir(), "copy")
	if err := copyTree(src, dst); err != nil {
		t.Fatal(err)
	}
	for rel, content := range files {
		p := filepath.Join(dst, rel)
		got, err := os.ReadFile(p)
		if err != nil || string(got) != content {
			t.Errorf("%s: %q, %v; want %q", rel, got, err, content)
		}
		if st, err := os.Stat(p); err != nil || st.Mode().Perm()&0o200 == 0 {
			t.Errorf("%s is not writable by its owner in the copy: %v", rel, err)
		}
	}
	if err := removeGenerated(dst, "zz_generated.deepcopy.go"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dst, "core", "v1", "zz_generated.deepcopy.go")); !os.IsNotExist(err) {
		t.Errorf("removeGenerated left the deepcopy file: %v", err)
	}
	for _, keep := range []string{"types.go", "zz_generated.defaults.go"} {
		if _, err := os.Stat(filepath.Join(dst, "core", "v1", keep)); err != nil {
			t.Errorf("removeGenerated removed %s: %v", keep, err)
		}
	}
}
