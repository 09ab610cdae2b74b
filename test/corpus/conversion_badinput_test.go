package corpus

import (
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/typedinformer/typedinformer/generators"
)

// badConversionTree is a module (testdata/conversion's go.mod, this
// module's go.sum) with the peer package apis/core and the files given.
func badConversionTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	mod, err := os.ReadFile(filepath.Join("testdata", "conversion", "go.mod.txt"))
	if err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile("go.sum")
	if err != nil {
		t.Fatal(err)
	}
	all := map[string]string{
		"go.mod":             string(mod),
		"go.sum":             string(sum),
		"apis/core/types.go": "package core\n\ntype Port struct {\n\tName   string\n\tNumber int64\n}\n",
		"apis/v1/doc.go":     "// +k8s:conversion-gen=example.com/conv/apis/core\n\npackage v1\n",
	}
	for k, v := range files {
		all[k] = v
	}
	for rel, content := range all {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// treeFiles maps every file under dir to its content.
func treeFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		out[p] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

const portV1 = "package v1\n\ntype Port struct {\n\tName   string\n\tNumber int64\n}\n"

// explicitFrom is portV1 with Port tagged
// +k8s:conversion-gen:explicit-from=<from>, the tag on line 3.
func explicitFrom(from string) string {
	return "package v1\n\n// +k8s:conversion-gen:explicit-from=" + from + "\ntype Port struct {\n\tName   string\n\tNumber int64\n}\n"
}

// TestConversionBadInput: input conversion-gen refuses, or for which it
// writes code that does not compile, is an InputError at file:line naming
// the thing at fault, and nothing is written.
func TestConversionBadInput(t *testing.T) {
	for _, c := range []struct {
		name  string
		files map[string]string
		extra []string
		want  string
	}{
		{"peer package that does not exist", map[string]string{"apis/v1/doc.go": "// +k8s:conversion-gen=example.com/conv/apis/nope\n\npackage v1\n", "apis/v1/types.go": portV1},
			nil, "apis/v1/doc.go:1: +k8s:conversion-gen: peer package example.com/conv/apis/nope: "},
		{"external types package that does not exist", map[string]string{"apis/v1/doc.go": "// +k8s:conversion-gen=example.com/conv/apis/core\n// +k8s:conversion-gen-external-types=example.com/conv/api/nope\n\npackage v1\n", "apis/v1/types.go": portV1},
			nil, "apis/v1/doc.go:2: +k8s:conversion-gen-external-types: package example.com/conv/api/nope: "},
		{"extra peer package that does not exist", map[string]string{"apis/v1/types.go": portV1},
			[]string{"example.com/conv/apis/nope"}, "--extra-peer-dirs: peer package example.com/conv/apis/nope: "},
		{"relative peer package", map[string]string{"apis/v1/doc.go": "// +k8s:conversion-gen=../core\n\npackage v1\n", "apis/v1/types.go": portV1},
			nil, `apis/v1/doc.go:1: relative path "../core" is not supported; use the full package import path`},
		{"false beside a peer", map[string]string{"apis/v1/doc.go": "// +k8s:conversion-gen=false\n// +k8s:conversion-gen=example.com/conv/apis/core\n\npackage v1\n", "apis/v1/types.go": portV1},
			nil, `apis/v1/doc.go:1: +k8s:conversion-gen: cannot mix "false" with peer packages`},
		{"type tag other than false", map[string]string{"apis/v1/types.go": "package v1\n\n// +k8s:conversion-gen=true\ntype Port struct {\n\tName   string\n\tNumber int64\n}\n"},
			nil, `apis/v1/types.go:3: type Port: unsupported +k8s:conversion-gen value "true"`},
		{"member missing in the peer", map[string]string{"apis/v1/types.go": "package v1\n\ntype Port struct {\n\tName   string\n\tNumber int64\n\tExtra  string\n}\n"},
			nil, "apis/v1/types.go:3: example.com/conv/apis/v1.Port: members Extra require manual conversion to example.com/conv/apis/core.Port (see the WARNING comments in autoConvert): write Convert_v1_Port_To_core_Port by hand"},
		{"inconvertible member types", map[string]string{"apis/v1/types.go": "package v1\n\ntype Port struct {\n\tName   string\n\tNumber []int64\n}\n"},
			nil, "apis/v1/types.go:3: example.com/conv/apis/v1.Port: members Number require manual conversion to example.com/conv/apis/core.Port"},
		{"member with no conversion", map[string]string{
			"apis/core/types.go": "package core\n\ntype Port struct {\n\tName   string\n\tNumber int64\n\tAny    interface{ M() }\n}\n",
			"apis/v1/types.go":   "package v1\n\ntype Port struct {\n\tName   string\n\tNumber int64\n\tAny    interface{ M() }\n}\n"},
			nil, "apis/v1/types.go:6: no conversion from interface{M()} to interface{M()}: write Convert_Interface_To_Interface by hand"},
		{"explicit-from package that does not exist", map[string]string{"apis/v1/types.go": explicitFrom("example.com/conv/apis/nope.Values")},
			nil, "apis/v1/types.go:3: type Port: +k8s:conversion-gen:explicit-from: package example.com/conv/apis/nope: "},
		{"explicit-from type that is not found", map[string]string{"apis/v1/types.go": explicitFrom("net/url.Value")},
			nil, "apis/v1/types.go:3: type Port: +k8s:conversion-gen:explicit-from: package net/url has no type Value"},
		{"explicit-from type other than url.Values", map[string]string{"apis/v1/types.go": explicitFrom("net/url.URL")},
			nil, "apis/v1/types.go:3: type Port: +k8s:conversion-gen:explicit-from=net/url.URL: conversion-gen converts only from net/url.Values"},
		{"explicit-from without a package", map[string]string{"apis/v1/types.go": explicitFrom("Values")},
			nil, `apis/v1/types.go:3: type Port: +k8s:conversion-gen:explicit-from="Values": expected <package>.<Type>`},
		{"explicit-from given twice", map[string]string{"apis/v1/types.go": "package v1\n\n// +k8s:conversion-gen:explicit-from=net/url.Values\n" + explicitFrom("net/url.Values")[len("package v1\n\n"):]},
			nil, "apis/v1/types.go:4: type Port: +k8s:conversion-gen:explicit-from=net/url.Values is given twice"},
		{"explicit-from into an array member", map[string]string{"apis/v1/types.go": "package v1\n\n// +k8s:conversion-gen:explicit-from=net/url.Values\ntype Query struct {\n\tName  string   `json:\"name\"`\n\tCodes [2]int32 `json:\"codes\"`\n}\n" + portV1[len("package v1\n"):]},
			nil, "apis/v1/types.go:6: member Codes: conversion-gen sets the array [2]int32 to nil when its query parameter is absent, which does not compile"},
		{"one conversion written twice", map[string]string{
			"apis/v1/types.go": portV1,
			"apis/v1/conv.go":  "package v1\n\nimport (\n\t\"k8s.io/apimachinery/pkg/conversion\"\n\n\t\"example.com/conv/apis/core\"\n)\n\nfunc Convert_v1_Port_To_core_Port(in *Port, out *core.Port, s conversion.Scope) error { return nil }\n",
			"apis/extra/conv.go": "package extra\n\nimport (\n\t\"k8s.io/apimachinery/pkg/conversion\"\n\n\t\"example.com/conv/apis/core\"\n\tv1 \"example.com/conv/apis/v1\"\n)\n\n" +
				"func Convert_v1_Port_To_core_Port(in *v1.Port, out *core.Port, s conversion.Scope) error { return nil }\n"},
			[]string{"example.com/conv/apis/extra"}, "apis/v1/conv.go:9: duplicate conversion function from example.com/conv/apis/v1.Port to example.com/conv/apis/core.Port"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := badConversionTree(t, c.files)
			before := treeFiles(t, dir)
			_, err := generators.Generate(context.Background(), generators.Options{
				Patterns: []string{"./apis/v1"}, WorkDir: dir, ConversionOnly: true, ExtraPeerDirs: c.extra,
			})
			if err == nil {
				t.Fatal("generate succeeded")
			}
			if !generators.IsInputError(err) {
				t.Errorf("error %v is not an input error", err)
			}
			if msg := filepath.ToSlash(err.Error()); !strings.HasPrefix(msg, c.want) {
				t.Errorf("error:\n  %v\nwant prefix:\n  %s", err, c.want)
			}
			after := treeFiles(t, dir)
			if len(after) != len(before) {
				t.Errorf("a failed run changed the tree: %d files before, %d after", len(before), len(after))
			}
		})
	}
}

// TestConversionRefusesWhatUpstreamCannotCompile runs conversion-gen where
// a member requires manual conversion and no Convert function is written
// by hand: conversion-gen writes the WARNING, leaves the Convert function
// out and still calls it from RegisterConversions (code that does not
// compile), which is why informer-gen refuses the same input naming that
// function.
func TestConversionRefusesWhatUpstreamCannotCompile(t *testing.T) {
	dir := badConversionTree(t, map[string]string{
		"apis/v1/types.go":    "package v1\n\ntype Port struct {\n\tName   string\n\tNumber int64\n\tExtra  string\n}\n",
		"apis/v1/register.go": "package v1\n\nimport \"k8s.io/apimachinery/pkg/runtime\"\n\nvar localSchemeBuilder = runtime.NewSchemeBuilder()\n",
	})
	_, err := generators.Build(context.Background(), generators.Options{Patterns: []string{"./apis/v1"}, WorkDir: dir, ConversionOnly: true})
	const fn = "Convert_v1_Port_To_core_Port"
	if err == nil || !strings.Contains(err.Error(), "write "+fn+" by hand") {
		t.Fatalf("informer-gen: error %v, want one naming %s", err, fn)
	}
	bin := installUpstreamTool(t, "conversion-gen")
	cmd := exec.Command(filepath.Join(bin, "conversion-gen"), "--output-file", "zz_generated.conversion.go", "./apis/v1")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("conversion-gen: %v\n%s", err, out)
	} else if !strings.Contains(string(out), "the following fields need manual conversion") {
		t.Errorf("conversion-gen did not report the member:\n%s", out)
	}
	src, err := os.ReadFile(filepath.Join(dir, "apis", "v1", "zz_generated.conversion.go"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(src)
	if !strings.Contains(s, "// WARNING: in.Extra requires manual conversion: does not exist in peer-type") ||
		strings.Contains(s, "func "+fn+"(") || !strings.Contains(s, "return "+fn+"(") {
		t.Errorf("conversion-gen's file: want the WARNING, a call of %s and no definition:\n%s", fn, s)
	}
	build := exec.Command("go", "build", "./apis/v1")
	build.Dir = dir
	build.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
	if out, err := build.CombinedOutput(); err == nil || !strings.Contains(string(out), "undefined: "+fn) {
		t.Errorf("conversion-gen's output compiles or fails otherwise: %v\n%s", err, out)
	}
}

// TestConversionRefusesArrayFromURLValues runs conversion-gen on a type
// converted from url.Values with an array member: it sets the member to
// nil when its query parameter is absent, which does not compile, so
// informer-gen refuses the member instead. What it writes for the other
// members, of the kinds it converts, leaves with a FIXME or skips, compiles.
func TestConversionRefusesArrayFromURLValues(t *testing.T) {
	dir := badConversionTree(t, map[string]string{
		"apis/v1/types.go": "package v1\n\nimport metav1 \"k8s.io/apimachinery/pkg/apis/meta/v1\"\n\ntype Phase string\n\n" +
			"// +k8s:conversion-gen:explicit-from=net/url.Values\ntype Query struct {\n" +
			"\tCodes [2]int32 `json:\"codes\"`\n\tName string `json:\"name\"`\n\tNames []string `json:\"names\"`\n" +
			"\tWatch *bool `json:\"watch\"`\n\tLimit int32 `json:\"limit\"`\n\tSince metav1.Time `json:\"since\"`\n" +
			"\tPhase Phase `json:\"phase\"`\n\tRune rune `json:\"rune\"`\n\tDone chan int `json:\"done\"`\n" +
			"\tAny interface{} `json:\"any\"`\n\tSel map[string]string `json:\"sel\"`\n\tNoTag string\n}\n",
		"apis/v1/register.go": "package v1\n\nimport \"k8s.io/apimachinery/pkg/runtime\"\n\nvar localSchemeBuilder = runtime.NewSchemeBuilder()\n",
	})
	_, err := generators.Build(context.Background(), generators.Options{Patterns: []string{"./apis/v1"}, WorkDir: dir, ConversionOnly: true})
	if err == nil || !strings.HasPrefix(filepath.ToSlash(err.Error()), "apis/v1/types.go:9: member Codes: ") {
		t.Fatalf("informer-gen: error %v, want one at the Codes member", err)
	}
	bin := installUpstreamTool(t, "conversion-gen")
	cmd := exec.Command(filepath.Join(bin, "conversion-gen"), "--output-file", "zz_generated.conversion.go", "./apis/v1")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("conversion-gen: %v\n%s", err, out)
	}
	build := exec.Command("go", "build", "./apis/v1")
	build.Dir = dir
	build.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
	out, err := build.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "cannot use nil as [2]int32 value") {
		t.Fatalf("conversion-gen's output compiles or fails otherwise: %v\n%s", err, out)
	}
	if lines := strings.Count(strings.TrimSpace(string(out)), "\n"); lines != 1 {
		t.Errorf("conversion-gen's output fails on more than the array member:\n%s", out)
	}
}
