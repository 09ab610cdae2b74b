package applyconfig

import (
	"go/ast"
	"strings"

	"github.com/typedinformer/typedinformer/generators/load"
)

// This file decides which types get apply configurations: the types
// reachable from a +genclient type with an apply verb, followed through the
// run's load.Loader to the structs they are, and their members resolved.

// excludedApplyTypes never get an apply configuration: they carry raw
// content.
var excludedApplyTypes = map[string]bool{
	"k8s.io/apimachinery/pkg/runtime.RawExtension": true,
	"k8s.io/apimachinery/pkg/runtime.Unknown":      true,
}

// acGen holds one run's apply configuration planning. It is used by one
// goroutine.
type acGen struct {
	loader *load.Loader
	inputs map[string]*load.DeclPackage // by import path
	// others are the packages beyond the inputs the apply configurations
	// have read (meta/v1 when it is no input): their aliases are followed.
	others map[string]*load.DeclPackage
	outPkg string
	// refs maps "<pkg>.<Type>" to the package of its apply configuration.
	refs    map[string]string
	structs map[string]*acStruct
	// openAPI maps "<apiVersion>/<Kind>" of the roots to their OpenAPI
	// definition names; nil without a schema.
	openAPI map[string]string
}

// acStruct is a declaration followed to its struct, with resolved members.
type acStruct struct {
	decl    *load.TypeDecl
	members []load.Member
}

func typeKey(pkg, name string) string { return pkg + "." + name }

// decl returns p's declaration of name, or nil for none and for a generic
// type, which gets no apply configuration.
func (g *acGen) decl(p *load.DeclPackage, name string) (*load.TypeDecl, error) {
	d, err := g.loader.Decl(p, name)
	if err != nil || d == nil || d.Generic {
		return nil, err
	}
	return d, nil
}

// load returns the package with import path ip, through the run's load.Loader.
func (g *acGen) load(ip, fromDir string) (*load.DeclPackage, error) {
	if p, ok := g.inputs[ip]; ok {
		return p, nil
	}
	p := g.loader.Load(ip, fromDir)
	if p.Err != nil {
		return nil, p.Err
	}
	g.others[ip] = p
	return p, nil
}

// structOf follows the named type pkg.name to a struct and returns it with
// its members, or nil when it is not a struct declared by syntax the
// generator can read.
func (g *acGen) structOf(pkg, name, fromDir string) (*acStruct, error) {
	key := typeKey(pkg, name)
	if s, ok := g.structs[key]; ok {
		return s, nil
	}
	g.structs[key] = nil // ends cycles
	var s *acStruct
	p, err := g.load(pkg, fromDir)
	if err != nil {
		return nil, err
	}
	d, err := g.decl(p, name)
	if err != nil {
		return nil, err
	}
	for depth := 0; d != nil && depth < load.MaxDefinitionDepth; depth++ {
		if st, ok := d.Expr.(*ast.StructType); ok {
			ms, err := g.members(d, st)
			if err != nil {
				return nil, err
			}
			s = &acStruct{decl: d, members: ms}
			break
		}
		// "type A B" and "type A = B": B's members.
		t, err := g.loader.ResolveType(d.Expr, d)
		if err != nil || t.Kind != load.KindNamed {
			break
		}
		np, err := g.load(t.Pkg, d.Pkg.Dir)
		if err != nil {
			return nil, err
		}
		if d, err = g.decl(np, t.Name); err != nil {
			return nil, err
		}
	}
	g.structs[key] = s
	return s, nil
}

// isInput reports whether pkg is one of the run's input packages.
func (g *acGen) isInput(pkg string) bool { _, ok := g.inputs[pkg]; return ok }

// reach marks every type reachable from t (by members, elements, keys and
// definitions) in seen, walking the input packages only.
func (g *acGen) reach(t *load.TypeExpr, fromDir string, seen map[string]bool) error {
	switch t.Kind {
	case load.KindPointer, load.KindSlice, load.KindArray:
		return g.reach(t.Elem, fromDir, seen)
	case load.KindMap:
		if err := g.reach(t.Key, fromDir, seen); err != nil {
			return err
		}
		return g.reach(t.Elem, fromDir, seen)
	case load.KindNamed:
		key := typeKey(t.Pkg, t.Name)
		if seen[key] || !g.isInput(t.Pkg) {
			return nil
		}
		seen[key] = true
		p := g.inputs[t.Pkg]
		d, err := g.decl(p, t.Name)
		if err != nil || d == nil {
			return err
		}
		if _, ok := d.Expr.(*ast.StructType); ok {
			return g.reachMembers(p, d, seen)
		}
		u, err := g.loader.ResolveType(d.Expr, d)
		if err != nil {
			return nil //nolint:nilerr // an underlying type apply configurations cannot express is simply not followed
		}
		return g.reach(u, p.Dir, seen)
	}
	return nil
}

// reachMembers marks what the members of the struct d declares reach.
func (g *acGen) reachMembers(p *load.DeclPackage, d *load.TypeDecl, seen map[string]bool) error {
	st, ok := d.Expr.(*ast.StructType)
	if !ok {
		return nil
	}
	ms, err := g.members(d, st)
	if err != nil {
		return err
	}
	for _, m := range ms {
		if err := g.reach(m.Type, p.Dir, seen); err != nil {
			return err
		}
	}
	return nil
}

// members resolves a struct's members, type aliases followed to the types
// they stand for.
func (g *acGen) members(d *load.TypeDecl, st *ast.StructType) ([]load.Member, error) {
	ms, err := g.loader.Members(d, st)
	if err != nil {
		return nil, err
	}
	for i := range ms {
		ms[i].Type = g.unalias(ms[i].Type, d.Pkg.Dir, 0)
	}
	return ms, nil
}

// unalias replaces every named type in t that is an alias ("type A = B")
// by the type it stands for, as applyconfiguration-gen's type-checked
// reading sees it: the alias's package is read (from fromDir's module)
// when the run has not read it yet. A package that cannot be read leaves
// the name as written.
func (g *acGen) unalias(t *load.TypeExpr, fromDir string, depth int) *load.TypeExpr {
	if depth > load.MaxDefinitionDepth {
		return t
	}
	switch t.Kind {
	case load.KindNamed:
		p, err := g.load(t.Pkg, fromDir)
		if err != nil {
			return t
		}
		d, err := g.decl(p, t.Name)
		if err != nil || d == nil || !d.Alias {
			return t
		}
		u, err := g.loader.ResolveType(d.Expr, d)
		if err != nil {
			return t
		}
		return g.unalias(u, d.Pkg.Dir, depth+1)
	case load.KindPointer, load.KindSlice, load.KindArray:
		cp := *t
		cp.Elem = g.unalias(t.Elem, fromDir, depth+1)
		return &cp
	case load.KindMap:
		cp := *t
		cp.Key, cp.Elem = g.unalias(t.Key, fromDir, depth+1), g.unalias(t.Elem, fromDir, depth+1)
		return &cp
	}
	return t
}

// requiresApplyConfiguration reports whether a reachable type gets one: a
// struct with at least one json-tagged member, other than the raw types.
func (g *acGen) requiresApplyConfiguration(pkg, name, dir string) (bool, error) {
	if excludedApplyTypes[typeKey(pkg, name)] {
		return false, nil
	}
	if p := g.inputs[pkg]; p != nil {
		d, err := g.decl(p, name)
		if err != nil {
			return false, err
		}
		if d != nil && d.Alias {
			return false, nil // the type it stands for has the apply configuration
		}
	}
	s, err := g.structOf(pkg, name, dir)
	if err != nil || s == nil {
		return false, err
	}
	for _, m := range s.members {
		if _, ok := load.LookupJSON(m); ok {
			return true, nil
		}
	}
	return false, nil
}

// isInternalPackage reports whether p holds internal API types, which
// applyconfiguration-gen skips: a member named ObjectMeta without a json tag.
func (g *acGen) isInternalPackage(p *load.DeclPackage) (bool, error) {
	for _, name := range load.SortedDeclNames(p) {
		d := p.Decls[name]
		st, ok := d.Expr.(*ast.StructType)
		if !ok {
			continue
		}
		for _, f := range st.Fields.List {
			var fname string
			switch {
			case len(f.Names) == 1:
				fname = f.Names[0].Name
			case len(f.Names) == 0:
				fname = load.EmbeddedName(f.Type)
			}
			if fname != "ObjectMeta" {
				continue
			}
			m := load.Member{Name: fname, Embedded: len(f.Names) == 0}
			if f.Tag != nil {
				m.Tag = strings.Trim(f.Tag.Value, "`")
			}
			_, tagged := load.LookupJSON(m)
			return !tagged, nil
		}
	}
	return false, nil
}
