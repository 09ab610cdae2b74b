package defaulter

import (
	"slices"
	"sort"
	"strings"

	"github.com/typedinformer/typedinformer/generators/internal/inputerr"
	"github.com/typedinformer/typedinformer/generators/load"
)

// The prefixes of defaulter functions' names: SetDefaults_<Type> (the base
// defaulter), SetDefaults_<Type>_<Anything> (additional ones, called after
// it) and SetObjectDefaults_<Type> (one that covers every member).
const (
	baseFnPrefix   = "SetDefaults_"
	objectFnPrefix = "SetObjectDefaults_"
)

// fn is a defaulter function: its package and name, and its doc comment.
type fn struct {
	pkg, name string
	pos       string
	doc       []string
}

// defaults are the defaulter functions known for one type.
type defaults struct {
	// object covers the whole type: nothing else is called with it.
	object *fn
	// base is SetDefaults_<Type>; with +k8s:defaulter-gen=covers in its
	// doc comment it covers the type's members too.
	base *fn
	// additional are the SetDefaults_<Type>_<Suffix> functions, by name.
	additional []*fn
}

// defaulterMap holds the defaulters by the String of the type they take.
type defaulterMap map[string]*defaults

func (m defaulterMap) of(t *typ) *defaults {
	if d, ok := m[t.String()]; ok {
		return d
	}
	return &defaults{}
}

// addFuncs adds the defaulter functions p declares (by hand: files with
// generated code are left out) to m. A function whose name starts with a
// defaulter prefix but that is not a defaulter of its parameter's type is
// refused, as is a second base or object defaulter of a type declared in
// another package.
func addFuncs(l *load.Loader, u *universe, p *load.DeclPackage, m defaulterMap) error {
	declared, err := l.Functions(p)
	if err != nil {
		return err
	}
	// The loader's slice is shared with other targets: sort a copy.
	funcs := slices.Clone(declared)
	sort.SliceStable(funcs, func(i, j int) bool { return funcs[i].Name < funcs[j].Name })
	for _, f := range funcs {
		if !strings.HasPrefix(f.Name, baseFnPrefix) && !strings.HasPrefix(f.Name, objectFnPrefix) {
			continue
		}
		if f.Generic || len(f.Params) != 1 || len(f.Results) != 0 {
			return inputerr.Errorf(f.Pos, "defaulter %s: a defaulter takes one parameter, a pointer to the type it defaults, and returns nothing (func %s(*Type))", f.Name, f.Name)
		}
		te, err := l.ResolveAnyType(f.Params[0], f.Context)
		if err != nil {
			return inputerr.Errorf(f.Pos, "defaulter %s: %v", f.Name, err)
		}
		if te.Kind != load.KindPointer {
			return inputerr.Errorf(f.Pos, "defaulter %s: its parameter is not a pointer: a defaulter takes a pointer to the type it defaults (func %s(*Type))", f.Name, f.Name)
		}
		t := u.fromExpr(te.Elem)
		if t.name == "" {
			return inputerr.Errorf(f.Pos, "defaulter %s: its parameter points to an unnamed type: defaulters are for declared types", f.Name)
		}
		d := m.of(t)
		this := &fn{pkg: p.ImportPath, name: f.Name, pos: f.Pos, doc: commentTexts(f.Doc)}
		switch {
		case f.Name == baseFnPrefix+t.name:
			if d.base != nil && d.base.pkg != this.pkg {
				return inputerr.Errorf(f.Pos, "defaulter %s: type %s already has a base defaulter at %s", f.Name, t, d.base.pos)
			}
			d.base = this
		case strings.HasPrefix(f.Name, baseFnPrefix+t.name+"_"):
			if !hasFn(d.additional, this) {
				d.additional = append(d.additional, this)
			}
		case f.Name == objectFnPrefix+t.name:
			if d.object != nil && d.object.pkg != this.pkg {
				return inputerr.Errorf(f.Pos, "defaulter %s: type %s already has an object defaulter at %s", f.Name, t, d.object.pos)
			}
			d.object = this
		default:
			return inputerr.Errorf(f.Pos, "defaulter %s takes *%s: its name must be %s%s, %s%s_<suffix> or %s%s", f.Name, t.name, baseFnPrefix, t.name, baseFnPrefix, t.name, objectFnPrefix, t.name)
		}
		m[t.String()] = d
	}
	return nil
}

func hasFn(fns []*fn, f *fn) bool {
	for _, x := range fns {
		if x.name == f.name {
			return true
		}
	}
	return false
}

// tagValues returns the values of the tag name in lines ("+name=value").
func tagValues(lines []string, name string) []string {
	var out []string
	for _, l := range lines {
		rest, ok := strings.CutPrefix(strings.TrimLeft(l, " \t"), "+")
		if !ok {
			continue
		}
		n, v, _ := strings.Cut(rest, "=")
		if n == name {
			out = append(out, v)
		}
	}
	return out
}

// tagIs reports whether lines carry the tag name exactly once, with value v.
func tagIs(lines []string, name, v string) bool {
	vs := tagValues(lines, name)
	return len(vs) == 1 && vs[0] == v
}

// commentTexts are the texts of a doc comment's lines.
func commentTexts(lines []load.CommentLine) []string {
	out := make([]string, len(lines))
	for i, c := range lines {
		out[i] = c.Text
	}
	return out
}
