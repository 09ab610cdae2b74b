package load

import (
	"fmt"
	"go/ast"
	"go/token"
	"path"
	"strconv"
	"strings"

	"github.com/typedinformer/typedinformer/generators/internal/inputerr"
)

// This file resolves names written in a package the Loader read: a
// qualifier to the import path it stands for, a type name to its
// declaration, and a member's type expression to a TypeExpr. Every target
// resolves names through it.

// lookup finds the declaration ref, written in package pkgPath (in dir),
// names: in the package its qualifier stands for, or pkgPath itself and then
// its file's dot imports. target is the declaring package's import path; d
// is nil when no declaration is found.
func (l *Loader) lookup(pkgPath, dir string, ref *typeRef) (target string, p *DeclPackage, d *TypeDecl) {
	target = pkgPath
	if ref.Qualifier != "" {
		var err error
		if target, err = l.qualifierPath(dir, ref); err != nil {
			return "", nil, nil
		}
	}
	p = l.Load(target, dir)
	if p.Err != nil {
		return "", nil, nil
	}
	d, err := l.Decl(p, ref.Name)
	if err != nil {
		return "", nil, nil
	}
	if d == nil && ref.Qualifier == "" && len(ref.file.Dot) > 0 {
		return l.dotImported(dir, ref)
	}
	return target, p, d
}

// dotImported looks an unqualified name up in the packages the file of ref
// imports with ".", in import order, as seen from a package in dir. It
// returns the package that declares it, or a nil d.
func (l *Loader) dotImported(dir string, ref *typeRef) (target string, p *DeclPackage, d *TypeDecl) {
	if !token.IsExported(ref.Name) {
		return "", nil, nil
	}
	for _, ip := range ref.file.Dot {
		lp := l.Load(ip, dir)
		if lp.Err != nil {
			continue
		}
		if d, err := l.Decl(lp, ref.Name); err == nil && d != nil {
			return ip, lp, d
		}
	}
	return "", nil, nil
}

// qualifierPath returns the import path a qualifier stands for in the file
// that holds ref: its explicitly named import, else the one unnamed import
// whose path names a package so (guessPackageName), else the unnamed import
// whose package clause has that name.
func (l *Loader) qualifierPath(dir string, ref *typeRef) (string, error) {
	if p, ok := ref.file.Named[ref.Qualifier]; ok {
		return p, nil
	}
	var guessed []string
	for _, p := range ref.file.Unnamed {
		if guessPackageName(p) == ref.Qualifier {
			guessed = append(guessed, p)
		}
	}
	if len(guessed) == 1 {
		return guessed[0], nil
	}
	// Try the imports whose last element looks like the name first.
	var likely, rest []string
	for _, p := range ref.file.Unnamed {
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
		if lp := l.Load(p, dir); lp.Err == nil && l.packageName(lp) == ref.Qualifier {
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

// builtinTypes are the predeclared type names.
var builtinTypes = map[string]bool{
	"bool": true, "string": true, "byte": true, "rune": true, "error": true, "any": true,
	"int": true, "int8": true, "int16": true, "int32": true, "int64": true,
	"uint": true, "uint8": true, "uint16": true, "uint32": true, "uint64": true, "uintptr": true,
	"float32": true, "float64": true, "complex64": true, "complex128": true,
}

// ResolveType turns expr, written in d's file, into a TypeExpr. A name
// declared in d's package is that package's; in a file with dot imports, an
// unqualified name the package does not declare is refused, since only
// type-checking could tell which import it comes from.
func (l *Loader) ResolveType(expr ast.Expr, d *TypeDecl) (*TypeExpr, error) {
	return l.resolveType(expr, d, true)
}

// ResolveAnyType is ResolveType for a target that reads every type
// expression: what ResolveType refuses (a func, a chan, an interface with
// methods, an anonymous struct, an array of a constant's length) is a
// KindOther carrying its expression. Dot imports are refused as there.
func (l *Loader) ResolveAnyType(expr ast.Expr, d *TypeDecl) (*TypeExpr, error) {
	return l.resolveType(expr, d, false)
}

func (l *Loader) resolveType(expr ast.Expr, d *TypeDecl, strict bool) (*TypeExpr, error) {
	file := d.file
	switch x := expr.(type) {
	case *ast.ParenExpr:
		return l.resolveType(x.X, d, strict)
	case *ast.Ident:
		if builtinTypes[x.Name] {
			return &TypeExpr{Kind: KindBuiltin, Name: x.Name}, nil
		}
		if len(file.Dot) > 0 {
			if own, err := l.Decl(d.Pkg, x.Name); err != nil || own == nil || own.Generic {
				return nil, inputerr.Errorf(position(file.fset, x.Pos()), "type %s may come from a dot import (%s), which apply configurations cannot resolve without type-checking: import the package by name", x.Name, strings.Join(file.Dot, ", "))
			}
		}
		return &TypeExpr{Kind: KindNamed, Pkg: d.Pkg.ImportPath, Name: x.Name}, nil
	case *ast.SelectorExpr:
		q, ok := x.X.(*ast.Ident)
		if !ok {
			break
		}
		ip, err := l.qualifierPath(d.Pkg.Dir, &typeRef{Qualifier: q.Name, Name: x.Sel.Name, file: file})
		if err != nil {
			return nil, inputerr.Errorf(position(file.fset, x.Pos()), "%v", err)
		}
		return &TypeExpr{Kind: KindNamed, Pkg: ip, Name: x.Sel.Name}, nil
	case *ast.StarExpr:
		e, err := l.resolveType(x.X, d, strict)
		if err != nil {
			return nil, err
		}
		return &TypeExpr{Kind: KindPointer, Elem: e}, nil
	case *ast.ArrayType:
		e, err := l.resolveType(x.Elt, d, strict)
		if err != nil {
			return nil, err
		}
		if x.Len == nil {
			return &TypeExpr{Kind: KindSlice, Elem: e}, nil
		}
		lit, ok := x.Len.(*ast.BasicLit)
		if !ok && !strict {
			return &TypeExpr{Kind: KindArray, Elem: e, Len: exprString(x.Len)}, nil
		}
		if !ok {
			return nil, inputerr.Errorf(position(file.fset, x.Pos()), "array length %s: apply configurations need a literal length", exprString(x.Len))
		}
		return &TypeExpr{Kind: KindArray, Elem: e, Len: lit.Value}, nil
	case *ast.MapType:
		k, err := l.resolveType(x.Key, d, strict)
		if err != nil {
			return nil, err
		}
		v, err := l.resolveType(x.Value, d, strict)
		if err != nil {
			return nil, err
		}
		return &TypeExpr{Kind: KindMap, Key: k, Elem: v}, nil
	case *ast.InterfaceType:
		if x.Methods == nil || len(x.Methods.List) == 0 {
			return &TypeExpr{Kind: KindOther, Src: "interface{}", Expr: x}, nil
		}
	}
	if !strict {
		return &TypeExpr{Kind: KindOther, Src: exprString(expr), Expr: expr}, nil
	}
	return nil, inputerr.Errorf(position(file.fset, expr.Pos()), "member type %s: apply configurations support named types, pointers, slices, arrays, maps and interface{} as member types", exprString(expr))
}

// Members resolves the members of the struct st that d declares.
func (l *Loader) Members(d *TypeDecl, st *ast.StructType) ([]Member, error) {
	return l.members(d, st, true)
}

// AllMembers is Members with every member type resolved as ResolveAnyType
// does.
func (l *Loader) AllMembers(d *TypeDecl, st *ast.StructType) ([]Member, error) {
	return l.members(d, st, false)
}

func (l *Loader) members(d *TypeDecl, st *ast.StructType, strict bool) ([]Member, error) {
	var out []Member
	for _, field := range st.Fields.List {
		t, err := l.resolveType(field.Type, d, strict)
		if err != nil {
			return nil, err
		}
		tag := ""
		if field.Tag != nil {
			if s, err := strconv.Unquote(field.Tag.Value); err == nil {
				tag = s
			}
		}
		var doc []string
		if field.Doc != nil {
			for _, l := range commentLines(d.file.fset, field.Doc) {
				doc = append(doc, l.Text)
			}
		}
		pos := position(d.file.fset, field.Pos())
		if len(field.Names) == 0 {
			base := t
			if base.Kind == KindPointer {
				base = base.Elem
			}
			if base.Kind != KindNamed && (strict || base.Kind != KindBuiltin) {
				return nil, inputerr.Errorf(pos, "embedded field %s is not a named type", exprString(field.Type))
			}
			out = append(out, Member{Name: base.Name, Embedded: true, Tag: tag, Doc: doc, Type: t, Pos: pos})
			continue
		}
		for _, n := range field.Names {
			out = append(out, Member{Name: n.Name, Tag: tag, Doc: doc, Type: t, Pos: pos})
		}
	}
	return out, nil
}
