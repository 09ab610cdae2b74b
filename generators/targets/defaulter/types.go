package defaulter

import (
	"go/ast"

	"github.com/typedinformer/typedinformer/generators/load"
)

// kind is a type's shape as defaulter-gen walks it. A declared type takes
// the shape of its underlying type, except that one whose underlying type
// is a basic type, a map or a slice is a kAlias of it (as gengo has it).
type kind int

const (
	kOther kind = iota // interface, func, chan, anonymous struct, unresolved
	kBuiltin
	kStruct
	kAlias
	kPointer
	kSlice
	kArray
	kMap
)

// typ is one type. Declared types are shared (one per package and name);
// unnamed ones are built for each use.
type typ struct {
	kind      kind
	pkg, name string // declared types: import path and name; kBuiltin: name
	elem, key *typ
	// underlying is a kAlias's type.
	underlying *typ
	members    []member
	// doc and second are a declared type's doc comment and the comment
	// block above it.
	doc, second []string
	decl        *load.TypeDecl
	filled      bool
}

type member struct {
	name string
	pos  string
	t    *typ
	doc  []string
}

// pos is a declared type's position, "" for others.
func (t *typ) pos() string {
	if t.decl == nil {
		return ""
	}
	return t.decl.Pos
}

func (t *typ) named() bool { return t.name != "" && t.kind != kBuiltin }

// String is the type as defaulter-gen's gengo prints it: "*pkg/path.Name",
// "[]string". It differs from deepcopy's and conversion's spelling
// (package universe) where defaulter-gen's does: an array prints as a
// slice, with no length, and a type with no shape as "<other>".
func (t *typ) String() string {
	switch {
	case t.kind == kBuiltin:
		return t.name
	case t.named():
		return t.pkg + "." + t.name
	case t.kind == kMap:
		return "map[" + t.key.String() + "]" + t.elem.String()
	}
	if prefix, ok := map[kind]string{kPointer: "*", kSlice: "[]", kArray: "[]"}[t.kind]; ok {
		return prefix + t.elem.String()
	}
	return "<other>"
}

// universe holds the declared types read so far, through the run's Loader.
type universe struct {
	l     *load.Loader
	dir   string
	named map[string]*typ
}

func newUniverse(l *load.Loader, dir string) *universe {
	return &universe{l: l, dir: dir, named: map[string]*typ{}}
}

// declared returns the type pkg.name, read on first use; a type that
// cannot be found is a kOther.
func (u *universe) declared(pkg, name string) *typ {
	key := pkg + "." + name
	if t, ok := u.named[key]; ok {
		return t
	}
	t := &typ{pkg: pkg, name: name}
	u.named[key] = t
	p := u.l.Load(pkg, u.dir)
	if p.Err != nil {
		t.filled = true
		return t
	}
	d, err := u.l.Decl(p, name)
	if err != nil || d == nil || d.Generic {
		t.filled = true
		return t
	}
	t.decl = d
	second, closest := load.CommentBlocks(d)
	t.second, t.doc = texts(second), texts(closest)
	if d.Alias {
		// A Go alias is the type it names.
		te, err := u.l.ResolveAnyType(d.Expr, d)
		if err != nil {
			t.filled = true
			return t
		}
		target := u.fromExpr(te)
		u.named[key] = target
		return target
	}
	return t
}

// fill reads a declared type's shape on first use.
func (u *universe) fill(t *typ) {
	if t.filled || !t.named() {
		return
	}
	t.filled = true
	d := t.decl
	if d == nil {
		return
	}
	shape, decl := d.Expr, d
	// A type defined as another declared type takes its shape.
	for range 32 {
		if _, ok := shape.(*ast.StructType); ok {
			break
		}
		te, err := u.l.ResolveAnyType(shape, decl)
		if err != nil {
			return
		}
		if te.Kind != load.KindNamed {
			break
		}
		next := u.declared(te.Pkg, te.Name)
		if next.decl == nil {
			if next.kind == kOther && !next.filled {
				return
			}
			// A Go alias resolved to a builtin or an unnamed type.
			if !next.named() {
				t.kind, t.underlying = kAlias, next
				if next.kind != kBuiltin && next.kind != kSlice && next.kind != kMap {
					t.kind, t.elem, t.key, t.members, t.underlying = next.kind, next.elem, next.key, next.members, nil
				}
			}
			return
		}
		shape, decl = next.decl.Expr, next.decl
	}
	if st, ok := shape.(*ast.StructType); ok {
		ms, err := u.l.AllMembers(decl, st)
		if err != nil {
			return
		}
		t.kind = kStruct
		for _, m := range ms {
			t.members = append(t.members, member{name: m.Name, pos: m.Pos, t: u.fromExpr(m.Type), doc: m.Doc})
		}
		return
	}
	te, err := u.l.ResolveAnyType(shape, decl)
	if err != nil {
		return
	}
	under := u.fromExpr(te)
	switch under.kind {
	case kBuiltin, kSlice, kMap:
		t.kind, t.underlying = kAlias, under
	case kPointer, kArray:
		t.kind, t.elem = under.kind, under.elem
	}
}

// fromExpr builds the type a resolved expression stands for.
func (u *universe) fromExpr(te *load.TypeExpr) *typ {
	switch te.Kind {
	case load.KindNamed:
		t := u.declared(te.Pkg, te.Name)
		u.fill(t)
		return t
	case load.KindBuiltin:
		if te.Name == "any" || te.Name == "error" {
			return &typ{kind: kOther}
		}
		return &typ{kind: kBuiltin, name: te.Name}
	case load.KindPointer:
		return &typ{kind: kPointer, elem: u.fromExpr(te.Elem)}
	case load.KindSlice:
		return &typ{kind: kSlice, elem: u.fromExpr(te.Elem)}
	case load.KindArray:
		return &typ{kind: kArray, elem: u.fromExpr(te.Elem)}
	case load.KindMap:
		return &typ{kind: kMap, key: u.fromExpr(te.Key), elem: u.fromExpr(te.Elem)}
	}
	return &typ{kind: kOther}
}

func texts(lines []load.CommentLine) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = l.Text
	}
	return out
}
