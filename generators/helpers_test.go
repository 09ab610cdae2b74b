package generators

import (
	"github.com/typedinformer/typedinformer/internal/testutil"

	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"
)

const (
	thisModule   = "github.com/typedinformer/typedinformer"
	goldenDir    = "testdata/golden"
	goldenPkg    = thisModule + "/generators/testdata/golden"
	testdataPkgs = "./testdata/apis/..."
	clientsetPkg = thisModule + "/generators/testdata/clientset/versioned"
	headerFile   = "testdata/boilerplate.go.txt"
)

// fixedNow is the clock of every test run: new files get the year 2026.
func fixedNow() time.Time { return time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC) }

// goldenOptions generates the testdata API tree into outDir (import path outPkg).
func goldenOptions(outDir, outPkg string) Options {
	return treeOptions(testdataPkgs, outDir, outPkg, clientsetPkg)
}

// treeOptions generates the API tree patterns names into outDir (import
// path outPkg), the informers listing and watching through the clientset
// at import path clientset ("" when the run generates it).
func treeOptions(patterns, outDir, outPkg, clientset string) Options {
	return Options{
		Patterns:                  []string{patterns},
		OutputDir:                 outDir,
		OutputPkg:                 outPkg,
		VersionedClientsetPackage: clientset,
		HeaderFile:                headerFile,
		Now:                       fixedNow,
	}
}

// snapshot returns every file under dir with its content, keyed by the
// slash-separated relative path; directories are keyed with a trailing "/".
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			out[rel+"/"] = ""
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out[rel] = string(data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// writeTree writes files (slash-separated relative path → content) under dir.
func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	testutil.WriteFiles(t, dir, files)
}

// copyTree copies the files under src into dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	files := map[string]string{}
	for rel, content := range snapshot(t, src) {
		if rel[len(rel)-1] != '/' {
			files[rel] = content
		}
	}
	writeTree(t, dst, files)
}

// equalSnapshots reports the first difference between two snapshots.
func diffSnapshots(a, b map[string]string) string {
	for k, v := range a {
		if w, ok := b[k]; !ok {
			return "removed: " + k
		} else if v != w {
			return "changed: " + k
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			return "added: " + k
		}
	}
	return ""
}

// fooModule is the go.mod of the module example.com/bad that fooV1 and
// fooOptions build on.
const fooModule = "module example.com/bad\n\ngo 1.26\n"

// fileTree maps a slash-separated path below a test's work directory to the
// file's content.
type fileTree map[string]string

// fooV1 is a tree holding group foo.example.com's package apis/foo/v1: its
// doc.go naming the group, and types.go holding types.
func fooV1(types string) fileTree {
	return fileTree{
		"apis/foo/v1/doc.go":   "// +groupName=foo.example.com\npackage v1\n",
		"apis/foo/v1/types.go": types,
	}
}

// with adds the file path holding content to t and returns t.
func (t fileTree) with(path, content string) fileTree {
	t[path] = content
	return t
}

// readFile returns the content of the file at path, failing t if it cannot
// be read.
func readFile(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// statFile returns the FileInfo of path, failing t if it cannot be had.
func statFile(t *testing.T, path string) os.FileInfo {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi
}
