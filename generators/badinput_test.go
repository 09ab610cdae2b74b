package generators

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

const okTypes = `package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// +genclient

// Foo is fine.
type Foo struct {
	metav1.TypeMeta   ` + "`json:\",inline\"`" + `
	metav1.ObjectMeta ` + "`json:\"metadata,omitempty\"`" + `
}
`

// TestBadInput runs the generator on broken API trees. Each run must fail
// with an InputError whose message names the offending file:line, and must
// leave the output directory exactly as it was.
func TestBadInput(t *testing.T) {
	for _, c := range []struct {
		name     string
		files    map[string]string
		patterns []string
		mutate   func(*Options)
		want     string // the error must start with this
	}{
		{
			name: "unknown genclient tag",
			files: map[string]string{
				"apis/foo/v1/doc.go": "// +groupName=foo.example.com\npackage v1\n",
				"apis/foo/v1/types.go": strings.Replace(okTypes, "// +genclient\n",
					"// +genclient\n// +genclient:nonNamespace\n", 1),
			},
			want: "apis/foo/v1/types.go:6: type Foo: unknown tag +genclient:nonNamespace",
		},
		{
			name: "package without groupName",
			files: map[string]string{
				"apis/foo/v1/doc.go":   "// Package v1 forgot its group.\npackage v1\n",
				"apis/foo/v1/types.go": okTypes,
			},
			want: "apis/foo/v1/doc.go:2: package example.com/bad/apis/foo/v1 has +genclient types but no group name",
		},
		{
			name: "type without ObjectMeta",
			files: map[string]string{
				"apis/foo/v1/doc.go":   "// +groupName=foo.example.com\npackage v1\n",
				"apis/foo/v1/types.go": "package v1\n\n// +genclient\n\n// Foo has no metadata.\ntype Foo struct {\n\tName string\n}\n",
			},
			want: "apis/foo/v1/types.go:6: type Foo has +genclient but does not embed metav1.ObjectMeta",
		},
		{
			name:     "pattern matching nothing",
			files:    map[string]string{"apis/foo/v1/doc.go": "// +groupName=foo.example.com\npackage v1\n"},
			patterns: []string{"./apis/...", "./nothing/..."},
			want:     `pattern "./nothing/..."`,
		},
		{
			name:     "directory without Go files",
			files:    map[string]string{"apis/README.md": "no go here\n"},
			patterns: []string{"./apis/..."},
			want:     `pattern "./apis/..." matched no packages`,
		},
		{
			name:     "import path matching nothing",
			files:    map[string]string{"apis/foo/v1/doc.go": "// +groupName=foo.example.com\npackage v1\n"},
			patterns: []string{"example.com/bad/nothere/..."},
			want:     `pattern "example.com/bad/nothere/..." matched no packages`,
		},
		{
			name: "no genclient types at all",
			files: map[string]string{
				"apis/foo/v1/doc.go":   "// +groupName=foo.example.com\npackage v1\n",
				"apis/foo/v1/types.go": strings.Replace(okTypes, "// +genclient\n", "", 1),
			},
			want: "no +genclient type with list and watch or list and get verbs in ./apis/...",
		},
		{
			name: "syntax error",
			files: map[string]string{
				"apis/foo/v1/doc.go":   "// +groupName=foo.example.com\npackage v1\n",
				"apis/foo/v1/types.go": okTypes + "\n// +genclient\ntype Broken struct {\n",
			},
			want: "apis/foo/v1/types.go:14: syntax error: expected",
		},
		{
			name: "bad groupGoName",
			files: map[string]string{
				"apis/foo/v1/doc.go":   "// +groupName=foo.example.com\n// +groupGoName=foo-bar\npackage v1\n",
				"apis/foo/v1/types.go": okTypes,
			},
			want: `apis/foo/v1/doc.go:2: package example.com/bad/apis/foo/v1: +groupGoName="foo-bar" is not a Go identifier`,
		},
		{
			name: "two groups with one Go name",
			files: map[string]string{
				"apis/foo/v1/doc.go":    "// +groupName=foo.example.com\npackage v1\n",
				"apis/foo/v1/types.go":  okTypes,
				"apis/foo2/v1/doc.go":   "// +groupName=foo.other.io\npackage v1\n",
				"apis/foo2/v1/types.go": okTypes,
			},
			want: `apis/foo2/v1/doc.go:1: groups "foo.example.com" and "foo.other.io" share the Go name "Foo"`,
		},
		{
			name:   "missing required flag",
			files:  map[string]string{"apis/foo/v1/doc.go": "// +groupName=foo.example.com\npackage v1\n", "apis/foo/v1/types.go": okTypes},
			mutate: func(o *Options) { o.VersionedClientsetPackage = "" },
			want:   "--versioned-clientset-package is required",
		},
		{
			name:   "bad plural exception",
			files:  map[string]string{"apis/foo/v1/doc.go": "// +groupName=foo.example.com\npackage v1\n", "apis/foo/v1/types.go": okTypes},
			mutate: func(o *Options) { o.PluralExceptions = []string{"Foo"} },
			want:   `--plural-exceptions: "Foo" is not of the form Type:PluralType`,
		},
		{
			name:   "missing header file",
			files:  map[string]string{"apis/foo/v1/doc.go": "// +groupName=foo.example.com\npackage v1\n", "apis/foo/v1/types.go": okTypes},
			mutate: func(o *Options) { o.HeaderFile = "nope.txt" },
			want:   "--go-header-file: open nope.txt",
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			c.files["go.mod"] = "module example.com/bad\n\ngo 1.26\n"
			// An output tree from an earlier run that a failed run must not touch.
			c.files["gen/listers/foo/v1/foo.go"] = "// " + "Code generated by informer-gen. DO NOT EDIT.\n\npackage v1\n"
			writeTree(t, dir, c.files)
			before := snapshot(t, dir)

			opts := Options{
				Patterns:                  c.patterns,
				WorkDir:                   dir,
				OutputDir:                 "gen",
				OutputPkg:                 "example.com/bad/gen",
				VersionedClientsetPackage: "example.com/bad/clientset",
				Now:                       fixedNow,
			}
			if opts.Patterns == nil {
				opts.Patterns = []string{"./apis/..."}
			}
			if c.mutate != nil {
				c.mutate(&opts)
			}
			_, err := Generate(context.Background(), opts)
			if err == nil {
				t.Fatal("generate succeeded")
			}
			if !IsInputError(err) {
				t.Errorf("error %v is not an input error", err)
			}
			if !strings.HasPrefix(filepath.ToSlash(err.Error()), c.want) {
				t.Errorf("error:\n  %v\nwant prefix:\n  %s", err, c.want)
			}
			if d := diffSnapshots(before, snapshot(t, dir)); d != "" {
				t.Errorf("a failed run changed the tree: %s", d)
			}
		})
	}
}
