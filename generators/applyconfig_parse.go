package generators

import (
	"bytes"
	"context"
	"go/ast"
	"go/token"
	"go/types"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// This file reads what apply configurations need from the input packages:
// every type declaration with its tags, doc comment and, for structs, the
// members with their types, struct tags and doc comments. Syntax only, as
// for the informers: types are resolved through the imports of the file
// that names them.

// acPackage is one input package as the apply configurations see it.
type acPackage struct {
	inputPackage
	Name       string
	PackagePos string
	// Tags are the package's tag lines (doc.go's comments, or the package
	// doc comments of its files without a doc.go).
	Tags []commentLine
	// Decls are the declarations of the files acRelevant kept until a
	// name they lack is looked up (acGen.decl), then of every file.
	Decls    map[string]*acDecl
	complete bool
}

// acDecl is one type declaration.
type acDecl struct {
	Name string
	Pos  string
	// Tags are the comment block before the doc comment and the doc
	// comment, as client-gen reads +genclient tags.
	Tags []commentLine
	// Expr is the declared type; Alias is set for "type A = B".
	Expr  ast.Expr
	Alias bool
	file  *acFile
	pkg   *acPackage
}

// acFile is what resolving a type name needs from the file naming it.
type acFile struct {
	fset    *token.FileSet
	Named   map[string]string // import name → path
	Unnamed []string
	Dot     []string
}

// acMember is one struct member.
type acMember struct {
	// Name is the field's name, or for an embedded field its type's name.
	Name     string
	Embedded bool
	// Tag is the raw struct tag.
	Tag  string
	Doc  []string
	Type *acType
	Pos  string
}

// acTypeKind is the shape of a member type.
type acTypeKind int

const (
	acNamed acTypeKind = iota // a declared type: Pkg.Name
	acBuiltin
	acPointer
	acSlice
	acMap
	acArray
	acOther // interface{}, func, chan, an anonymous struct: kept as written
)

// acType is a resolved type expression.
type acType struct {
	Kind      acTypeKind
	Pkg, Name string // acNamed: import path and name; acBuiltin: Name
	Elem, Key *acType
	Len       string // acArray
	Src       string // acOther: the expression's source
}

// acRelevant reports whether a file may declare a type apply configurations
// need: only struct members with json tags make one.
func acRelevant(base string, src []byte) bool {
	return base == "doc.go" || bytes.Contains(src, []byte(`json:"`)) || bytes.Contains(src, []byte("+genclient"))
}

// acFileResult is what the apply configurations take from one file.
type acFileResult struct {
	head  *fileHead
	decls []*acDecl
}

// parseACPackages reads every package for the apply configurations,
// concurrently, one job per file.
func parseACPackages(ctx context.Context, pkgs []inputPackage) ([]*acPackage, error) {
	results, err := parseFiles(ctx, pkgs, func(fset *token.FileSet, filename string) (*acFileResult, error) {
		f, head, err := parseRelevant(fset, filename, acRelevant)
		if f == nil || err != nil {
			return nil, err
		}
		return &acFileResult{head: head, decls: typeDecls(fset, f)}, nil
	})
	if err != nil {
		return nil, err
	}
	return acPackages(pkgs, results), nil
}

// acPackages assembles the packages of parseACPackages from the files read
// (nil for a file skipped), by package and file in input order.
func acPackages(pkgs []inputPackage, results [][]*acFileResult) []*acPackage {
	out := make([]*acPackage, 0, len(pkgs))
	for i, p := range pkgs {
		ap := &acPackage{inputPackage: p, Decls: map[string]*acDecl{}}
		heads := make([]*fileHead, len(results[i]))
		for j, r := range results[i] {
			if r == nil {
				continue
			}
			heads[j] = r.head
			for _, d := range r.decls {
				d.pkg = ap
				ap.Decls[d.Name] = d
			}
		}
		ap.Name, ap.PackagePos, ap.Tags = packageHead(heads)
		out = append(out, ap)
	}
	return out
}

// completeDecls reads the files of p that acRelevant skipped and adds
// their declarations: a type without json-tagged members (an alias, a
// string type) may be declared in any file.
func completeDecls(ctx context.Context, p *acPackage) error {
	if p.complete {
		return nil
	}
	p.complete = true
	results, err := parseFiles(ctx, []inputPackage{p.inputPackage}, func(fset *token.FileSet, filename string) ([]*acDecl, error) {
		f, _, err := parseRelevant(fset, filename, func(base string, src []byte) bool { return !acRelevant(base, src) })
		if f == nil || err != nil {
			return nil, err
		}
		return typeDecls(fset, f), nil
	})
	if err != nil {
		return err
	}
	for _, decls := range results[0] {
		for _, d := range decls {
			if _, ok := p.Decls[d.Name]; !ok {
				d.pkg = p
				p.Decls[d.Name] = d
			}
		}
	}
	return nil
}

// typeDecls returns the file's top-level type declarations with their tags.
func typeDecls(fset *token.FileSet, f *ast.File) []*acDecl {
	file := &acFile{fset: fset, Named: map[string]string{}}
	for _, imp := range f.Imports {
		p, err := strconv.Unquote(imp.Path.Value)
		if err != nil {
			continue
		}
		switch {
		case imp.Name == nil:
			file.Unnamed = append(file.Unnamed, p)
		case imp.Name.Name == ".":
			file.Dot = append(file.Dot, p)
		case imp.Name.Name != "_":
			file.Named[imp.Name.Name] = p
		}
	}
	tags := &declTags{fset: fset, f: f}
	var out []*acDecl
	for _, decl := range f.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.TYPE {
			continue
		}
		for _, spec := range gd.Specs {
			ts := spec.(*ast.TypeSpec)
			if ts.TypeParams != nil && len(ts.TypeParams.List) > 0 {
				continue // generic types get no apply configuration
			}
			out = append(out, &acDecl{
				Name:  ts.Name.Name,
				Pos:   position(fset, ts.Name.Pos()),
				Tags:  tags.of(ts),
				Expr:  ts.Type,
				Alias: ts.Assign.IsValid(),
				file:  file,
			})
		}
	}
	return out
}

// builtinTypes are the predeclared type names.
var builtinTypes = map[string]bool{
	"bool": true, "string": true, "byte": true, "rune": true, "error": true, "any": true,
	"int": true, "int8": true, "int16": true, "int32": true, "int64": true,
	"uint": true, "uint8": true, "uint16": true, "uint32": true, "uint64": true, "uintptr": true,
	"float32": true, "float64": true, "complex64": true, "complex128": true,
}

// acResolver resolves type expressions of a package's files to acTypes.
type acResolver struct {
	f *follower // locates and reads packages imported without a name
	// declares reports whether the package with import path pkg declares
	// name (in the files the run read); with dot imports in a file, a name
	// it does not declare may come from one of them.
	declares func(pkg, name string) bool
}

// resolve turns expr, written in decl's file, into an acType.
func (r *acResolver) resolve(expr ast.Expr, pkgPath, dir string, file *acFile) (*acType, error) {
	switch x := expr.(type) {
	case *ast.ParenExpr:
		return r.resolve(x.X, pkgPath, dir, file)
	case *ast.Ident:
		if builtinTypes[x.Name] {
			return &acType{Kind: acBuiltin, Name: x.Name}, nil
		}
		if len(file.Dot) > 0 && (r.declares == nil || !r.declares(pkgPath, x.Name)) {
			return nil, inputErrorf(position(file.fset, x.Pos()), "type %s may come from a dot import (%s), which apply configurations cannot resolve without type-checking: import the package by name", x.Name, strings.Join(file.Dot, ", "))
		}
		return &acType{Kind: acNamed, Pkg: pkgPath, Name: x.Name}, nil
	case *ast.SelectorExpr:
		q, ok := x.X.(*ast.Ident)
		if !ok {
			break
		}
		ip, err := r.f.qualifierPath(dir, &typeRef{Qualifier: q.Name, Name: x.Sel.Name, Named: file.Named, Unnamed: file.Unnamed})
		if err != nil {
			return nil, inputErrorf(position(file.fset, x.Pos()), "%v", err)
		}
		return &acType{Kind: acNamed, Pkg: ip, Name: x.Sel.Name}, nil
	case *ast.StarExpr:
		e, err := r.resolve(x.X, pkgPath, dir, file)
		if err != nil {
			return nil, err
		}
		return &acType{Kind: acPointer, Elem: e}, nil
	case *ast.ArrayType:
		e, err := r.resolve(x.Elt, pkgPath, dir, file)
		if err != nil {
			return nil, err
		}
		if x.Len == nil {
			return &acType{Kind: acSlice, Elem: e}, nil
		}
		lit, ok := x.Len.(*ast.BasicLit)
		if !ok {
			return nil, inputErrorf(position(file.fset, x.Pos()), "array length %s: apply configurations need a literal length", exprString(x.Len))
		}
		return &acType{Kind: acArray, Elem: e, Len: lit.Value}, nil
	case *ast.MapType:
		k, err := r.resolve(x.Key, pkgPath, dir, file)
		if err != nil {
			return nil, err
		}
		v, err := r.resolve(x.Value, pkgPath, dir, file)
		if err != nil {
			return nil, err
		}
		return &acType{Kind: acMap, Key: k, Elem: v}, nil
	case *ast.InterfaceType:
		if x.Methods == nil || len(x.Methods.List) == 0 {
			return &acType{Kind: acOther, Src: "interface{}"}, nil
		}
	}
	return nil, inputErrorf(position(file.fset, expr.Pos()), "member type %s: apply configurations support named types, pointers, slices, arrays, maps and interface{} as member types", exprString(expr))
}

// members resolves the members of a struct declaration.
func (r *acResolver) members(d *acDecl, st *ast.StructType) ([]acMember, error) {
	var out []acMember
	for _, field := range st.Fields.List {
		t, err := r.resolve(field.Type, d.pkg.ImportPath, d.pkg.Dir, d.file)
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
			if base.Kind == acPointer {
				base = base.Elem
			}
			if base.Kind != acNamed {
				return nil, inputErrorf(pos, "embedded field %s is not a named type", exprString(field.Type))
			}
			out = append(out, acMember{Name: base.Name, Embedded: true, Tag: tag, Doc: doc, Type: t, Pos: pos})
			continue
		}
		for _, n := range field.Names {
			out = append(out, acMember{Name: n.Name, Tag: tag, Doc: doc, Type: t, Pos: pos})
		}
	}
	return out, nil
}

// jsonTags is a member's json tag as applyconfiguration-gen reads it.
type jsonTags struct {
	name      string
	inline    bool
	omitempty bool
}

// String is the json tag the apply configuration's field carries.
func (t jsonTags) String() string {
	s := ""
	if !t.inline {
		s = t.name
	}
	if t.omitempty {
		s += ",omitempty"
	}
	return s
}

// lookupJSON reads m's json tag; ok is false when it has none or "-".
func lookupJSON(m acMember) (jsonTags, bool) {
	tag, ok := reflect.StructTag(m.Tag).Lookup("json")
	if !ok || tag == "-" {
		return jsonTags{}, false
	}
	name, opts, _ := strings.Cut(tag, ",")
	t := jsonTags{name: name, inline: m.Embedded && name == ""}
	if name == "" {
		t.name = m.Name
	}
	for _, o := range strings.Split(opts, ",") {
		if o == "omitempty" {
			t.omitempty = true
		}
	}
	return t, true
}

// exprString prints an expression for messages.
func exprString(e ast.Expr) string { return types.ExprString(e) }

// sortedDeclNames returns a package's declared names sorted as upstream
// orders a package's apply configurations: by lower-cased name.
func sortedDeclNames(p *acPackage) []string {
	names := make([]string, 0, len(p.Decls))
	for n := range p.Decls {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		a, b := strings.ToLower(names[i]), strings.ToLower(names[j])
		if a != b {
			return a < b
		}
		return names[i] < names[j]
	})
	return names
}
