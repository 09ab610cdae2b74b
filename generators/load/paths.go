package load

import (
	"os"
	"path"
	"path/filepath"
	"strings"
)

// LocatePackage finds the directory of import path pkg given that dir holds
// import path base: pkg may be under base, under an ancestor that the two
// share the trailing elements of (".../gen" ↔ "example.com/x/gen"), or
// anywhere in the module whose go.mod is above dir.
func LocatePackage(pkg, dir, base string) (string, bool) {
	d, b := dir, base
	for {
		if rest, ok := underPath(pkg, b); ok {
			return filepath.Join(d, filepath.FromSlash(rest)), true
		}
		if path.Base(b) != filepath.Base(d) || path.Dir(b) == b || path.Dir(b) == "." {
			break
		}
		d, b = filepath.Dir(d), path.Dir(b)
	}
	// Fall back to the module holding dir (which may not exist yet).
	probe := dir
	for {
		if st, err := os.Stat(probe); err == nil && st.IsDir() {
			break
		}
		parent := filepath.Dir(probe)
		if parent == probe {
			return "", false
		}
		probe = parent
	}
	root, err := moduleCache{}.find(probe)
	if err != nil {
		return "", false
	}
	if rest, ok := underPath(pkg, root.path); ok {
		return filepath.Join(root.dir, filepath.FromSlash(rest)), true
	}
	return "", false
}

// underPath reports whether import path p is base or below it, and the rest.
func underPath(p, base string) (string, bool) {
	if p == base {
		return "", true
	}
	rest, ok := strings.CutPrefix(p, base+"/")
	return rest, ok
}

// IsImportPath is a light check that s looks like an import path.
func IsImportPath(s string) bool {
	if s == "" || strings.HasPrefix(s, "/") || strings.HasSuffix(s, "/") || strings.HasPrefix(s, ".") {
		return false
	}
	return !strings.ContainsAny(s, " \t\\\"'`:*?<>|")
}
