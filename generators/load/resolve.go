package load

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"go/build"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/typedinformer/typedinformer/generators/internal/inputerr"
)

// InputPackage is one Go package named by the patterns: where it lives and
// which of its files the build would compile (no _test.go files).
type InputPackage struct {
	ImportPath string
	Dir        string
	Files      []string // absolute paths, sorted
}

// FilePaths are the paths of a file named name in each package's
// directory: where a target that writes into the input packages may write,
// so that a file it no longer produces is found stale.
func FilePaths(pkgs []InputPackage, name string) []string {
	out := make([]string, len(pkgs))
	for i, p := range pkgs {
		out[i] = filepath.Join(p.Dir, name)
	}
	return out
}

// ResolvePatterns expands the command-line patterns into packages, cheaply:
// file-system patterns ("./apis/...", "/abs/dir") are walked directly and
// their import paths derived from the enclosing go.mod; anything else goes to
// one `go list -find` call, which resolves names without loading
// dependencies. A pattern that matches no package is an InputError.
func ResolvePatterns(ctx context.Context, bctx *build.Context, workDir string, patterns []string) ([]InputPackage, error) {
	if len(patterns) == 0 {
		return nil, inputerr.Errorf("", "no package patterns given (for example ./apis/...)")
	}
	byDir := map[string]InputPackage{}
	var listed []string
	mods := moduleCache{}
	for _, p := range patterns {
		if !isFilesystemPattern(workDir, p) {
			listed = append(listed, p)
			continue
		}
		pkgs, err := walkPattern(bctx, workDir, p, mods)
		if err != nil {
			return nil, err
		}
		for _, pkg := range pkgs {
			byDir[pkg.Dir] = pkg
		}
	}
	if len(listed) > 0 {
		pkgs, err := goList(ctx, bctx, workDir, listed)
		if err != nil {
			return nil, err
		}
		for _, pkg := range pkgs {
			byDir[pkg.Dir] = pkg
		}
	}
	out := make([]InputPackage, 0, len(byDir))
	for _, pkg := range byDir {
		out = append(out, pkg)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ImportPath < out[j].ImportPath })
	return out, nil
}

// isFilesystemPattern reports whether p names a directory (relative to
// workDir or absolute) rather than an import path, and whether its only
// wildcard, if any, is a trailing "/...". Besides what the go tool reads as a
// directory ("./x", "../x", "/abs/x"), a pattern is a directory when it could
// not be an import path that resolves: it has a "." or ".." element
// ("hack/../apis/..."), or its first element has no dot, is not a standard
// library directory and exists under workDir ("apis/...", which go list
// would look for in the standard library and match nothing).
func isFilesystemPattern(workDir, p string) bool {
	if strings.Contains(strings.TrimSuffix(strings.TrimSuffix(p, "/..."), "..."), "...") {
		return false
	}
	if p == "." || p == ".." || strings.HasPrefix(p, "./") || strings.HasPrefix(p, "../") || filepath.IsAbs(p) {
		return true
	}
	elems := strings.Split(filepath.ToSlash(strings.TrimSuffix(strings.TrimSuffix(p, "..."), "/")), "/")
	for _, e := range elems {
		if e == "." || e == ".." {
			return true
		}
	}
	first := elems[0]
	if first == "" || strings.Contains(first, ".") {
		return false
	}
	if st, err := os.Stat(filepath.Join(build.Default.GOROOT, "src", first)); err == nil && st.IsDir() && first != "testdata" && first != "vendor" {
		return false
	}
	st, err := os.Stat(filepath.Join(workDir, first))
	return err == nil && st.IsDir()
}

// walkPattern resolves a file-system pattern by walking directories. Like the
// go tool it skips directories named testdata or vendor and those starting
// with "." or "_" below the root, and nested modules; unlike it, a root that is
// itself under testdata is honoured.
func walkPattern(bctx *build.Context, workDir, pattern string, mods moduleCache) ([]InputPackage, error) {
	recursive := pattern == "..." || strings.HasSuffix(pattern, "/...")
	root := strings.TrimSuffix(strings.TrimSuffix(pattern, "..."), "/")
	if root == "" {
		root = "."
	}
	if !filepath.IsAbs(root) {
		root = filepath.Join(workDir, root)
	}
	root = filepath.Clean(root)
	st, err := os.Stat(root)
	if err != nil || !st.IsDir() {
		return nil, inputerr.Errorf("", "pattern %q: directory %s does not exist", pattern, root)
	}
	var pkgs []InputPackage
	var visit func(dir string, top bool) error
	visit = func(dir string, top bool) error {
		entries, err := os.ReadDir(dir)
		if err != nil {
			return fmt.Errorf("reading package directory %s: %w", dir, err)
		}
		var files []string
		var subdirs []string
		for _, e := range entries {
			name := e.Name()
			if e.IsDir() {
				if recursive && !strings.HasPrefix(name, ".") && !strings.HasPrefix(name, "_") && name != "testdata" && name != "vendor" {
					subdirs = append(subdirs, filepath.Join(dir, name))
				}
				continue
			}
			if !top && name == "go.mod" {
				return nil // a nested module: not part of this pattern
			}
			if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
				continue
			}
			if ok, err := bctx.MatchFile(dir, name); err != nil {
				return fmt.Errorf("reading build constraints of %s: %w", filepath.Join(dir, name), err)
			} else if ok {
				files = append(files, filepath.Join(dir, name))
			}
		}
		if len(files) > 0 {
			ip, err := mods.importPath(dir)
			if err != nil {
				return err
			}
			pkgs = append(pkgs, InputPackage{ImportPath: ip, Dir: dir, Files: files})
		}
		for _, sub := range subdirs {
			if err := visit(sub, false); err != nil {
				return err
			}
		}
		return nil
	}
	if err := visit(root, true); err != nil {
		return nil, err
	}
	if len(pkgs) == 0 {
		return nil, inputerr.Errorf("", "pattern %q matched no packages", pattern)
	}
	return pkgs, nil
}

// moduleCache maps directories to import paths through the nearest go.mod.
type moduleCache map[string]moduleRoot

type moduleRoot struct {
	dir, path string
}

// importPath returns the import path of the package in dir.
func (m moduleCache) importPath(dir string) (string, error) {
	root, err := m.find(dir)
	if err != nil {
		return "", err
	}
	rel, err := filepath.Rel(root.dir, dir)
	if err != nil {
		return "", fmt.Errorf("locating %s in module %s: %w", dir, root.path, err)
	}
	if rel == "." {
		return root.path, nil
	}
	return path.Join(root.path, filepath.ToSlash(rel)), nil
}

// find returns the module that holds dir.
func (m moduleCache) find(dir string) (moduleRoot, error) {
	if r, ok := m[dir]; ok {
		return r, nil
	}
	data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	switch {
	case err == nil:
		mp := modulePath(data)
		if mp == "" {
			return moduleRoot{}, inputerr.Errorf(filepath.Join(dir, "go.mod")+":1", "no module directive")
		}
		r := moduleRoot{dir: dir, path: mp}
		m[dir] = r
		return r, nil
	case !errors.Is(err, os.ErrNotExist):
		return moduleRoot{}, fmt.Errorf("reading %s: %w", filepath.Join(dir, "go.mod"), err)
	}
	parent := filepath.Dir(dir)
	if parent == dir {
		return moduleRoot{}, inputerr.Errorf("", "directory %s is not inside a Go module (no go.mod above it)", dir)
	}
	r, err := m.find(parent)
	if err != nil {
		return moduleRoot{}, err
	}
	m[dir] = r
	return r, nil
}

// modulePath returns the module path declared by a go.mod file's contents.
func modulePath(gomod []byte) string {
	sc := bufio.NewScanner(bytes.NewReader(gomod))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		rest, ok := strings.CutPrefix(line, "module")
		if !ok || (rest != "" && rest[0] != ' ' && rest[0] != '\t' && rest[0] != '"') {
			continue
		}
		rest, _, _ = strings.Cut(rest, "//")
		rest = strings.TrimSpace(rest)
		if unq, err := strconv.Unquote(rest); err == nil {
			return unq
		}
		return rest
	}
	return ""
}

// goList resolves import-path patterns with `go list -e -find`, which names
// packages and their files without resolving dependencies.
func goList(ctx context.Context, bctx *build.Context, workDir string, patterns []string) ([]InputPackage, error) {
	// Fields, file names and records get separators that cannot occur in
	// them; a package error may span lines.
	const sep, fileSep, recordSep = "\x1f", "\x1e", "\x1d\n"
	args := []string{"list", "-e", "-find", "-f",
		"{{.ImportPath}}" + sep + "{{.Dir}}" + sep + "{{join .GoFiles \"" + fileSep + "\"}}" + sep + "{{if .Error}}{{.Error}}{{end}}\x1d"}
	if len(bctx.BuildTags) > 0 {
		args = append(args, "-tags", strings.Join(bctx.BuildTags, ","))
	}
	args = append(args, patterns...)
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = workDir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" && cmd.ProcessState != nil {
			return nil, inputerr.Errorf("", "resolving packages %s: %s", strings.Join(patterns, " "), msg)
		}
		return nil, fmt.Errorf("running go list: %w", err)
	}
	for _, line := range strings.Split(stderr.String(), "\n") {
		if p, ok := strings.CutPrefix(line, "go: warning: "); ok && strings.HasSuffix(p, " matched no packages") {
			return nil, inputerr.Errorf("", "pattern %s matched no packages", strings.TrimSuffix(p, " matched no packages"))
		}
	}
	var pkgs []InputPackage
	for _, line := range strings.Split(stdout.String(), recordSep) {
		if strings.TrimSpace(line) == "" {
			continue
		}
		fields := strings.SplitN(line, sep, 4)
		if len(fields) != 4 {
			return nil, fmt.Errorf("unexpected go list output %q", line)
		}
		ip, dir, files, perr := fields[0], fields[1], fields[2], fields[3]
		if files == "" {
			if perr != "" {
				return nil, inputerr.Errorf("", "package %s: %s", ip, strings.Join(strings.Fields(perr), " "))
			}
			continue // e.g. a directory with only test files
		}
		pkg := InputPackage{ImportPath: ip, Dir: dir}
		for _, f := range strings.Split(files, fileSep) {
			pkg.Files = append(pkg.Files, filepath.Join(dir, f))
		}
		sort.Strings(pkg.Files)
		pkgs = append(pkgs, pkg)
	}
	if len(pkgs) == 0 {
		return nil, inputerr.Errorf("", "patterns %s matched no packages", strings.Join(patterns, " "))
	}
	return pkgs, nil
}
