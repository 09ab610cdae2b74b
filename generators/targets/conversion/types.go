package conversion

import (
	"errors"
	"fmt"
	"go/ast"
	"strings"

	"github.com/typedinformer/typedinformer/generators/internal/inputerr"
	"github.com/typedinformer/typedinformer/generators/load"
)

// This file describes types as conversion-gen sees them (gengo's model): a
// named type whose underlying type is a basic type, a map or a slice is an
// alias of that underlying type; any other named type takes the shape of
// its underlying type under its own name. Each type is one *typ for the
// whole run, so that two types are the same type exactly when their
// pointers are equal; a Go alias (type A = B) is the type it names. Types
// are read from the Loader lazily, as far as a rule asks.

type kind int

const (
	kBuiltin kind = iota
	kStruct
	kAlias // a named type whose underlying type is a basic type, a map or a slice
	kSlice
	kMap
	kPointer
	kInterface
	kArray
	kChan
	kFunc
	kOther
)

// typ is one type. Named types have pkg (the import path) and name;
// builtins their name only; other unnamed types neither (String spells
// them).
type typ struct {
	kind       kind
	pkg, name  string
	elem, key  *typ
	underlying *typ // kAlias
	length     string
	members    []member
	src        string // kOther, unnamed interfaces and structs: as written

	decl   *load.TypeDecl
	filled bool
	// target is the type a Go alias names.
	target *typ
	// declared is set once the declaration was looked up.
	declared bool
}

// member is one struct member, embedded ones named by their type's name.
type member struct {
	name string
	t    *typ
	pos  string
	doc  []string
}

// universe holds every type of a run.
type universe struct {
	l     *load.Loader
	dir   string
	named map[string]*typ
	// unnamed holds builtins and unnamed types by their spelling.
	unnamed map[string]*typ
}

func newUniverse(l *load.Loader, dir string) *universe {
	return &universe{l: l, dir: dir, named: map[string]*typ{}, unnamed: map[string]*typ{}}
}

// intern returns the type spelled as t met first, or t.
func (u *universe) intern(t *typ) *typ {
	key := t.String()
	if first, ok := u.unnamed[key]; ok {
		return first
	}
	u.unnamed[key] = t
	return t
}

// String is gengo's name of t: pkg.Name for a named type, the Go spelling
// with full import paths for the others.
func (t *typ) String() string {
	if t.pkg != "" {
		return t.pkg + "." + t.name
	}
	switch t.kind {
	case kPointer:
		return "*" + t.elem.String()
	case kSlice:
		return "[]" + t.elem.String()
	case kMap:
		return "map[" + t.key.String() + "]" + t.elem.String()
	case kArray:
		return "[" + t.length + "]" + t.elem.String()
	case kChan:
		return "chan " + t.elem.String()
	case kBuiltin:
		return t.name
	}
	return t.src
}

// namedType returns the named type pkg.name, or the type it names when it
// is a Go alias.
func (u *universe) namedType(pkg, name string) (*typ, error) {
	key := pkg + "." + name
	t, ok := u.named[key]
	if !ok {
		t = &typ{pkg: pkg, name: name}
		u.named[key] = t
	}
	if err := u.declare(t); err != nil {
		return nil, err
	}
	for t.target != nil {
		t = t.target
	}
	return t, nil
}

// declare looks the declaration of a named type up, and the type a Go
// alias names.
func (u *universe) declare(t *typ) error {
	if t.declared || t.pkg == "" {
		return nil
	}
	t.declared = true
	p := u.l.Load(t.pkg, u.dir)
	if p.Err != nil {
		return fmt.Errorf("type %s.%s: %w", t.pkg, t.name, p.Err)
	}
	if t.decl == nil {
		d, err := u.l.Decl(p, t.name)
		if err != nil {
			return err
		}
		if d == nil {
			return fmt.Errorf("type %s.%s: no such type", t.pkg, t.name)
		}
		t.decl = d
	}
	if t.decl.Alias {
		e, err := u.l.ResolveAnyType(t.decl.Expr, t.decl)
		if err != nil {
			return err
		}
		target, err := u.fromExpr(e, t.decl)
		if err != nil {
			return placed(t.decl.Pos, err)
		}
		t.target = target
	}
	return nil
}

// builtin returns the builtin type called name.
func (u *universe) builtin(name string) *typ {
	return u.intern(&typ{kind: kBuiltin, name: name, filled: true})
}

// fromExpr turns a resolved type expression, written in ctx's file, into a
// type.
func (u *universe) fromExpr(e *load.TypeExpr, ctx *load.TypeDecl) (*typ, error) {
	switch e.Kind {
	case load.KindBuiltin:
		switch e.Name {
		case "error":
			return u.intern(&typ{kind: kInterface, src: "error", filled: true}), nil
		case "any":
			return u.intern(&typ{kind: kInterface, src: "interface{}", filled: true}), nil
		}
		return u.builtin(e.Name), nil
	case load.KindNamed:
		return u.namedType(e.Pkg, e.Name)
	case load.KindPointer, load.KindSlice, load.KindArray:
		el, err := u.fromExpr(e.Elem, ctx)
		if err != nil {
			return nil, err
		}
		k := map[load.TypeKind]kind{load.KindPointer: kPointer, load.KindSlice: kSlice, load.KindArray: kArray}[e.Kind]
		return u.intern(&typ{kind: k, elem: el, length: e.Len, filled: true}), nil
	case load.KindMap:
		k, err := u.fromExpr(e.Key, ctx)
		if err != nil {
			return nil, err
		}
		v, err := u.fromExpr(e.Elem, ctx)
		if err != nil {
			return nil, err
		}
		return u.intern(&typ{kind: kMap, key: k, elem: v, filled: true}), nil
	}
	switch x := e.Expr.(type) {
	case *ast.InterfaceType:
		if x.Methods == nil || len(x.Methods.List) == 0 {
			return u.intern(&typ{kind: kInterface, src: "interface{}", filled: true}), nil
		}
		return &typ{kind: kInterface, src: e.Src, filled: true}, nil
	case *ast.StructType:
		t := &typ{kind: kStruct, src: e.Src, filled: true}
		if err := u.structMembers(t, ctx, x); err != nil {
			return nil, err
		}
		return t, nil
	case *ast.FuncType:
		return &typ{kind: kFunc, src: e.Src, filled: true}, nil
	case *ast.ChanType:
		return &typ{kind: kChan, src: e.Src, filled: true}, nil
	}
	return &typ{kind: kOther, src: e.Src, filled: true}, nil
}

// structMembers resolves the members of st, written in ctx's file.
func (u *universe) structMembers(t *typ, ctx *load.TypeDecl, st *ast.StructType) error {
	ms, err := u.l.AllMembers(ctx, st)
	if err != nil {
		return err
	}
	for _, m := range ms {
		mt, err := u.fromExpr(m.Type, ctx)
		if err != nil {
			return placed(m.Pos, err)
		}
		t.members = append(t.members, member{name: m.Name, t: mt, pos: m.Pos, doc: m.Doc})
	}
	return nil
}

// fill reads a named type's shape on first use; it is a no-op for other
// types.
func (u *universe) fill(t *typ) error {
	if t.filled {
		return nil
	}
	t.filled = true
	if err := u.declare(t); err != nil {
		return err
	}
	d := t.decl
	if d.Generic {
		return inputerr.Errorf(d.Pos, "type %s is generic: conversion-gen converts no generic type", d.Name)
	}
	e, err := u.l.ResolveAnyType(d.Expr, d)
	if err != nil {
		return err
	}
	under, err := u.fromExpr(e, d)
	if err != nil {
		return placed(d.Pos, err)
	}
	if under.pkg != "" {
		// Defined from another named type: its underlying type.
		if err := u.fill(under); err != nil {
			return err
		}
		if under.kind == kAlias {
			under = under.underlying
		}
	}
	switch under.kind {
	case kBuiltin, kMap, kSlice:
		t.kind = kAlias
		t.underlying = under
	default:
		t.kind = under.kind
		t.elem, t.key, t.length, t.members, t.src = under.elem, under.key, under.length, under.members, under.src
	}
	return nil
}

// placed returns err as an InputError at pos unless it is one already.
func placed(pos string, err error) error {
	var ie *inputerr.InputError
	if errors.As(err, &ie) {
		return err
	}
	return inputerr.Errorf(pos, "%v", err)
}

// unwrapAlias returns the underlying type of an alias, t otherwise.
func unwrapAlias(t *typ) *typ {
	for t.kind == kAlias {
		t = t.underlying
	}
	return t
}

// isPrimitive reports whether t is a builtin or an alias of one.
func isPrimitive(t *typ) bool {
	return t.kind == kBuiltin || t.kind == kAlias && t.underlying.kind == kBuiltin
}

// isPrivate reports whether a Go name is unexported as gengo tells it: its
// first character is unchanged by lower-casing.
func isPrivate(name string) bool {
	return name == "" || strings.ToLower(name[:1]) == name[:1]
}
