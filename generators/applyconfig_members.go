package generators

import (
	"go/ast"
	"go/types"
	"reflect"
	"sort"
	"strings"
)

// This file holds what apply configurations read of a struct's members:
// their resolved types (acType, see loader.resolveType) and json tags.

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
// Generic types get no apply configuration and are left out.
func sortedDeclNames(p *declPackage) []string {
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
