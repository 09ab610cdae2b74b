package load

import (
	"bytes"
	"context"
	"fmt"
	"go/ast"
	"go/build"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// Loader is the run's one package loader: it locates packages by import
// path (inputOf) and reads their type declarations, once each, for every
// step that looks a type up by syntax: following +genclient definitions
// (FollowDefinitions) and the apply configurations' members alike. Input
// packages the run has already parsed (ReadInputs) are handed to it and
// never read twice. It is used by one goroutine at a time.
type Loader struct {
	ctx     context.Context
	workDir string
	bctx    *build.Context
	inputs  map[string]InputPackage
	mods    moduleCache
	pkgs    map[string]*DeclPackage
}

// DeclPackage is the syntax of a package's type declarations, read in two
// steps: first the files that may declare API types (holdsAPITypes), then,
// when a name is looked up that they do not declare, every other file.
type DeclPackage struct {
	InputPackage
	// Name is the package clause's name; PackagePos the position of
	// doc.go's package clause, or of the first file read's.
	Name       string
	PackagePos string
	// Tags are the package's tag lines (doc.go's comments, or the package
	// doc comments of the files first read without a doc.go).
	Tags []CommentLine
	// Decls are the type declarations of the files read so far.
	Decls    map[string]*TypeDecl
	complete bool
	Err      error
}

// TypeDecl is one top-level type declaration.
type TypeDecl struct {
	Name string
	Pos  string
	// Tags are the comment block before the doc comment and the doc
	// comment, as client-gen reads +genclient tags.
	Tags []CommentLine
	// Expr is the declared type; Alias is set for "type A = B", Generic
	// for a type with type parameters.
	Expr    ast.Expr
	Alias   bool
	Generic bool
	file    *fileImports
	Pkg     *DeclPackage
}

// fileImports are the imports of one file, which give the qualified names
// written in it their packages.
type fileImports struct {
	fset *token.FileSet
	// Named are the imports by explicit name ("_" left out); Unnamed the
	// paths imported without one, whose package name is known only by
	// reading it; Dot the paths imported with ".": an unqualified name not
	// declared in the file's own package comes from one of them.
	Named   map[string]string
	Unnamed []string
	Dot     []string
}

// declFile is what one file gives its package's declarations.
type declFile struct {
	head  *fileHead
	decls []*TypeDecl
}

// NewLoader returns a loader for one run: inputs are the resolved input
// packages, parsed the declarations ReadInputs already read of them, which
// it serves without reading them again.
func NewLoader(ctx context.Context, bctx *build.Context, workDir string, inputs []InputPackage, parsed []*DeclPackage) *Loader {
	l := &Loader{ctx: ctx, workDir: workDir, bctx: bctx, inputs: map[string]InputPackage{}, mods: moduleCache{}, pkgs: map[string]*DeclPackage{}}
	for _, p := range inputs {
		l.inputs[p.ImportPath] = p
	}
	for _, p := range parsed {
		l.pkgs[p.ImportPath] = p
	}
	return l
}

// holdsAPITypes reports whether a file may declare a type with members a
// target reads: doc.go, a file with json tags or +genclient.
func holdsAPITypes(base string, src []byte) bool {
	return base == "doc.go" || bytes.Contains(src, []byte(`json:"`)) || bytes.Contains(src, []byte("+genclient"))
}

// importsOf reads the imports of f.
func importsOf(fset *token.FileSet, f *ast.File) *fileImports {
	imps := &fileImports{fset: fset, Named: map[string]string{}}
	for _, imp := range f.Imports {
		p, err := strconv.Unquote(imp.Path.Value)
		if err != nil {
			continue
		}
		switch {
		case imp.Name == nil:
			imps.Unnamed = append(imps.Unnamed, p)
		case imp.Name.Name == ".":
			imps.Dot = append(imps.Dot, p)
		case imp.Name.Name != "_":
			imps.Named[imp.Name.Name] = p
		}
	}
	return imps
}

// typeDecls returns the file's top-level type declarations with their tags.
func typeDecls(fset *token.FileSet, f *ast.File) []*TypeDecl {
	file := importsOf(fset, f)
	tags := &declTags{fset: fset, f: f}
	var out []*TypeDecl
	for _, decl := range f.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.TYPE {
			continue
		}
		for _, spec := range gd.Specs {
			ts := spec.(*ast.TypeSpec)
			out = append(out, &TypeDecl{
				Name:    ts.Name.Name,
				Pos:     position(fset, ts.Name.Pos()),
				Tags:    tags.of(ts),
				Expr:    ts.Type,
				Alias:   ts.Assign.IsValid(),
				Generic: ts.TypeParams != nil && len(ts.TypeParams.List) > 0,
				file:    file,
			})
		}
	}
	return out
}

// readDecls parses the files of p that keep selects, concurrently, and
// returns them by file (nil for a file skipped).
func (l *Loader) readDecls(p InputPackage, keep func(base string, src []byte) bool) ([]*declFile, error) {
	results, err := parseFiles(l.ctx, []InputPackage{p}, func(fset *token.FileSet, filename string) (*declFile, error) {
		f, head, err := parseRelevant(fset, filename, keep)
		if f == nil || err != nil {
			return nil, err
		}
		return &declFile{head: head, decls: typeDecls(fset, f)}, nil
	})
	if err != nil {
		return nil, err
	}
	return results[0], nil
}

// declPackageOf assembles a package from its files read (nil for a file
// skipped), in file order.
func declPackageOf(in InputPackage, files []*declFile) *DeclPackage {
	p := &DeclPackage{InputPackage: in, Decls: map[string]*TypeDecl{}}
	heads := make([]*fileHead, len(files))
	for j, r := range files {
		if r == nil {
			continue
		}
		heads[j] = r.head
		p.addDecls(r.decls)
	}
	p.Name, p.PackagePos, p.Tags = packageHead(heads)
	return p
}

// addDecls adds the declarations of a file read, keeping those already there.
func (p *DeclPackage) addDecls(decls []*TypeDecl) {
	for _, d := range decls {
		if _, ok := p.Decls[d.Name]; !ok {
			d.Pkg = p
			p.Decls[d.Name] = d
		}
	}
}

// Load returns the type declarations of the package with import path ip,
// as seen from a package in dir; a package that cannot be located or read
// carries the error.
func (l *Loader) Load(ip, dir string) *DeclPackage {
	if p, ok := l.pkgs[ip]; ok {
		return p
	}
	in, err := l.inputOf(ip, dir)
	if err == nil && len(in.Files) == 0 {
		err = fmt.Errorf("package %s (%s) has no Go files", ip, in.Dir)
	}
	var files []*declFile
	if err == nil {
		files, err = l.readDecls(in, holdsAPITypes)
	}
	p := declPackageOf(in, files)
	p.Err = err
	l.pkgs[ip] = p
	return p
}

// complete reads the files of p that holdsAPITypes skipped and adds their
// declarations: a type without json-tagged members (an alias, a string
// type) may be declared in any file.
func (l *Loader) complete(p *DeclPackage) error {
	if p.complete {
		return nil
	}
	p.complete = true
	files, err := l.readDecls(p.InputPackage, func(base string, src []byte) bool { return !holdsAPITypes(base, src) })
	if err != nil {
		return err
	}
	for _, f := range files {
		if f == nil {
			continue
		}
		if p.Name == "" {
			p.Name = f.head.PackageName
		}
		p.addDecls(f.decls)
	}
	return nil
}

// Decl returns p's declaration of name, or nil; a name the files read so
// far do not declare makes the rest of p's files read first.
func (l *Loader) Decl(p *DeclPackage, name string) (*TypeDecl, error) {
	if d, ok := p.Decls[name]; ok || p.complete {
		return d, nil
	}
	if err := l.complete(p); err != nil {
		return nil, err
	}
	return p.Decls[name], nil
}

// packageName is the name in p's package clause.
func (l *Loader) packageName(p *DeclPackage) string {
	if p.Name == "" {
		_ = l.complete(p) // a package that cannot be read has no name to match
	}
	return p.Name
}

// inputOf returns the package with import path ip, as seen from a package
// in dir: an input, or the package located (locate) and its files listed.
// Every package any target reads comes through it.
func (l *Loader) inputOf(ip, dir string) (InputPackage, error) {
	if in, ok := l.inputs[ip]; ok {
		return in, nil
	}
	d, err := l.locate(ip, dir)
	if err != nil {
		return InputPackage{}, err
	}
	files, err := packageFiles(l.bctx, d)
	if err != nil {
		return InputPackage{}, err
	}
	return InputPackage{ImportPath: ip, Dir: d, Files: files}, nil
}

// locate finds the directory of import path ip: inside the module that holds
// dir when the path is under it, else through `go list -find` run in the
// working directory, whose module's build list (the one the generated code
// is built with) says which version of the package's module is meant.
func (l *Loader) locate(ip, dir string) (string, error) {
	if root, err := l.mods.find(dir); err == nil {
		if rest, ok := underPath(ip, root.path); ok {
			d := filepath.Join(root.dir, filepath.FromSlash(rest))
			if st, err := os.Stat(d); err == nil && st.IsDir() {
				return d, nil
			}
		}
	}
	args := []string{"list", "-find", "-f", "{{.Dir}}"}
	if len(l.bctx.BuildTags) > 0 {
		args = append(args, "-tags", strings.Join(l.bctx.BuildTags, ","))
	}
	cmd := exec.CommandContext(l.ctx, "go", append(args, ip)...)
	cmd.Dir = l.workDir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return "", fmt.Errorf("cannot locate package %s: %s", ip, msg)
	}
	d := strings.TrimSpace(stdout.String())
	if d == "" {
		return "", fmt.Errorf("cannot locate package %s", ip)
	}
	return d, nil
}

// packageFiles lists the non-test .go files of dir that bctx would build.
func packageFiles(bctx *build.Context, dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var files []string
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		if ok, err := bctx.MatchFile(dir, name); err != nil {
			return nil, err
		} else if ok {
			files = append(files, filepath.Join(dir, name))
		}
	}
	return files, nil
}
