package load

import (
	"go/ast"
	"go/types"
	"reflect"
	"sort"
	"strings"
)

// This file holds what apply configurations read of a struct's members:
// their resolved types (TypeExpr, see Loader.ResolveType) and json tags.

// Member is one struct member.
type Member struct {
	// Name is the field's name, or for an embedded field its type's name.
	Name     string
	Embedded bool
	// Tag is the raw struct tag.
	Tag  string
	Doc  []string
	Type *TypeExpr
	Pos  string
}

// TypeKind is the shape of a member type.
type TypeKind int

// The shapes of a member type.
const (
	KindNamed TypeKind = iota // a declared type: Pkg.Name
	KindBuiltin
	KindPointer
	KindSlice
	KindMap
	KindArray
	KindOther // interface{}, func, chan, an anonymous struct: kept as written
)

// TypeExpr is a resolved type expression.
type TypeExpr struct {
	Kind      TypeKind
	Pkg, Name string // KindNamed: import path and name; KindBuiltin: Name
	Elem, Key *TypeExpr
	Len       string // KindArray
	Src       string // KindOther: the expression's source
	// Expr is KindOther's expression (ResolveAnyType).
	Expr ast.Expr
}

// JSONTag is a member's json tag as applyconfiguration-gen reads it.
type JSONTag struct {
	name      string
	Inline    bool
	OmitEmpty bool
}

// String is the json tag the apply configuration's field carries.
func (t JSONTag) String() string {
	s := ""
	if !t.Inline {
		s = t.name
	}
	if t.OmitEmpty {
		s += ",omitempty"
	}
	return s
}

// LookupJSON reads m's json tag; ok is false when it has none or "-".
func LookupJSON(m Member) (JSONTag, bool) {
	tag, ok := reflect.StructTag(m.Tag).Lookup("json")
	if !ok || tag == "-" {
		return JSONTag{}, false
	}
	name, opts, _ := strings.Cut(tag, ",")
	t := JSONTag{name: name, Inline: m.Embedded && name == ""}
	if name == "" {
		t.name = m.Name
	}
	for _, o := range strings.Split(opts, ",") {
		if o == "omitempty" {
			t.OmitEmpty = true
		}
	}
	return t, true
}

// exprString prints an expression for messages.
func exprString(e ast.Expr) string { return types.ExprString(e) }

// SortedDeclNames returns a package's declared names sorted as upstream
// orders a package's apply configurations: by lower-cased name.
// Generic types get no apply configuration and are left out.
func SortedDeclNames(p *DeclPackage) []string {
	names := make([]string, 0, len(p.Decls))
	for n, d := range p.Decls {
		if !d.Generic {
			names = append(names, n)
		}
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

// EmbeddedName is the name an embedded field of type expr has ("ObjectMeta"
// for metav1.ObjectMeta or *metav1.ObjectMeta), or "" when expr names no
// type.
func EmbeddedName(expr ast.Expr) string {
	if star, ok := expr.(*ast.StarExpr); ok {
		expr = star.X
	}
	if r := refOf(expr, nil); r != nil {
		return r.Name
	}
	return ""
}
