package universe

import (
	"context"
	"go/build"
	"strings"
	"testing"

	"github.com/typedinformer/typedinformer/generators/load"
	"github.com/typedinformer/typedinformer/internal/testutil"
)

// deepcopyRules and conversionRules are the two upstream readings of types.
var (
	deepcopyRules   = Options{Tool: "deepcopy-gen", Verb: "copies", ReadMethods: true, RefuseUnsupported: true}
	conversionRules = Options{Tool: "conversion-gen", Verb: "converts", OnePerSpelling: true, ResolveAliasesWhenNamed: true}
)

const typesSrc = `package p

// S has members of every sameness rule.
type S struct {
	A []byte
	B []uint8
	E1 error
	E2 error
	C chan int
	F func()
}

// Alias is S under another name.
type Alias = S

// Bytes is an alias of a slice.
type Bytes []byte

// G is generic.
type G[T any] struct{ V T }

// DeepCopy is written by hand.
func (in *S) DeepCopy() *S { return in }
`

// TestRules: the options of the two upstream readings each change what
// they say they change, on one package read through a real Loader.
func TestRules(t *testing.T) {
	dir := t.TempDir()
	testutil.WriteFiles(t, dir, map[string]string{"go.mod": "module example.com/u\n\ngo 1.26\n", "p/types.go": typesSrc})
	ctx := context.Background()
	pkgs, err := load.ResolvePatterns(ctx, &build.Default, dir, []string{"./p"})
	if err != nil {
		t.Fatal(err)
	}
	_, declared, err := load.ReadInputs(ctx, pkgs, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		o    Options
		// sameSlices: []byte and []uint8 are one *Type, spelled []byte;
		// sameError: two uses of error are one *Type; aliasIsS: Alias is
		// S's *Type when named; methods: S's DeepCopy is read.
		sameSlices, sameError, aliasIsS, methods bool
		generic                                  string
	}{
		{"deepcopy-gen", deepcopyRules, true, false, false, true, "type G is generic: deepcopy-gen copies no generic type"},
		{"conversion-gen", conversionRules, false, true, true, false, "type G is generic: conversion-gen converts no generic type"},
	} {
		t.Run(c.name, func(t *testing.T) {
			u := New(load.NewLoader(ctx, &build.Default, dir, pkgs, declared), dir, c.o)
			s, err := u.Named("example.com/u/p", "S")
			if err != nil {
				t.Fatal(err)
			}
			if err := u.Fill(s); err != nil {
				t.Fatal(err)
			}
			if s.Kind != Struct || len(s.Members) != 6 {
				t.Fatalf("S: kind %v, %d members", s.Kind, len(s.Members))
			}
			m := map[string]*Type{}
			for _, mem := range s.Members {
				m[mem.Name] = mem.Type
			}
			if got := m["A"] == m["B"]; got != c.sameSlices {
				t.Errorf("[]byte and []uint8 one type: %v, want %v", got, c.sameSlices)
			}
			if got := m["B"].String(); got != map[bool]string{true: "[]byte", false: "[]uint8"}[c.sameSlices] {
				t.Errorf("B spelled %s", got)
			}
			if got := m["E1"] == m["E2"]; got != c.sameError {
				t.Errorf("two errors one type: %v, want %v", got, c.sameError)
			}
			if m["C"].Kind != Chan || m["F"].Kind != Func || m["F"].String() != "func()" {
				t.Errorf("chan %v, func %v %q", m["C"].Kind, m["F"].Kind, m["F"].String())
			}
			a, err := u.Named("example.com/u/p", "Alias")
			if err != nil {
				t.Fatal(err)
			}
			if got := a == s; got != c.aliasIsS {
				t.Errorf("Alias is S's type: %v, want %v", got, c.aliasIsS)
			}
			if err := u.Fill(a); err != nil || a.Kind != Struct || len(a.Members) != 6 {
				t.Errorf("Alias filled: kind %v, %d members, %v", a.Kind, len(a.Members), err)
			}
			if got := s.Methods["DeepCopy"] != nil; got != c.methods {
				t.Errorf("DeepCopy read: %v, want %v", got, c.methods)
			}
			b, _ := u.Named("example.com/u/p", "Bytes")
			if err := u.Fill(b); err != nil || b.Kind != Alias || b.Underlying.Kind != Slice || IsPrimitive(b) {
				t.Errorf("Bytes: kind %v, %v", b.Kind, err)
			}
			g, _ := u.Named("example.com/u/p", "G")
			if err := u.Fill(g); err == nil || !strings.HasSuffix(err.Error(), c.generic) {
				t.Errorf("G: %v, want %q", err, c.generic)
			}
		})
	}
}
