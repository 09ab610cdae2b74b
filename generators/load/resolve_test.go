package load

import (
	"github.com/typedinformer/typedinformer/internal/testutil"

	"testing"
)

// TestFilesystemPatterns checks which patterns are read as directories: those
// the go tool reads so, and relative paths it would take for import paths.
func TestFilesystemPatterns(t *testing.T) {
	wd := t.TempDir()
	writeFiles(t, wd, map[string]string{"apis/doc.go": "package apis\n", "net/x.go": "package net\n"})
	for p, want := range map[string]bool{
		"./apis/...":        true,
		"../x":              true,
		"/abs/apis/...":     true,
		"hack/../apis/...":  true,
		"apis/./v1":         true,
		"apis/...":          true,
		"apis":              true,
		"nothere/...":       false,
		"net/http":          false, // the standard library wins over a directory named net
		"example.com/x/...": false,
		"./a/.../b":         false,
	} {
		if got := isFilesystemPattern(wd, p); got != want {
			t.Errorf("isFilesystemPattern(%q) = %v, want %v", p, got, want)
		}
	}
}

// writeFiles writes files (relative path to content) under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	testutil.WriteFiles(t, dir, files)
}
