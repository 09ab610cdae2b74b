package generators

import (
	"bytes"
	"context"
	"fmt"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"

	"golang.org/x/tools/go/packages"
)

// maxDefinitionDepth bounds how many definitions, aliases and embedded
// structs are followed from one +genclient type (and ends cycles).
const maxDefinitionDepth = 16

// followDefinitions settles ObjectMeta for the +genclient types that are
// defined as, or are aliases of, another named type ("type GRPCRoute
// v1.GRPCRoute", "type Foo = Real"), or structs that do not embed ObjectMeta
// directly: the named type is looked up, in the same package, another package
// of the module or another module, until a struct is reached, whose embedded
// fields are followed the same way. Only syntax is
// read, and only of the packages the definitions lead to; a package outside
// the input's module is located with one `go list -find` call. Types whose
// definition cannot be followed keep ObjectMeta false and get Unfollowed.
func followDefinitions(ctx context.Context, f *follower, pkgs []parsedPackage) {
	for i := range pkgs {
		for j := range pkgs[i].Types {
			t := &pkgs[i].Types[j]
			t.Identity = pkgs[i].ImportPath + "." + t.Name
			if t.Generic || (t.Def == nil && (t.ObjectMeta || len(t.Embeds) == 0)) {
				continue
			}
			if t.Def == nil {
				// A struct that may embed ObjectMeta through an embedded struct.
				for _, e := range t.Embeds {
					ok, why := f.embedsObjectMeta(pkgs[i].ImportPath, pkgs[i].Dir, e, 0)
					if ok {
						t.ObjectMeta = true
						break
					}
					if !strings.Contains(why, "does not embed") {
						t.needsTypes = true
					}
				}
				continue
			}
			if t.Def.Alias {
				if id, ok := f.aliasIdentity(pkgs[i].ImportPath, pkgs[i].Dir, t.Def, 0); ok {
					t.Identity = id
				}
			}
			if !t.Def.Alias && !t.HasStatus {
				// A defined type has the members of the struct it is defined as.
				t.HasStatus = f.definesStatus(pkgs[i].ImportPath, pkgs[i].Dir, t.Def, 0)
			}
			if t.ObjectMeta {
				continue
			}
			ok, why := f.embedsObjectMeta(pkgs[i].ImportPath, pkgs[i].Dir, t.Def, 0)
			t.ObjectMeta = ok
			if !ok {
				t.Unfollowed = why
				// Only what syntax cannot tell goes to the type checker.
				t.needsTypes = !strings.Contains(why, "does not embed") && !strings.Contains(why, "is not a struct") &&
					!strings.Contains(why, "nest more than") && !strings.Contains(why, ": no type ")
			}
		}
	}
	typeCheckFallback(ctx, f.bctx, f.workDir, pkgs)
}

// typeCheckFallback settles the types whose ObjectMeta syntax could not
// settle (a definition of a generic instance, a dot import, a package that
// cannot be located by path): their packages, and only those, are loaded and
// type-checked with go/packages, dependencies coming from export data. A
// type whose pointer has GetObjectMeta (promoted from an embedded
// metav1.ObjectMeta at any depth) embeds it. Packages that do not
// type-check leave their types as syntax left them.
func typeCheckFallback(ctx context.Context, bctx *build.Context, workDir string, pkgs []parsedPackage) {
	var paths []string
	for i := range pkgs {
		for _, t := range pkgs[i].Types {
			if !t.ObjectMeta && t.needsTypes && !t.Generic {
				paths = append(paths, pkgs[i].ImportPath)
				break
			}
		}
	}
	if len(paths) == 0 {
		return
	}
	cfg := &packages.Config{Context: ctx, Mode: packages.NeedName | packages.NeedTypes, Dir: workDir}
	if len(bctx.BuildTags) > 0 {
		cfg.BuildFlags = []string{"-tags", strings.Join(bctx.BuildTags, ",")}
	}
	loaded, err := packages.Load(cfg, paths...)
	if err != nil {
		return
	}
	byPath := map[string]*packages.Package{}
	for _, p := range loaded {
		byPath[p.PkgPath] = p
	}
	for i := range pkgs {
		p := byPath[pkgs[i].ImportPath]
		for j := range pkgs[i].Types {
			t := &pkgs[i].Types[j]
			if t.ObjectMeta || !t.needsTypes || t.Generic {
				continue
			}
			if p == nil || p.Types == nil || len(p.Errors) > 0 {
				if p != nil && len(p.Errors) > 0 && t.Unfollowed != "" {
					t.Unfollowed += fmt.Sprintf("; type-checking the package failed too: %v", p.Errors[0])
				}
				continue
			}
			tn, ok := p.Types.Scope().Lookup(t.Name).(*types.TypeName)
			if !ok {
				continue
			}
			if m, _, _ := types.LookupFieldOrMethod(types.NewPointer(tn.Type()), true, p.Types, "GetObjectMeta"); m != nil {
				t.ObjectMeta, t.Unfollowed = true, ""
			}
			if tn.IsAlias() {
				if named, ok := types.Unalias(tn.Type()).(*types.Named); ok && named.Obj().Pkg() != nil {
					t.Identity = types.TypeString(named, nil)
				}
			}
		}
	}
}

// follower is the run's package loader: it locates packages by import path
// (inputOf) and loads their type declarations, once each, for every step
// that follows a type by syntax (followDefinitions, the apply
// configurations' resolver).
type follower struct {
	ctx     context.Context
	workDir string
	bctx    *build.Context
	inputs  map[string]inputPackage
	mods    moduleCache
	pkgs    map[string]*declPackage
}

// declPackage is the syntax of a package's type declarations.
type declPackage struct {
	name  string
	dir   string
	decls map[string]declared
	err   error
}

// declared is one type declaration and the file it is in.
type declared struct {
	typ   ast.Expr
	file  *ast.File
	alias bool
}

func newFollower(ctx context.Context, bctx *build.Context, workDir string, inputs []inputPackage) *follower {
	f := &follower{ctx: ctx, workDir: workDir, bctx: bctx, inputs: map[string]inputPackage{}, mods: moduleCache{}, pkgs: map[string]*declPackage{}}
	for _, p := range inputs {
		f.inputs[p.ImportPath] = p
	}
	return f
}

// embedsObjectMeta follows ref, written in package pkgPath (in dir), to a
// struct and reports whether that struct embeds ObjectMeta, directly or
// through embedded structs. When it does not, why says what was found.
func (f *follower) embedsObjectMeta(pkgPath, dir string, ref *typeRef, depth int) (ok bool, why string) {
	if depth > maxDefinitionDepth {
		return false, fmt.Sprintf("definitions nest more than %d deep (a cycle?)", maxDefinitionDepth)
	}
	target := pkgPath
	written := ref.Name
	if ref.Qualifier != "" {
		written = ref.Qualifier + "." + ref.Name
		var err error
		if target, err = f.qualifierPath(dir, ref); err != nil {
			return false, err.Error()
		}
	}
	p := f.load(target, dir)
	if p.err != nil {
		return false, fmt.Sprintf("%s: %v", written, p.err)
	}
	d, found := p.decls[ref.Name]
	if !found && ref.Qualifier == "" && len(ref.Dot) > 0 {
		target, p, d, found = f.dotImported(dir, ref)
	}
	if !found {
		if len(ref.Dot) > 0 {
			return false, fmt.Sprintf("%s: no type %s in package %s nor in its file's dot imports (%s)", written, ref.Name, pkgPath, strings.Join(ref.Dot, ", "))
		}
		return false, fmt.Sprintf("%s: no type %s in package %s", written, ref.Name, target)
	}
	if embedsObjectMeta(d.typ) {
		return true, ""
	}
	switch x := d.typ.(type) {
	case *ast.StructType:
		for _, field := range x.Fields.List {
			if len(field.Names) != 0 {
				continue
			}
			ft := field.Type
			if star, isStar := ft.(*ast.StarExpr); isStar {
				ft = star.X
			}
			if r := refOf(ft, d.file); r != nil {
				if ok, _ := f.embedsObjectMeta(target, p.dir, r, depth+1); ok {
					return true, ""
				}
			}
		}
		return false, fmt.Sprintf("%s is a struct that does not embed metav1.ObjectMeta", written)
	case *ast.IndexExpr, *ast.IndexListExpr:
		return false, fmt.Sprintf("%s is an instance of a generic type, which informer-gen does not follow", written)
	}
	if r := refOf(d.typ, d.file); r != nil {
		return f.embedsObjectMeta(target, p.dir, r, depth+1)
	}
	return false, fmt.Sprintf("%s is not a struct", written)
}

// definesStatus follows ref, written in package pkgPath (in dir), through
// definitions and aliases to a struct and reports whether that struct has a
// member named Status (see hasStatusField); false when syntax cannot tell.
func (f *follower) definesStatus(pkgPath, dir string, ref *typeRef, depth int) bool {
	if depth > maxDefinitionDepth {
		return false
	}
	target, p, d, found := f.lookup(pkgPath, dir, ref)
	if !found {
		return false
	}
	if _, ok := d.typ.(*ast.StructType); ok {
		return hasStatusField(d.typ)
	}
	if r := refOf(d.typ, d.file); r != nil {
		return f.definesStatus(target, p.dir, r, depth+1)
	}
	return false
}

// aliasIdentity follows an alias (and the aliases it names) to the defined
// type it stands for, "<import path>.<name>"; ok is false when that cannot
// be told from syntax.
func (f *follower) aliasIdentity(pkgPath, dir string, ref *typeRef, depth int) (id string, ok bool) {
	if depth > maxDefinitionDepth {
		return "", false
	}
	target, p, d, found := f.lookup(pkgPath, dir, ref)
	if !found {
		return "", false
	}
	if d.alias {
		if r := refOf(d.typ, d.file); r != nil {
			return f.aliasIdentity(target, p.dir, r, depth+1)
		}
		return "", false
	}
	return target + "." + ref.Name, true
}

// lookup finds the declaration ref, written in package pkgPath (in dir),
// names: in the package its qualifier stands for, or pkgPath itself and then
// its file's dot imports. target is the declaring package's import path.
func (f *follower) lookup(pkgPath, dir string, ref *typeRef) (target string, p *declPackage, d declared, found bool) {
	target = pkgPath
	if ref.Qualifier != "" {
		var err error
		if target, err = f.qualifierPath(dir, ref); err != nil {
			return "", nil, declared{}, false
		}
	}
	p = f.load(target, dir)
	if p.err != nil {
		return "", nil, declared{}, false
	}
	d, found = p.decls[ref.Name]
	if !found && ref.Qualifier == "" && len(ref.Dot) > 0 {
		return f.dotImported(dir, ref)
	}
	return target, p, d, found
}

// dotImported looks an unqualified name up in the packages the file of ref
// imports with ".", in import order, as seen from a package in dir. It
// returns the package that declares it, or found false.
func (f *follower) dotImported(dir string, ref *typeRef) (target string, p *declPackage, d declared, found bool) {
	if !token.IsExported(ref.Name) {
		return "", nil, declared{}, false
	}
	for _, ip := range ref.Dot {
		lp := f.load(ip, dir)
		if lp.err != nil {
			continue
		}
		if d, ok := lp.decls[ref.Name]; ok {
			return ip, lp, d, true
		}
	}
	return "", nil, declared{}, false
}

// qualifierPath returns the import path a qualifier stands for in the file
// that holds ref: its explicitly named import, else the one unnamed import
// whose path names a package so (guessPackageName), else the unnamed import
// whose package clause has that name.
func (f *follower) qualifierPath(dir string, ref *typeRef) (string, error) {
	if p, ok := ref.Named[ref.Qualifier]; ok {
		return p, nil
	}
	var guessed []string
	for _, p := range ref.Unnamed {
		if guessPackageName(p) == ref.Qualifier {
			guessed = append(guessed, p)
		}
	}
	if len(guessed) == 1 {
		return guessed[0], nil
	}
	// Try the imports whose last element looks like the name first.
	var likely, rest []string
	for _, p := range ref.Unnamed {
		if strings.Contains(path.Base(p), ref.Qualifier) {
			likely = append(likely, p)
		} else {
			rest = append(rest, p)
		}
	}
	for _, p := range append(likely, rest...) {
		if p == "C" {
			continue
		}
		if lp := f.load(p, dir); lp.err == nil && lp.name == ref.Qualifier {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s.%s: no import of the file is package %s", ref.Qualifier, ref.Name, ref.Qualifier)
}

// guessPackageName is the package name an import path usually has: its last
// element, skipping a major-version element ("…/v2") and dropping a
// ".vN" suffix and a "go-" prefix.
func guessPackageName(p string) string {
	parts := strings.Split(p, "/")
	last := parts[len(parts)-1]
	if len(parts) > 1 && len(last) > 1 && last[0] == 'v' && isDigits(last[1:]) {
		last = parts[len(parts)-2]
	}
	if i := strings.Index(last, ".v"); i > 0 && isDigits(last[i+2:]) {
		last = last[:i]
	}
	last = strings.TrimPrefix(last, "go-")
	return strings.ReplaceAll(last, "-", "_")
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// load reads the type declarations of the package with import path ip, as
// seen from a package in dir.
func (f *follower) load(ip, dir string) *declPackage {
	if p, ok := f.pkgs[ip]; ok {
		return p
	}
	p := &declPackage{decls: map[string]declared{}}
	f.pkgs[ip] = p
	in, err := f.inputOf(ip, dir)
	if err != nil {
		p.err = err
		return p
	}
	p.dir = in.Dir
	files := in.Files
	if len(files) == 0 {
		p.err = fmt.Errorf("package %s (%s) has no Go files", ip, p.dir)
		return p
	}
	fset := token.NewFileSet()
	for _, name := range files {
		af, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			p.err = fmt.Errorf("reading package %s: %w", ip, err)
			return p
		}
		if p.name == "" {
			p.name = af.Name.Name
		}
		for _, decl := range af.Decls {
			if gd, ok := decl.(*ast.GenDecl); ok && gd.Tok == token.TYPE {
				for _, spec := range gd.Specs {
					ts := spec.(*ast.TypeSpec)
					p.decls[ts.Name.Name] = declared{typ: ts.Type, file: af, alias: ts.Assign.IsValid()}
				}
			}
		}
	}
	return p
}

// inputOf returns the package with import path ip, as seen from a package
// in dir: an input, or the package located (locate) and its files listed.
// Every package any target reads comes through it.
func (f *follower) inputOf(ip, dir string) (inputPackage, error) {
	if in, ok := f.inputs[ip]; ok {
		return in, nil
	}
	d, err := f.locate(ip, dir)
	if err != nil {
		return inputPackage{}, err
	}
	files, err := packageFiles(f.bctx, d)
	if err != nil {
		return inputPackage{}, err
	}
	return inputPackage{ImportPath: ip, Dir: d, Files: files}, nil
}

// locate finds the directory of import path ip: inside the module that holds
// dir when the path is under it, else through `go list -find` run in the
// working directory, whose module's build list (the one the generated code
// is built with) says which version of the package's module is meant.
func (f *follower) locate(ip, dir string) (string, error) {
	if root, err := f.mods.find(dir); err == nil {
		if rest, ok := underPath(ip, root.path); ok {
			d := filepath.Join(root.dir, filepath.FromSlash(rest))
			if st, err := os.Stat(d); err == nil && st.IsDir() {
				return d, nil
			}
		}
	}
	args := []string{"list", "-find", "-f", "{{.Dir}}"}
	if len(f.bctx.BuildTags) > 0 {
		args = append(args, "-tags", strings.Join(f.bctx.BuildTags, ","))
	}
	cmd := exec.CommandContext(f.ctx, "go", append(args, ip)...)
	cmd.Dir = f.workDir
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
