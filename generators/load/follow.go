package load

import (
	"context"
	"fmt"
	"go/ast"
	"go/build"
	"go/types"
	"strings"

	"golang.org/x/tools/go/packages"
)

// MaxDefinitionDepth bounds how many definitions, aliases and embedded
// structs are followed from one +genclient type (and ends cycles).
const MaxDefinitionDepth = 16

// FollowDefinitions settles ObjectMeta for the +genclient types that are
// defined as, or are aliases of, another named type ("type GRPCRoute
// v1.GRPCRoute", "type Foo = Real"), or structs that do not embed ObjectMeta
// directly: the named type is looked up, in the same package, another package
// of the module or another module, until a struct is reached, whose embedded
// fields are followed the same way. Only syntax is
// read, and only of the packages the definitions lead to; a package outside
// the input's module is located with one `go list -find` call. Types whose
// definition cannot be followed keep ObjectMeta false and get Unfollowed.
func FollowDefinitions(ctx context.Context, f *Loader, pkgs []ParsedPackage) {
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
func typeCheckFallback(ctx context.Context, bctx *build.Context, workDir string, pkgs []ParsedPackage) {
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

// embedsObjectMeta follows ref, written in package pkgPath (in dir), to a
// struct and reports whether that struct embeds ObjectMeta, directly or
// through embedded structs. When it does not, why says what was found.
func (f *Loader) embedsObjectMeta(pkgPath, dir string, ref *typeRef, depth int) (ok bool, why string) {
	if depth > MaxDefinitionDepth {
		return false, fmt.Sprintf("definitions nest more than %d deep (a cycle?)", MaxDefinitionDepth)
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
	p := f.Load(target, dir)
	if p.Err != nil {
		return false, fmt.Sprintf("%s: %v", written, p.Err)
	}
	d, err := f.Decl(p, ref.Name)
	if err != nil {
		return false, fmt.Sprintf("%s: %v", written, err)
	}
	if d == nil && ref.Qualifier == "" && len(ref.file.Dot) > 0 {
		target, p, d = f.dotImported(dir, ref)
	}
	if d == nil {
		if len(ref.file.Dot) > 0 {
			return false, fmt.Sprintf("%s: no type %s in package %s nor in its file's dot imports (%s)", written, ref.Name, pkgPath, strings.Join(ref.file.Dot, ", "))
		}
		return false, fmt.Sprintf("%s: no type %s in package %s", written, ref.Name, target)
	}
	if embedsObjectMeta(d.Expr) {
		return true, ""
	}
	switch x := d.Expr.(type) {
	case *ast.StructType:
		for _, ft := range embeddedTypes(x) {
			if r := refOf(ft, d.file); r != nil {
				if ok, _ := f.embedsObjectMeta(target, p.Dir, r, depth+1); ok {
					return true, ""
				}
			}
		}
		return false, fmt.Sprintf("%s is a struct that does not embed metav1.ObjectMeta", written)
	case *ast.IndexExpr, *ast.IndexListExpr:
		return false, fmt.Sprintf("%s is an instance of a generic type, which informer-gen does not follow", written)
	}
	if r := refOf(d.Expr, d.file); r != nil {
		return f.embedsObjectMeta(target, p.Dir, r, depth+1)
	}
	return false, fmt.Sprintf("%s is not a struct", written)
}

// definesStatus follows ref, written in package pkgPath (in dir), through
// definitions and aliases to a struct and reports whether that struct has a
// member named Status (see hasStatusField); false when syntax cannot tell.
func (f *Loader) definesStatus(pkgPath, dir string, ref *typeRef, depth int) bool {
	if depth > MaxDefinitionDepth {
		return false
	}
	target, p, d := f.lookup(pkgPath, dir, ref)
	if d == nil {
		return false
	}
	if _, ok := d.Expr.(*ast.StructType); ok {
		return hasStatusField(d.Expr)
	}
	if r := refOf(d.Expr, d.file); r != nil {
		return f.definesStatus(target, p.Dir, r, depth+1)
	}
	return false
}

// aliasIdentity follows an alias (and the aliases it names) to the defined
// type it stands for, "<import path>.<name>"; ok is false when that cannot
// be told from syntax.
func (f *Loader) aliasIdentity(pkgPath, dir string, ref *typeRef, depth int) (id string, ok bool) {
	if depth > MaxDefinitionDepth {
		return "", false
	}
	target, p, d := f.lookup(pkgPath, dir, ref)
	if d == nil {
		return "", false
	}
	if d.Alias {
		if r := refOf(d.Expr, d.file); r != nil {
			return f.aliasIdentity(target, p.Dir, r, depth+1)
		}
		return "", false
	}
	return target + "." + ref.Name, true
}
