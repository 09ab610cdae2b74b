package output

import (
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"

	"github.com/typedinformer/typedinformer/generators/internal/inputerr"
	"github.com/typedinformer/typedinformer/generators/plan"
)

// existingFile is a .go file found under an output directory.
type existingFile struct {
	content   []byte
	generated bool // carries GeneratedMarker before its package clause
}

// Tree is what the output directories hold before the run.
type Tree struct {
	files map[string]*existingFile // by absolute path
	// leftovers are temporary files of interrupted runs, sorted.
	Leftovers []string
	bctx      *build.Context
}

// TempFilePrefix starts the name of every temporary file informer-gen
// writes (".informer-gen-tmp.<file>.<random>"): it is written beside its
// target and renamed over it once every file of the run is written. A run
// killed in between leaves such files behind; the next generate removes every
// one under the output directories and verify reports them.
const TempFilePrefix = ".informer-gen-tmp."

// isLeftover reports whether a file name is one of our temporary files: the
// current form, or the ".<name>.go.<digits>.tmp" of earlier versions.
func isLeftover(name string) bool {
	if strings.HasPrefix(name, TempFilePrefix) {
		return true
	}
	rest, ok := strings.CutSuffix(name, ".tmp")
	if !ok || !strings.HasPrefix(rest, ".") {
		return false
	}
	i := strings.LastIndex(rest, ".go.")
	if i < 1 {
		return false
	}
	digits := rest[i+len(".go."):]
	return digits != "" && strings.Trim(digits, "0123456789") == ""
}

// Scan reads every .go file under the output roots (which may not
// exist). Directories named testdata or vendor, or starting with "." or
// "_", are not entered.
func Scan(bctx *build.Context, roots ...string) (*Tree, error) {
	t := &Tree{files: map[string]*existingFile{}, bctx: bctx}
	for _, root := range roots {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) && p == root {
					return fs.SkipDir
				}
				return err
			}
			name := d.Name()
			if d.IsDir() {
				if p != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "vendor") {
					return fs.SkipDir
				}
				return nil
			}
			if isLeftover(name) && d.Type().IsRegular() {
				if !slices.Contains(t.Leftovers, p) {
					t.Leftovers = append(t.Leftovers, p)
				}
				return nil
			}
			if !strings.HasSuffix(name, ".go") || !d.Type().IsRegular() {
				return nil
			}
			if _, seen := t.files[p]; seen {
				return nil
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			t.files[p] = &existingFile{content: data, generated: IsGenerated(data)}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("reading output directory %s: %w", root, err)
		}
	}
	sort.Strings(t.Leftovers)
	return t, nil
}

// IsGenerated reports whether src carries this generator's marker line
// before its package clause.
func IsGenerated(src []byte) bool {
	i := bytes.Index(src, []byte("\n"+GeneratedMarker+"\n"))
	if i < 0 {
		if !bytes.HasPrefix(src, []byte(GeneratedMarker+"\n")) {
			return false
		}
		i = 0
	}
	if bytes.HasPrefix(src, []byte("package ")) {
		return false
	}
	pkg := bytes.Index(src, []byte("\npackage "))
	return pkg < 0 || i < pkg
}

// Content returns the current content of a file, or nil.
func (t *Tree) Content(p string) []byte {
	if f := t.files[p]; f != nil {
		return f.content
	}
	return nil
}

// UserDecls returns the top-level type names declared by the non-generated,
// non-test .go files directly in dir that the go tool would build (build
// constraints and GOOS/GOARCH file names as go list reads them: a file under
// //go:build ignore declares nothing).
func (t *Tree) UserDecls(dir string) (map[string]bool, error) {
	names := map[string]bool{}
	fset := token.NewFileSet()
	for p, f := range t.files {
		if f.generated || filepath.Dir(p) != dir || strings.HasSuffix(p, "_test.go") {
			continue
		}
		if ok, err := t.matchFile(p, f.content); err != nil {
			return nil, inputerr.Errorf(p, "reading build constraints: %v", err)
		} else if !ok {
			continue
		}
		af, err := parser.ParseFile(fset, p, f.content, parser.SkipObjectResolution)
		if err != nil {
			return nil, inputerr.Errorf("", "reading hand-written file %s in a listers package: %v", p, err)
		}
		for _, decl := range af.Decls {
			if gd, ok := decl.(*ast.GenDecl); ok && gd.Tok == token.TYPE {
				for _, spec := range gd.Specs {
					names[spec.(*ast.TypeSpec).Name.Name] = true
				}
			}
		}
	}
	return names, nil
}

// matchFile reports whether the build context would compile the file at p
// (whose content is src).
func (t *Tree) matchFile(p string, src []byte) (bool, error) {
	c := *t.bctx
	c.OpenFile = func(string) (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(src)), nil }
	return c.MatchFile(filepath.Dir(p), filepath.Base(p))
}

// upstreamListerMarker is the line upstream lister-gen writes into its files.
const upstreamListerMarker = "// Code generated by lister-gen. DO NOT EDIT."

// ClientGenMarker is the line upstream client-gen writes into its files.
const ClientGenMarker = "// Code generated by client-gen. DO NOT EDIT."

// ApplyConfigGenMarker is the marker of applyconfiguration-gen's own files.
const ApplyConfigGenMarker = "// Code generated by applyconfiguration-gen. DO NOT EDIT."

// Exists reports whether the tree holds a .go file at p.
func (t *Tree) Exists(p string) bool { return t.files[p] != nil }

// AdoptGenerated treats the files under dir that carry marker (client-gen's
// or applyconfiguration-gen's) as generated by this run's generator: they are
// overwritten when planned and removed as stale when not
// (--replace-client-gen-output).
func (t *Tree) AdoptGenerated(dir, marker string) {
	if dir == "" {
		return
	}
	for p, f := range t.files {
		if !f.generated && strings.HasPrefix(p, dir+string(filepath.Separator)) && isGeneratedBy(f.content, marker) {
			f.generated = true
		}
	}
}

// isGeneratedBy reports whether src carries marker on a line of its own
// before its package clause.
func isGeneratedBy(src []byte, marker string) bool {
	i := bytes.Index(src, []byte("\n"+marker+"\n"))
	if i < 0 {
		if !bytes.HasPrefix(src, []byte(marker+"\n")) {
			return false
		}
		i = 0
	}
	pkg := bytes.Index(src, []byte("\npackage "))
	return !bytes.HasPrefix(src, []byte("package ")) && (pkg < 0 || i < pkg)
}

// CheckOwned refuses a run that would overwrite a file that is not ours: a
// planned path holding a file without GeneratedMarker, or anything that is
// not a regular file (a directory, a symbolic link).
func (t *Tree) CheckOwned(planned []plan.File, workDir string) error {
	for _, p := range planned {
		if f := t.files[p.Path]; f != nil {
			if !f.generated {
				if isGeneratedBy(f.content, ClientGenMarker) {
					return inputerr.Errorf(relPath(workDir, p.Path), "informer-gen would overwrite this file written by upstream client-gen (%q): pass --replace-client-gen-output to let informer-gen replace client-gen's clientset (and remove its files informer-gen no longer produces), or generate the clientset elsewhere (--clientset-output-dir, --clientset-package)", ClientGenMarker)
				}
				if isGeneratedBy(f.content, ApplyConfigGenMarker) {
					return inputerr.Errorf(relPath(workDir, p.Path), "informer-gen would overwrite this file written by upstream applyconfiguration-gen (%q): pass --replace-client-gen-output to let informer-gen replace its apply configurations (and remove its files informer-gen no longer produces), or generate them elsewhere (--applyconfig-name, --apply-configuration-package)", ApplyConfigGenMarker)
				}
				if bytes.Contains(f.content, []byte(upstreamListerMarker)) {
					return inputerr.Errorf(relPath(workDir, p.Path), "informer-gen would overwrite this lister written by upstream lister-gen (%q): delete upstream's listers before the first run (kube_codegen.sh's gen_client does so when given --with-watch), and drop --with-watch from kube::codegen::gen_client, whose lister-gen and informer-gen would replace these files again", upstreamListerMarker)
				}
				return inputerr.Errorf(relPath(workDir, p.Path), "informer-gen would overwrite this file, which it did not generate (no %q line before its package clause): move it away or generate elsewhere (--output-dir, --listers-package)", GeneratedMarker)
			}
			continue
		}
		if st, err := os.Lstat(p.Path); err == nil {
			return inputerr.Errorf(relPath(workDir, p.Path), "informer-gen would replace this %s with a generated file: remove it or generate elsewhere", st.Mode().Type())
		} else if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
			return fmt.Errorf("checking %s: %w", p.Path, err)
		}
	}
	return nil
}

// relPath makes p relative to dir when it is inside.
func relPath(dir, p string) string {
	if rel, err := filepath.Rel(dir, p); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return p
}

// Stale returns the generated files of the tree that are not in keep, sorted.
func (t *Tree) Stale(keep map[string]bool) []string {
	var out []string
	for p, f := range t.files {
		if f.generated && !keep[p] {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// Write writes files atomically: every changed file is first written to a
// temporary file beside its target, and only when all of them are written
// are they renamed into place; then stale files are removed, and
// directories they leave empty inside the output roots. If writing a
// temporary file fails, the temporaries and the directories created for
// them are removed and the tree is as it was.
func Write(files []File, stale, leftovers []string, roots []string) error {
	for _, p := range leftovers {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("removing temporary file %s left by an interrupted run: %w", p, err)
		}
	}
	type pending struct{ tmp, dst string }
	var todo []pending
	var createdDirs []string
	cleanup := func() {
		for _, p := range todo {
			os.Remove(p.tmp)
		}
		for i := len(createdDirs) - 1; i >= 0; i-- {
			os.Remove(createdDirs[i])
		}
	}
	for _, f := range files {
		if !f.Changed {
			continue
		}
		dir := filepath.Dir(f.Path)
		made, err := mkdirAll(dir)
		createdDirs = append(createdDirs, made...)
		if err != nil {
			cleanup()
			return fmt.Errorf("creating directory %s: %w", dir, err)
		}
		tmp, err := os.CreateTemp(dir, TempFilePrefix+filepath.Base(f.Path)+".*")
		if err != nil {
			cleanup()
			return fmt.Errorf("writing %s: %w", f.Path, err)
		}
		todo = append(todo, pending{tmp.Name(), f.Path})
		_, werr := tmp.Write(f.Content)
		cerr := tmp.Close()
		if err := errors.Join(werr, cerr, os.Chmod(tmp.Name(), 0o644)); err != nil {
			cleanup()
			return fmt.Errorf("writing %s: %w", f.Path, err)
		}
		afterWrite("temp", f.Path)
	}
	for i, p := range todo {
		if i > 0 {
			afterWrite("rename", todo[i-1].dst)
		}
		if err := os.Rename(p.tmp, p.dst); err != nil {
			for _, q := range todo[i:] {
				os.Remove(q.tmp)
			}
			return fmt.Errorf("renaming %s into place: %w", p.dst, err)
		}
	}
	for _, p := range stale {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("removing stale generated file %s: %w", p, err)
		}
		// Remove directories the deletion left empty; Remove fails on the
		// first non-empty one, which ends the climb.
		for dir := filepath.Dir(p); insideAny(dir, roots); dir = filepath.Dir(dir) {
			if os.Remove(dir) != nil {
				break
			}
		}
	}
	return nil
}

// WriteHook is called, when a test sets it, after each temporary file is
// written and after each rename; a hook that panics stops the run the way a
// kill would, leaving whatever was on disk at that point.
var WriteHook func(step, path string)

func afterWrite(step, path string) {
	if WriteHook != nil {
		WriteHook(step, path)
	}
}

// mkdirAll is os.MkdirAll that returns the directories it created, outermost first.
func mkdirAll(dir string) ([]string, error) {
	var missing []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil {
			break
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		missing = append(missing, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	var made []string
	for i := len(missing) - 1; i >= 0; i-- {
		if err := os.Mkdir(missing[i], 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return made, err
		}
		made = append(made, missing[i])
	}
	return made, nil
}

// insideAny reports whether dir is strictly inside one of roots.
func insideAny(dir string, roots []string) bool {
	for _, r := range roots {
		if strings.HasPrefix(dir, r+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// File is one generated file, rendered in memory.
type File struct {
	// Path is the absolute path of the file.
	Path string
	// Content is the file's complete, gofmt'ed content.
	Content []byte
	// Changed is true when the file does not exist or holds other content.
	Changed bool
}
