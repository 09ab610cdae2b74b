package generators

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// defaulterTypes is a package tagged for defaulter-gen with one object
// type, T, and the spec it defaults.
const (
	defaulterDoc   = "// +k8s:defaulter-gen=TypeMeta\n\npackage v1\n"
	defaulterTypes = "package v1\n\n// TypeMeta stands in for metav1's.\ntype TypeMeta struct{}\n\n// T is an object.\ntype T struct {\n\tTypeMeta\n\tSpec Spec\n}\n\n// Spec is defaulted.\ntype Spec struct {\n\tN int\n}\n"
)

// TestDefaulterBadInput: a function named as a defaulter that is not one,
// and what defaulter-gen refuses (a +default that is not JSON, two of
// them, contradicting or malformed package tags), is an InputError at
// file:line, and nothing is written.
func TestDefaulterBadInput(t *testing.T) {
	for _, c := range []struct {
		name  string
		files fileTree
		want  string
	}{
		{"value parameter", fileTree{"apis/foo/v1/defaults.go": "package v1\n\nfunc SetDefaults_Spec(obj Spec) {}\n"},
			"apis/foo/v1/defaults.go:3: defaulter SetDefaults_Spec: its parameter is not a pointer"},
		{"two parameters", fileTree{"apis/foo/v1/defaults.go": "package v1\n\nfunc SetDefaults_Spec(obj *Spec, n int) {}\n"},
			"apis/foo/v1/defaults.go:3: defaulter SetDefaults_Spec: a defaulter takes one parameter, a pointer to the type it defaults, and returns nothing"},
		{"a result", fileTree{"apis/foo/v1/defaults.go": "package v1\n\nfunc SetObjectDefaults_T(obj *T) error { return nil }\n"},
			"apis/foo/v1/defaults.go:3: defaulter SetObjectDefaults_T: a defaulter takes one parameter"},
		{"name of another type", fileTree{"apis/foo/v1/defaults.go": "package v1\n\nfunc SetDefaults_Specs(obj *Spec) {}\n"},
			"apis/foo/v1/defaults.go:3: defaulter SetDefaults_Specs takes *Spec: its name must be SetDefaults_Spec, SetDefaults_Spec_<suffix> or SetObjectDefaults_Spec"},
		{"unnamed parameter type", fileTree{"apis/foo/v1/defaults.go": "package v1\n\nfunc SetDefaults_Spec(obj *[]Spec) {}\n"},
			"apis/foo/v1/defaults.go:3: defaulter SetDefaults_Spec: its parameter points to an unnamed type"},
		{"base defaulter in two packages", fileTree{
			"apis/foo/v1/defaults.go": "package v1\n\nfunc SetDefaults_Spec(obj *Spec) {}\n",
			"apis/foo/v2/doc.go":      "package v2\n",
			"apis/foo/v2/defaults.go": "package v2\n\nimport v1 \"example.com/bad/apis/foo/v1\"\n\nfunc SetDefaults_Spec(obj *v1.Spec) {}\n"},
			"apis/foo/v2/defaults.go:5: defaulter SetDefaults_Spec: type example.com/bad/apis/foo/v1.Spec already has a base defaulter at apis/foo/v1/defaults.go:3"},
		{"default that is not JSON", fileTree{"apis/foo/v1/types.go": strings.Replace(defaulterTypes, "\tN int\n", "\t// +default=five\n\tN int\n", 1)},
			"apis/foo/v1/types.go:15: +default=five on a member of type int is not JSON"},
		{"two defaults", fileTree{"apis/foo/v1/types.go": strings.Replace(defaulterTypes, "\tN int\n", "\t// +default=5\n\t// +default=6\n\tN int\n", 1)},
			"apis/foo/v1/types.go:16: found more than one +default tag on a member of type int"},
		{"false beside a member name", fileTree{"apis/foo/v1/doc.go": "// +k8s:defaulter-gen=TypeMeta\n// +k8s:defaulter-gen=false\n\npackage v1\n"},
			"apis/foo/v1/doc.go:2: +k8s:defaulter-gen: cannot mix \"false\" with other values"},
		{"relative input", fileTree{"apis/foo/v1/doc.go": "// +k8s:defaulter-gen=TypeMeta\n// +k8s:defaulter-gen-input=../v2\n\npackage v1\n"},
			"apis/foo/v1/doc.go:2: +k8s:defaulter-gen-input: relative path \"../v2\" is not supported"},
		{"two inputs", fileTree{"apis/foo/v1/doc.go": "// +k8s:defaulter-gen=TypeMeta\n// +k8s:defaulter-gen-input=example.com/a\n// +k8s:defaulter-gen-input=example.com/b\n\npackage v1\n"},
			"apis/foo/v1/doc.go:3: +k8s:defaulter-gen-input: expected at most one value"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			tree := fileTree{"go.mod": fooModule, "apis/foo/v1/doc.go": defaulterDoc, "apis/foo/v1/types.go": defaulterTypes}
			for k, v := range c.files {
				tree[k] = v
			}
			writeTree(t, dir, tree)
			before := snapshot(t, dir)
			_, err := Generate(context.Background(), Options{Patterns: []string{"./apis/..."}, WorkDir: dir, DefaulterOnly: true, Now: fixedNow})
			if err == nil {
				t.Fatal("generate succeeded")
			}
			if !IsInputError(err) {
				t.Errorf("error %v is not an input error", err)
			}
			if msg := filepath.ToSlash(err.Error()); !strings.HasPrefix(msg, c.want) {
				t.Errorf("error:\n  %v\nwant prefix:\n  %s", err, c.want)
			}
			if d := diffSnapshots(before, snapshot(t, dir)); d != "" {
				t.Errorf("a failed run changed the tree: %s", d)
			}
		})
	}
}

// TestDefaulterReplacesUpstreamAndRemovesStale: a file defaulter-gen wrote
// at the output path is replaced, one of ours in a package no longer
// tagged is removed as stale, a file of the user's there stops the run, and
// deepcopy and defaults files come from one run.
func TestDefaulterReplacesUpstreamAndRemovesStale(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, fileTree{
		"go.mod":                   fooModule,
		"apis/a/doc.go":            "// +k8s:deepcopy-gen=package\n" + strings.Replace(defaulterDoc, "package v1", "package a", 1),
		"apis/a/types.go":          strings.Replace(defaulterTypes, "package v1", "package a", 1),
		"apis/a/defaults.go":       "package a\n\n// SetDefaults_Spec sets N.\nfunc SetDefaults_Spec(obj *Spec) { obj.N = 1 }\n",
		"apis/a/zz_defaults.go":    "//go:build !ignore_autogenerated\n\n// Code generated by defaulter-gen. DO NOT EDIT.\n\npackage a\n\nfunc SetObjectDefaults_T(in *T) {}\n",
		"apis/b/types.go":          "package b\n\n// U is not tagged.\ntype U struct{}\n",
		"apis/b/zz_defaults.go":    "//go:build !ignore_autogenerated\n\n// Code generated by informer-gen. DO NOT EDIT.\n\npackage b\n",
		"apis/c/doc.go":            "// +k8s:defaulter-gen=TypeMeta\n\npackage c\n",
		"apis/c/zz_defaults.go":    "package c\n\n// Handwritten is not generated.\nvar Handwritten = 1\n",
		"apis/c/more/unrelated.go": "package more\n",
	})
	opts := Options{Patterns: []string{"./apis/a", "./apis/b"}, WorkDir: dir, DefaulterOnly: true, WithDeepCopy: true, DefaulterOutputFile: "zz_defaults.go", Now: fixedNow}
	res, err := Generate(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Files) != 2 || len(res.Stale) != 1 || !strings.HasSuffix(res.Stale[0], filepath.Join("b", "zz_defaults.go")) {
		t.Fatalf("files %d, stale %v", len(res.Files), res.Stale)
	}
	src := string(readFile(t, filepath.Join(dir, "apis/a/zz_defaults.go")))
	for _, want := range []string{"scheme.AddTypeDefaultingFunc(&T{}, func(obj interface{}) { SetObjectDefaults_T(obj.(*T)) })", "func SetObjectDefaults_T(in *T) {\n\tSetDefaults_Spec(&in.Spec)\n}", "// Code generated by informer-gen. DO NOT EDIT."} {
		if !strings.Contains(src, want) {
			t.Errorf("apis/a/zz_defaults.go lacks %q:\n%s", want, src)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "apis/a/zz_generated.deepcopy.go")); err != nil {
		t.Errorf("deepcopy file of the same run: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "apis/b/zz_defaults.go")); !os.IsNotExist(err) {
		t.Errorf("stale apis/b/zz_defaults.go: %v", err)
	}
	if again, err := Build(context.Background(), opts); err != nil || !again.UpToDate() {
		t.Errorf("second run: up to date %v, err %v", again != nil && again.UpToDate(), err)
	}
	opts.Patterns = []string{"./apis/c"}
	if _, err := Build(context.Background(), opts); err == nil || !IsInputError(err) || !strings.Contains(err.Error(), "apis/c/zz_defaults.go") {
		t.Errorf("user's file at the output path: %v", err)
	}
}

// TestDefaulterOptions: the defaulter flags are refused where they mean
// nothing, and with --defaulter-only alone --output-file names the
// defaults file.
func TestDefaulterOptions(t *testing.T) {
	for _, c := range []struct {
		name   string
		mutate func(*Options)
		want   string
	}{
		{"output file without defaulter", func(o *Options) { o.DefaulterOnly = false; o.DeepCopyOnly = true; o.DefaulterOutputFile = "x.go" }, "--defaulter-output-file names the defaults file, which is generated only with --with-defaulter or --defaulter-only"},
		{"output file in a directory", func(o *Options) { o.DefaulterOutputFile = "sub/x.go" }, `defaults file "sub/x.go" is not the base name of a non-test Go file`},
		{"--output-file in a directory", func(o *Options) { o.DeepCopyOutputFile = "sub/x.go" }, `defaults file "sub/x.go" is not the base name of a non-test Go file`},
		{"both output files", func(o *Options) { o.DeepCopyOutputFile = "x.go"; o.DefaulterOutputFile = "y.go" }, "--output-file and --defaulter-output-file both name the defaults file"},
		{"peer packages without defaulter", func(o *Options) {
			o.DefaulterOnly = false
			o.DeepCopyOnly = true
			o.DefaulterExtraPeerPackages = []string{"example.com/p"}
		}, "--defaulter-extra-peer-dirs names packages for the defaulters"},
		{"peer directory", func(o *Options) { o.DefaulterExtraPeerPackages = []string{"./p"} }, `--defaulter-extra-peer-dirs: "./p" is not an import path`},
		{"defaulter only with an output package", func(o *Options) { o.OutputPkg = "example.com/x" }, "--output-pkg configures informers, listers or clients, which --defaulter-only does not generate"},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := Options{Patterns: []string{deepCopyPkgs}, DefaulterOnly: true, HeaderFile: headerFile, Now: fixedNow}
			c.mutate(&o)
			_, err := Build(context.Background(), o)
			if err == nil || !IsInputError(err) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want an input error containing %q", err, c.want)
			}
		})
	}
}

// TestDefaulterWithInformers: with WithDefaulter the defaults files come
// with the informers and listers of the same run, and those stay current:
// here one package, tagged for defaulter-gen, is added to the golden input.
func TestDefaulterWithInformers(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, fileTree{
		"go.mod":             fooModule,
		"apis/d/doc.go":      strings.Replace(defaulterDoc, "package v1", "package d", 1),
		"apis/d/types.go":    strings.Replace(defaulterTypes, "package v1", "package d", 1),
		"apis/d/defaults.go": "package d\n\n// SetDefaults_Spec sets N.\nfunc SetDefaults_Spec(obj *Spec) { obj.N = 1 }\n",
	})
	opts := goldenOptions(goldenDir, goldenPkg)
	opts.WithDefaulter = true
	opts.Patterns = append(opts.Patterns, filepath.Join(dir, "apis", "d"))
	res, err := Build(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	var defaults []string
	for _, f := range res.Files {
		isNew := filepath.Base(f.Path) == "zz_generated.defaults.go"
		if isNew {
			defaults = append(defaults, f.Path)
		}
		if f.Changed != isNew {
			t.Errorf("%s: changed %v, want %v", f.Path, f.Changed, isNew)
		}
	}
	if len(defaults) != 1 || defaults[0] != filepath.Join(dir, "apis", "d", "zz_generated.defaults.go") || len(res.Stale) != 0 {
		t.Errorf("defaults files %v, stale %v", defaults, res.Stale)
	}
}
