package output

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// TestIsLeftover: our temporary files, in the current and the earlier
// naming, are recognised; other files are not.
func TestIsLeftover(t *testing.T) {
	for name, want := range map[string]bool{
		TempFilePrefix + "pod.go.123456": true,
		".pod.go.123456.tmp":             true, // earlier versions
		".pod.go.12a.tmp":                false,
		"pod.go":                         false,
		".pod.go":                        false,
		"notes.tmp":                      false,
		".informer-gen.tmp":              false,
	} {
		if got := isLeftover(name); got != want {
			t.Errorf("isLeftover(%q) = %v, want %v", name, got, want)
		}
	}
}

// TestWriteMode: every file Write puts in place is readable by all and
// writable by its owner (0644, whatever the umask), whether it is new or
// replaces a file of another mode.
func TestWriteMode(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("POSIX file modes")
	}
	for _, tc := range []struct {
		name     string
		existing os.FileMode // 0: no file before the write
	}{
		{"new file in a new directory", 0},
		{"replaces an owner-only file", 0o600},
		{"replaces an executable file", 0o755},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "pkg", "v1", "zz_generated.deepcopy.go")
			if tc.existing != 0 {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte("package v1\n"), tc.existing); err != nil {
					t.Fatal(err)
				}
				if err := os.Chmod(path, tc.existing); err != nil {
					t.Fatal(err)
				}
			}
			content := []byte("package v1\n\nconst X = 1\n")
			if err := Write([]File{{Path: path, Content: content, Changed: true}}, nil, nil, []string{dir}); err != nil {
				t.Fatal(err)
			}
			st, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if got := st.Mode().Perm(); got != 0o644 {
				t.Errorf("mode %v, want -rw-r--r--", got)
			}
			if got, _ := os.ReadFile(path); string(got) != string(content) {
				t.Errorf("content %q, want %q", got, content)
			}
		})
	}
}
