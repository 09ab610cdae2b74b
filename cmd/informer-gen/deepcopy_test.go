package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDeepCopyVerify: verify covers the deepcopy files like any other
// generated file: the committed testdata is current, and a deepcopy file
// edited after generate makes verify exit 1 with its diff.
func TestDeepCopyVerify(t *testing.T) {
	header := "../../generators/testdata/boilerplate.go.txt"
	if code, stdout, stderr := invoke(t, "verify", "--deepcopy-only", "--go-header-file", header, "../../generators/testdata/deepcopyapis/..."); code != exitOK {
		t.Fatalf("verify of the testdata: exit %d\n%s%s", code, stdout, stderr)
	}

	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"go.mod":          "module example.com/dc\n\ngo 1.26\n",
		"apis/a/doc.go":   "// +k8s:deepcopy-gen=package\n\npackage a\n",
		"apis/a/types.go": "package a\n\n// T is copied.\ntype T struct {\n\tS []string\n}\n",
	})
	args := []string{"--deepcopy-only", "--output-file", "zz_copy.go", filepath.Join(dir, "apis") + "/..."}
	if code, _, stderr := invoke(t, args...); code != exitOK {
		t.Fatalf("generate: exit %d: %s", code, stderr)
	}
	gen := filepath.Join(dir, "apis", "a", "zz_copy.go")
	if code, stdout, stderr := invoke(t, append([]string{"verify"}, args...)...); code != exitOK {
		t.Fatalf("verify after generate: exit %d\n%s%s", code, stdout, stderr)
	}
	src, err := os.ReadFile(gen)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(gen, []byte(strings.Replace(string(src), "copy(*out, *in)", "_ = out", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, _ := invoke(t, append([]string{"verify"}, args...)...)
	if code != exitOutOfDate || !strings.Contains(stdout, "zz_copy.go") || !strings.Contains(stdout, "+\t\tcopy(*out, *in)") {
		t.Errorf("verify after an edit: exit %d, want %d, diff:\n%s", code, exitOutOfDate, stdout)
	}
}
