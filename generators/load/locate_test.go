package load

import (
	"context"
	"go/build"
	"path/filepath"
	"testing"
)

// TestLocateReusesListedModules checks that packages of a module go list
// has already placed are found in its directory, and that a nested module
// there, which the build list may take from elsewhere, is still asked of go
// list.
func TestLocateReusesListedModules(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"app/go.mod": "module example.com/app\n\ngo 1.26\n\n" +
			"require (\n\texample.com/lib v0.0.0\n\texample.com/lib/nested v0.0.0\n)\n\n" +
			"replace example.com/lib => ../lib\n\nreplace example.com/lib/nested => ../elsewhere\n",
		"app/main.go":            "package main\n\nfunc main() {}\n",
		"lib/go.mod":             "module example.com/lib\n\ngo 1.26\n",
		"lib/a/a.go":             "package a\n",
		"lib/b/b.go":             "package b\n",
		"lib/nested/go.mod":      "module example.com/lib/nested\n\ngo 1.26\n",
		"lib/nested/c/c.go":      "package c\n",
		"elsewhere/go.mod":       "module example.com/lib/nested\n\ngo 1.26\n",
		"elsewhere/c/c.go":       "package c\n",
		"elsewhere/c/c_extra.go": "package c\n",
	})
	bctx := build.Default
	l := NewLoader(context.Background(), &bctx, filepath.Join(root, "app"), nil, nil)
	app := filepath.Join(root, "app")
	locate := func(ip, want string) {
		t.Helper()
		got, err := l.locate(ip, app)
		if err != nil {
			t.Fatalf("locate(%s): %v", ip, err)
		}
		if got != want {
			t.Errorf("locate(%s) = %s, want %s", ip, got, want)
		}
	}
	locate("example.com/lib/a", filepath.Join(root, "lib", "a"))
	// With go list unable to run, what the first answer taught must do.
	l.workDir = filepath.Join(root, "nowhere")
	locate("example.com/lib/b", filepath.Join(root, "lib", "b"))
	locate("net/url", filepath.Join(build.Default.GOROOT, "src", "net", "url"))
	if _, err := l.locate("example.com/lib/nested/c", app); err == nil {
		t.Error("a package of a nested module was located without go list")
	}
	l.workDir = app
	locate("example.com/lib/nested/c", filepath.Join(root, "elsewhere", "c"))
	if got := l.listed["example.com/lib"]; got != filepath.Join(root, "lib") {
		t.Errorf("module example.com/lib recorded at %q, want %s", got, filepath.Join(root, "lib"))
	}
	if _, ok := l.inListedModule("example.com/lib/missing"); ok {
		t.Error("a directory that does not exist was taken from the listed module")
	}
	// A directory that does not end in the package's path below its module
	// (go list's answer for an unusual layout) is not used for others.
	l.noteListed("example.com/odd/x", filepath.Join(root, "lib", "a"), "example.com/odd")
	if _, ok := l.listed["example.com/odd"]; ok {
		t.Error("a module was recorded from a directory that does not end in the package's path")
	}
}
