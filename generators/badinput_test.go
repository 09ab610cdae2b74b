package generators

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

const okTypes = `package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

` + okTypeDecl

// okTypeDecl is okTypes from its +genclient tag on: Foo's declaration alone,
// for a test to append a renamed copy to a types.go.
const okTypeDecl = `// +genclient

// Foo is fine.
type Foo struct {
	metav1.TypeMeta   ` + "`json:\",inline\"`" + `
	metav1.ObjectMeta ` + "`json:\"metadata,omitempty\"`" + `
}
`

// fooRenamed is okTypes with Foo's declaration naming the type decl.
func fooRenamed(decl string) string {
	return strings.Replace(okTypes, "type Foo struct", "type "+decl+" struct", 1)
}

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
			files: fooV1(strings.Replace(okTypes, "// +genclient\n",
				"// +genclient\n// +genclient:nonNamespace\n", 1)),
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
			name:  "type without ObjectMeta",
			files: fooV1("package v1\n\n// +genclient\n\n// Foo has no metadata.\ntype Foo struct {\n\tName string\n}\n"),
			want:  "apis/foo/v1/types.go:6: type Foo has +genclient but does not embed metav1.ObjectMeta",
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
			name:  "no genclient types at all",
			files: fooV1(strings.Replace(okTypes, "// +genclient\n", "", 1)),
			want:  "no +genclient type with list and watch or list and get verbs in ./apis/...",
		},
		{
			name:  "syntax error",
			files: fooV1(okTypes + "\n// +genclient\ntype Broken struct {\n"),
			want:  "apis/foo/v1/types.go:14: syntax error: expected",
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
			files: fooV1(okTypes).
				with("apis/foo2/v1/doc.go", "// +groupName=foo.other.io\npackage v1\n").
				with("apis/foo2/v1/types.go", okTypes),
			want: `apis/foo2/v1/doc.go:1: groups "foo.example.com" and "foo.other.io" share the Go name "Foo"`,
		},
		{
			name:   "missing required flag",
			files:  fooV1(okTypes),
			mutate: func(o *Options) { o.VersionedClientsetPackage = "" },
			want:   "--versioned-clientset-package is required",
		},
		{
			name:   "bad plural exception",
			files:  fooV1(okTypes),
			mutate: func(o *Options) { o.PluralExceptions = []string{"Foo"} },
			want:   `--plural-exceptions: "Foo" is not of the form Type:PluralType`,
		},
		{
			name:   "missing header file",
			files:  fooV1(okTypes),
			mutate: func(o *Options) { o.HeaderFile = "nope.txt" },
			want:   "--go-header-file: open nope.txt",
		},
		{
			name:  "generic type",
			files: fooV1(fooRenamed("Foo[T any]")),
			want:  "apis/foo/v1/types.go:8: type Foo has +genclient but type parameters",
		},
		{
			name:  "unexported type",
			files: fooV1(fooRenamed("foo")),
			want:  "apis/foo/v1/types.go:8: type foo has +genclient but is not exported",
		},
		{
			name:  "type name without an upper-case form",
			files: fooV1(fooRenamed("日本")),
			want:  "apis/foo/v1/types.go:8: type 日本 has +genclient but is not exported",
		},
		{
			name:  "Foo and FooNamespace make FooNamespaceLister twice",
			files: fooV1(okTypes + strings.Replace(okTypeDecl, "Foo", "FooNamespace", 2)),
			want:  "apis/foo/v1/types.go:15: type FooNamespace would generate the identifier FooNamespaceLister in package listers/foo/v1, which type Foo (",
		},
		{
			name:  "Foo and FilteredFoo make NewFilteredFooInformer twice",
			files: fooV1(okTypes + strings.Replace(okTypeDecl, "Foo", "FilteredFoo", 2)),
			want:  "apis/foo/v1/types.go:8: type Foo would generate the identifier NewFilteredFooInformer in package informers/foo/v1, which type FilteredFoo (apis/foo/v1/types.go:15) generates too",
		},
		{
			name:  "Foo and FOO make foo.go twice",
			files: fooV1(okTypes + strings.Replace(strings.Replace(okTypeDecl, "Foo", "FOO", 2), "+genclient\n", "+genclient\n// +resourceName=capitalfoos\n", 1)),
			want:  "apis/foo/v1/types.go:8: type Foo would generate the file foo.go in directory informers/foo/v1, which type FOO (apis/foo/v1/types.go:16) generates too",
		},
		{
			name:  "type Interface makes interface.go twice",
			files: fooV1(fooRenamed("Interface")),
			want:  "apis/foo/v1/types.go:8: type Interface would generate the file interface.go in directory informers/foo/v1, which informer-gen generates too",
		},
		{
			name:  "type whose file the go tool builds only on linux",
			files: fooV1(fooRenamed("Foo_linux")),
			want:  "apis/foo/v1/types.go:8: type Foo_linux would be generated into foo_linux.go, which the go tool only builds",
		},
		{
			name: "two types with one resource",
			files: fooV1(strings.Replace(okTypes, "// +genclient\n", "// +genclient\n// +resourceName=bars\n", 1) +
				strings.Replace(okTypeDecl, "Foo", "Bar", 2)),
			want: `apis/foo/v1/types.go:6: types Bar and Foo both serve resource "bars" of foo.example.com/v1`,
		},
		{
			name:   "plural that is no identifier",
			files:  fooV1(okTypes),
			mutate: func(o *Options) { o.PluralExceptions = []string{"Foo:Foo-s"} },
			want:   `apis/foo/v1/types.go:8: type Foo: its plural "Foo-s" is not an exported Go identifier`,
		},
		{
			name: "versions v1 and V1 of one group",
			files: fooV1(okTypes).
				with("apis/foo/V1/doc.go", "// +groupName=foo.example.com\npackage v1\n").
				with("apis/foo/V1/types.go", okTypes),
			want: `apis/foo/v1/doc.go:2: version v1 of group "foo.example.com" would generate the package v1 in the directories of group "foo.example.com", which version V1`,
		},
		{
			name:  "definition that leads to no ObjectMeta",
			files: fooV1("package v1\n\n// +genclient\n\n// Foo is Bar.\ntype Foo Bar\n\n// Bar has no metadata.\ntype Bar struct{ Name string }\n"),
			want:  "apis/foo/v1/types.go:6: type Foo has +genclient but informers and listers need it to embed metav1.ObjectMeta, and following its definition did not find it: Bar is a struct that does not embed metav1.ObjectMeta",
		},
		{
			name: "definition of a missing type of another package",
			files: fooV1(okTypes).
				with("apis/foo/v2/doc.go", "// +groupName=foo.example.com\npackage v2\n").
				with("apis/foo/v2/types.go", "package v2\n\nimport v1 \"example.com/bad/apis/foo/v1\"\n\n// +genclient\n\n// Foo is v1's.\ntype Foo v1.Fooo\n"),
			want: "apis/foo/v2/types.go:8: type Foo has +genclient but informers and listers need it to embed metav1.ObjectMeta, and following its definition did not find it: v1.Fooo: no type Fooo in package example.com/bad/apis/foo/v1",
		},
		{
			name:  "definition cycle",
			files: fooV1("package v1\n\n// +genclient\n\n// Foo is Bar.\ntype Foo Bar\n\n// Bar is Foo.\ntype Bar Foo\n"),
			want:  "apis/foo/v1/types.go:6: type Foo has +genclient but informers and listers need it to embed metav1.ObjectMeta, and following its definition did not find it: definitions nest more than 16 deep",
		},
		{
			name: "aliases of one type in two versions",
			files: fooV1(okTypes).
				with("apis/foo/v2/doc.go", "// +groupName=foo.example.com\npackage v2\n").
				with("apis/foo/v2/types.go", "package v2\n\nimport \"example.com/bad/apis/foo/v1\"\n\n// +genclient\n\n// Foo is v1's.\ntype Foo = v1.Foo\n"),
			want: "apis/foo/v2/types.go:8: type Foo is the same Go type (example.com/bad/apis/foo/v1.Foo) as type Foo at apis/foo/v1/types.go:8, through an alias",
		},
		{
			name:   "header that is not UTF-8",
			files:  fooV1(okTypes).with("hdr.txt", "/*\nCopyright YEAR \xff\xfe.\n*/\n"),
			mutate: func(o *Options) { o.HeaderFile = filepath.Join(o.WorkDir, "hdr.txt") },
			want:   "hdr.txt:2: --go-header-file is not valid UTF-8",
		},
		{
			name:   "header that is not a comment",
			files:  fooV1(okTypes).with("hdr.txt", "// Copyright YEAR.\nLicensed under Apache 2.0\n"),
			mutate: func(o *Options) { o.HeaderFile = filepath.Join(o.WorkDir, "hdr.txt") },
			want:   "hdr.txt:2: --go-header-file must hold only Go comments (// or /* */), found IDENT",
		},
		{
			name:   "header with a build constraint",
			files:  fooV1(okTypes).with("hdr.txt", "// Copyright YEAR.\n\n//go:build ignore\n"),
			mutate: func(o *Options) { o.HeaderFile = filepath.Join(o.WorkDir, "hdr.txt") },
			want:   "hdr.txt:3: --go-header-file holds a build constraint",
		},
		{
			name:   "output directory that is a file",
			files:  fooV1(okTypes).with("out", "a file\n"),
			mutate: func(o *Options) { o.OutputDir = "out" },
			want:   "--output-dir: out is a file, not a directory",
		},
		{
			name:  "extension without verb",
			files: fooV1(strings.Replace(okTypes, "// +genclient\n", "// +genclient\n// +genclient:method=GetScale,subresource=scale\n", 1)),
			want:  "apis/foo/v1/types.go:6: type Foo: +genclient:method=GetScale,subresource=scale: say which verb it uses",
		},
		{
			name:  "extension with an unsupported verb",
			files: fooV1(strings.Replace(okTypes, "// +genclient\n", "// +genclient\n// +genclient:method=Drop,verb=delete\n", 1)),
			want:  `apis/foo/v1/types.go:6: type Foo: +genclient:method=Drop,verb=delete: verb "delete" cannot be used for an extension method`,
		},
		{
			name:  "extension overriding the input of a get",
			files: fooV1(strings.Replace(okTypes, "// +genclient\n", "// +genclient\n// +genclient:method=GetScale,verb=get,input=Scale\n", 1)),
			want:  `apis/foo/v1/types.go:6: type Foo: +genclient:method=GetScale,verb=get,input=Scale: input type is not supported for "get" verbs`,
		},
		{
			name:  "extension with an unknown key",
			files: fooV1(strings.Replace(okTypes, "// +genclient\n", "// +genclient\n// +genclient:method=GetScale,verb=get,sub=scale\n", 1)),
			want:  `apis/foo/v1/types.go:6: type Foo: +genclient:method=GetScale,verb=get,sub=scale: unknown key "sub"`,
		},
		{
			name:   "clientset option without --with-clientset",
			files:  fooV1(okTypes),
			mutate: func(o *Options) { o.ApplyConfigurationPackage = "example.com/bad/applyconfigurations" },
			want:   "--apply-configuration-package configures the clientset, which is generated only with --with-clientset",
		},
		{
			name:  "clientset over a client-gen clientset",
			files: fooV1(okTypes).with("gen/clientset/versioned/clientset.go", "// Code generated by client-gen. DO NOT EDIT.\n\npackage versioned\n"),
			mutate: func(o *Options) {
				o.WithClientset, o.VersionedClientsetPackage = true, ""
			},
			want: "gen/clientset/versioned/clientset.go: informer-gen would overwrite this file written by upstream client-gen",
		},
		{
			name:  "clientset for a type without ObjectMeta",
			files: fooV1(okTypes + "\n// +genclient\n// +genclient:noVerbs\n\n// Bar has no metadata.\ntype Bar struct {\n\tName string\n}\n"),
			mutate: func(o *Options) {
				o.WithClientset, o.VersionedClientsetPackage = true, ""
			},
			want: "apis/foo/v1/types.go:17: type Bar has +genclient but does not embed metav1.ObjectMeta, which its typed client needs",
		},
		{
			name:  "clientset elsewhere than the informers use",
			files: fooV1(okTypes),
			mutate: func(o *Options) {
				o.WithClientset = true
			},
			want: "--versioned-clientset-package example.com/bad/clientset: with --with-clientset the informers use the generated clientset, example.com/bad/gen/clientset/versioned",
		},
		{
			name: "apply configuration of a func member",
			files: fooV1(strings.Replace(okTypes, "metav1.ObjectMeta "+"`json:\"metadata,omitempty\"`", "metav1.ObjectMeta "+"`json:\"metadata,omitempty\"`\n\tSpec FooSpec `json:\"spec\"`", 1) +
				"\n// FooSpec has a member apply configurations cannot hold.\ntype FooSpec struct {\n\tHook func() `json:\"hook\"`\n}\n").withMetaStub(),
			mutate: withApplyConfig,
			want:   "apis/foo/v1/types.go:16: member type func(): apply configurations support named types",
		},
		{
			name: "apply configuration member from a dot import",
			files: fooV1(strings.Replace(strings.Replace(strings.Replace(okTypes, "import metav1", "import (\n\t. \"example.com/bad/apis/other\"\n\tmetav1", 1), "v1\"\n", "v1\"\n)\n", 1), "metav1.ObjectMeta "+"`json:\"metadata,omitempty\"`", "metav1.ObjectMeta "+"`json:\"metadata,omitempty\"`\n\tSpec FooSpec `json:\"spec\"`", 1)+"\n// FooSpec names a type of the dot import.\ntype FooSpec struct {\n\tOther Other `json:\"other\"`\n}\n").
				with("apis/other/other.go", "package other\n\n// Other is dot-imported.\ntype Other struct {\n\tName string `json:\"name\"`\n}\n").withMetaStub(),
			mutate: func(o *Options) {
				withApplyConfig(o)
				o.Patterns = []string{"./apis/foo/..."}
			},
			want: "apis/foo/v1/types.go:19: type Other may come from a dot import (example.com/bad/apis/other), which apply configurations cannot resolve without type-checking",
		},
		{
			name:  "malformed external apply configuration",
			files: fooV1(okTypes).withMetaStub(),
			mutate: func(o *Options) {
				withApplyConfig(o)
				o.ExternalApplyConfigurations = []string{"k8s.io/api/apps/v1.Deployment"}
			},
			want: `--external-applyconfigurations: "k8s.io/api/apps/v1.Deployment" is not <type package>.<Type>:<apply configuration package>`,
		},
		{
			name:   "apply configurations without the clientset",
			files:  fooV1(okTypes).withMetaStub(),
			mutate: func(o *Options) { o.WithApplyConfig = true },
			want:   "--with-applyconfig needs --with-clientset",
		},
		{
			name:   "apply configuration flag without --with-applyconfig",
			files:  fooV1(okTypes).withMetaStub(),
			mutate: func(o *Options) { o.OpenAPISchema = "schema.json" },
			want:   "--openapi-schema configures the apply configurations, which are generated only with --with-applyconfig",
		},
		{
			name:   "missing OpenAPI schema",
			files:  fooV1(okTypes).withMetaStub(),
			mutate: func(o *Options) { withApplyConfig(o); o.OpenAPISchema = "schema.json" },
			want:   "--openapi-schema: open ",
		},
		{
			name:   "OpenAPI schema that is not one",
			files:  fooV1(okTypes).withMetaStub().with("schema.json", "swagger: 2.0\n"),
			mutate: func(o *Options) { withApplyConfig(o); o.OpenAPISchema = "schema.json" },
			want:   "schema.json: --openapi-schema: not an OpenAPI v2 document",
		},
		{
			name:   "OpenAPI schema with a dangling reference",
			files:  fooV1(okTypes).withMetaStub().with("schema.json", `{"definitions": {"com.example.bad.apis.foo.v1.Foo": {"type": "object", "properties": {"spec": {"$ref": "#/definitions/Missing"}}}}}`),
			mutate: func(o *Options) { withApplyConfig(o); o.OpenAPISchema = "schema.json" },
			want:   "schema.json: --openapi-schema: a schema references Missing, which the document does not define",
		},
		{
			name:   "over applyconfiguration-gen's output",
			files:  fooV1(okTypes).withMetaStub().with("gen/applyconfiguration/foo/v1/foo.go", "// Code generated by applyconfiguration-gen. DO NOT EDIT.\n\npackage v1\n"),
			mutate: withApplyConfig,
			want:   "gen/applyconfiguration/foo/v1/foo.go: informer-gen would overwrite this file written by upstream applyconfiguration-gen",
		},
		{
			name:   "over a hand-written apply configuration",
			files:  fooV1(okTypes).withMetaStub().with("gen/applyconfiguration/utils.go", "package applyconfiguration\n"),
			mutate: withApplyConfig,
			want:   "gen/applyconfiguration/utils.go: informer-gen would overwrite this file, which it did not generate",
		},
		{
			name: "listers package over a hand-written API file",
			files: map[string]string{
				"apis/foo/v1/doc.go": "// +groupName=foo.example.com\npackage v1\n",
				"apis/foo/v1/foo.go": okTypes,
			},
			mutate: func(o *Options) { o.ListersPackage = "example.com/bad/apis" },
			want:   "apis/foo/v1/foo.go: informer-gen would overwrite this file, which it did not generate",
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if _, ok := c.files["go.mod"]; !ok {
				c.files["go.mod"] = fooModule
			}
			// An output tree from an earlier run that a failed run must not touch.
			c.files["gen/listers/foo/v1/foo.go"] = "// " + "Code generated by informer-gen. DO NOT EDIT.\n\npackage v1\n"
			writeTree(t, dir, c.files)
			before := snapshot(t, dir)

			opts := fooOptions(dir)
			if c.patterns != nil {
				opts.Patterns = c.patterns
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
			if msg := filepath.ToSlash(strings.ReplaceAll(err.Error(), dir+string(filepath.Separator), "")); !strings.HasPrefix(msg, c.want) {
				t.Errorf("error:\n  %v\nwant prefix:\n  %s", err, c.want)
			}
			if d := diffSnapshots(before, snapshot(t, dir)); d != "" {
				t.Errorf("a failed run changed the tree: %s", d)
			}
		})
	}
}

// withApplyConfig turns on the clientset and the apply configurations.
func withApplyConfig(o *Options) {
	o.VersionedClientsetPackage = ""
	o.WithClientset = true
	o.WithApplyConfig = true
}

// withMetaStub adds a module k8s.io/apimachinery with a meta/v1 whose
// ObjectMeta and TypeMeta have a few members, replaced into example.com/bad:
// apply configurations read the members of the embedded meta types.
func (t fileTree) withMetaStub() fileTree {
	t["go.mod"] = fooModule + "\nrequire k8s.io/apimachinery v0.0.0\n\nreplace k8s.io/apimachinery => ./stub\n"
	t["stub/go.mod"] = "module k8s.io/apimachinery\n\ngo 1.26\n"
	t["stub/pkg/apis/meta/v1/types.go"] = "package v1\n\n// TypeMeta is a stub.\ntype TypeMeta struct {\n\tKind string `json:\"kind,omitempty\"`\n\tAPIVersion string `json:\"apiVersion,omitempty\"`\n}\n\n" +
		"// ObjectMeta is a stub.\ntype ObjectMeta struct {\n\tName string `json:\"name,omitempty\"`\n\tNamespace string `json:\"namespace,omitempty\"`\n}\n"
	return t
}
