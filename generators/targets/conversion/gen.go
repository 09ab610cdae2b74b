package conversion

import (
	"fmt"
	"strings"

	"github.com/typedinformer/typedinformer/generators/internal/inputerr"
	"github.com/typedinformer/typedinformer/generators/plan"
	"github.com/typedinformer/typedinformer/generators/targets/universe"
)

// This file writes the conversion functions of one package, statement by
// statement as conversion-gen writes them (the output stage gofmt's them):
// for each type with a peer, autoConvert functions both ways and the
// Convert functions that call them, each member converted by assignment,
// an unsafe cast when the layouts are equal, a hand-written function, or
// the Convert function of its own type.

const (
	conversionPkg = "k8s.io/apimachinery/pkg/conversion"
	runtimePkg    = "k8s.io/apimachinery/pkg/runtime"
)

// writer writes the file of one package.
type writer struct {
	*converter
	// pkg is the package written into; typesPkg the package the types are
	// declared in.
	Pkg, typesPkg string
	peers         []string
	imports       *plan.ImportSet
	b             strings.Builder
	// types are the types converted to and from their peers, in order.
	types  []*typ
	peerOf map[*typ]*typ
	// from are the types each type converts from by
	// +k8s:conversion-gen:explicit-from; order holds the types with a peer
	// or such a tag, in the order their functions are written.
	from  map[*typ][]*typ
	order []*typ
	// skipped are the members of a type no code was written for.
	skipped map[*typ][]string
	// missing are the conversions the generated code needs and nothing
	// provides: conversion-gen writes code that does not compile there.
	missing []error
	// at is the position of the member being written.
	at string
}

func (w *writer) do(s string) { w.b.WriteString(s) }

// importName is the name pkg is imported under: the shortest run of its
// last path elements, joined without "_", "." and "-", that no other import
// and not the package's own last element has.
func (w *writer) importName(pkg string) string {
	dirs := strings.Split(pkg, "/")
	var candidates []string
	for n := len(dirs) - 1; n >= 0; n-- {
		name := strings.NewReplacer("_", "", ".", "", "-", "").Replace(strings.Join(dirs[n:], ""))
		candidates = append(candidates, name)
	}
	return w.imports.AddFirstFree(pkg, candidates)
}

// raw is the Go spelling of t in the generated file, its package's import
// name taken on first use.
func (w *writer) raw(t *typ) string {
	if t.Pkg != "" {
		return w.qualified(t.Pkg, t.Name)
	}
	if s, ok := universe.Composite(t, w.raw); ok {
		return s
	}
	if t.Kind == universe.Builtin {
		return t.Name
	}
	return t.Src
}

// qualified spells pkg.name in the generated file.
func (w *writer) qualified(pkg, name string) string {
	if pkg == w.Pkg {
		return name
	}
	return w.importName(pkg) + "." + name
}

// track imports t's package, as naming a type in a function name does.
func (w *writer) track(t *typ) {
	if t.Pkg != "" && t.Pkg != w.Pkg {
		w.importName(t.Pkg)
	}
}

// publicName is gengo's public name of t with one package element:
// "v1_ObjectMeta", "Pointer_int32", "Map_string_To_string".
func publicName(t *typ) string {
	if t.Pkg != "" {
		dirs := strings.Split(t.Pkg, "/")
		last := strings.NewReplacer("-", "_", ".", "").Replace(dirs[len(dirs)-1])
		return last + "_" + t.Name
	}
	switch t.Kind {
	case universe.Builtin:
		return t.Name
	case universe.Map:
		return "Map_" + publicName(t.Key) + "_To_" + publicName(t.Elem)
	case universe.Slice:
		return "Slice_" + publicName(t.Elem)
	case universe.Array:
		return "Array_" + t.Len + "_" + publicName(t.Elem)
	case universe.Pointer:
		return "Pointer_" + publicName(t.Elem)
	case universe.Chan:
		return "Chan_" + publicName(t.Elem)
	case universe.Struct:
		parts := []string{"Struct"}
		for _, m := range t.Members {
			parts = append(parts, publicName(m.Type))
		}
		return strings.Join(parts, "_")
	case universe.Interface:
		return "Interface"
	}
	return "unnameable"
}

// funcName is the name of the conversion function from in to out.
func funcName(in, out *typ) string {
	return "Convert_" + publicName(in) + "_To_" + publicName(out)
}

// convertName is funcName with both types' packages imported.
func (w *writer) convertName(in, out *typ) string {
	w.track(in)
	w.track(out)
	return funcName(in, out)
}

// fnRef spells a hand-written function in the generated file.
func (w *writer) fnRef(fn *manualFunc) string { return w.qualified(fn.Pkg, fn.Name) }

func (w *writer) preexists(in, out *typ) *manualFunc { return w.manual[pair{in, out}] }

func (w *writer) preexistsPointers(in, out *typ) *manualFunc {
	if in.Kind != universe.Pointer || out.Kind != universe.Pointer {
		return nil
	}
	return w.preexists(in.Elem, out.Elem)
}

// convertibleWithinPackage reports whether the conversion function between
// in and out (one of them declared in the types package) is one this run
// writes: the types package's one is a struct not opted out, the other
// exported.
func (w *writer) convertibleWithinPackage(in, out *typ) bool {
	w.f(in)
	w.f(out)
	t, other := in, out
	if in.Pkg != w.typesPkg {
		t, other = out, in
	}
	if t.Pkg != w.typesPkg {
		return false
	}
	w.f(t)
	if t.Decl != nil {
		off, err := optedOut(t.Decl.Tags, "type "+t.Name, true)
		w.fail(err)
		if off {
			return false
		}
	}
	return t.Kind == universe.Struct && !isPrivate(other.Name)
}

// isAssignable reports whether plain assignment copies t: a primitive, or
// a struct of assignable members.
func (w *writer) isAssignable(t *typ) bool { return universe.Assignable(t, w.f) }

// directlyAssignable is conversion-gen's test for element types: in is
// assignable and either primitive or in the same package as out.
func (w *writer) directlyAssignable(in, out *typ) bool {
	return w.isAssignable(in) && (universe.IsPrimitive(in) || in.Pkg == out.Pkg)
}

// sameUnderlying is conversion-gen's test for member types: the same type
// once aliases are unwrapped.
func (w *writer) sameUnderlying(in, out *typ) bool {
	return universe.Unwrap(w.f(in)) == universe.Unwrap(w.f(out))
}

// noConversion records that the generated code calls a conversion from in
// to out that nothing provides, at pos.
func (w *writer) noConversion(pos string, in, out *typ) {
	w.do("// FIXME: Provide conversion function to convert " + w.raw(in) + " to " + w.raw(out) + "\n")
	w.do("compileErrorOnMissingConversion()\n")
	w.missing = append(w.missing, inputerr.Errorf(pos, "no conversion from %v to %v: write %s by hand (conversion-gen writes a call that does not compile)", in, out, funcName(in, out)))
}

// writeRegister writes init and RegisterConversions.
func (w *writer) writeRegister() {
	w.do("func init() {\nlocalSchemeBuilder.Register(RegisterConversions)\n}\n")
	w.do("// RegisterConversions adds conversion functions to the given scheme.\n")
	w.do("// Public to allow building arbitrary schemes.\n")
	w.do("func RegisterConversions(s *" + w.qualified(runtimePkg, "Scheme") + ") error {\n")
	add := func(in, out *typ) {
		scope := w.qualified(conversionPkg, "Scope")
		ri, ro := w.raw(in), w.raw(out)
		w.do(fmt.Sprintf("if err := s.AddGeneratedConversionFunc((*%s)(nil), (*%s)(nil), func(a, b interface{}, scope %s) error { return %s(a.(*%s), b.(*%s), scope) }); err != nil { return err }\n",
			ri, ro, scope, w.convertName(in, out), ri, ro))
	}
	for _, t := range w.types {
		peer := w.peerOf[t]
		if w.preexists(t, peer) == nil {
			add(t, peer)
		}
		if w.preexists(peer, t) == nil {
			add(peer, t)
		}
	}
	for _, t := range w.order {
		for _, src := range w.from[t] {
			add(src, t)
		}
	}
	type own struct {
		p  pair
		fn *manualFunc
	}
	var owns []own
	for p, fn := range w.manual {
		if fn.Pkg == w.Pkg {
			owns = append(owns, own{p, fn})
		}
	}
	sortBy(owns, func(o own) string { return o.fn.Name })
	for _, o := range owns {
		scope := w.qualified(conversionPkg, "Scope")
		ri, ro := w.raw(o.p.in), w.raw(o.p.out)
		w.do(fmt.Sprintf("if err := s.AddConversionFunc((*%s)(nil), (*%s)(nil), func(a, b interface{}, scope %s) error { return %s(a.(*%s), b.(*%s), scope) }); err != nil { return err }\n",
			ri, ro, scope, w.fnRef(o.fn), ri, ro))
	}
	w.do("return nil\n}\n\n")
}

// writeConversion writes autoConvert from in to out and, unless a
// hand-written Convert function exists, the Convert function.
func (w *writer) writeConversion(in, out *typ) {
	scope := w.qualified(conversionPkg, "Scope")
	name := w.convertName(in, out)
	w.do("func auto" + name + "(in *" + w.raw(in) + ", out *" + w.raw(out) + ", s " + scope + ") error {\n")
	w.generateFor(in, out)
	w.do("return nil\n}\n\n")
	switch {
	case w.preexists(in, out) != nil:
	case len(w.skipped[in]) > 0:
		pos := ""
		if in.Decl != nil {
			pos = in.Decl.Pos
		}
		w.missing = append(w.missing, inputerr.Errorf(pos, "%v: members %s require manual conversion to %v (see the WARNING comments in autoConvert): write %s by hand (conversion-gen leaves it out, and the code calling it does not compile)",
			in, strings.Join(w.skipped[in], ", "), out, name))
	default:
		w.do("// " + name + " is an autogenerated conversion function.\n")
		w.do("func " + name + "(in *" + w.raw(in) + ", out *" + w.raw(out) + ", s " + scope + ") error {\n")
		w.do("return auto" + name + "(in, out, s)\n}\n\n")
	}
}

// generateFor writes the statements converting *in to *out by in's shape.
func (w *writer) generateFor(in, out *typ) {
	w.f(out)
	switch w.f(in).Kind {
	case universe.Builtin:
		if in == out {
			w.do("*out = *in\n")
		} else {
			w.do("*out = " + w.raw(out) + "(*in)\n")
		}
	case universe.Map:
		w.doMap(in, out)
	case universe.Slice:
		w.doSlice(in, out)
	case universe.Struct:
		w.doStruct(in, out)
	case universe.Pointer:
		w.doPointer(in, out)
	default:
		w.do("// FIXME: Type " + w.raw(in) + " is unsupported.\n")
		pos := ""
		if in.Decl != nil {
			pos = in.Decl.Pos
		}
		w.missing = append(w.missing, inputerr.Errorf(pos, "type %v: conversion-gen cannot convert it", in))
	}
}

// elemCall writes the call converting one element (map value, slice
// element, pointee) from in to out; it reports false when there is none.
// args are the call's arguments.
func (w *writer) elemCall(in, out *typ, args, pos string) bool {
	switch fn := w.preexists(in, out); {
	case fn != nil:
		w.do("if err := " + w.fnRef(fn) + "(" + args + ", s); err != nil {\n")
	case w.convertibleWithinPackage(in, out):
		w.do("if err := " + w.convertName(in, out) + "(" + args + ", s); err != nil {\n")
	default:
		w.noConversion(pos, in, out)
		return false
	}
	return true
}

func (w *writer) doMap(in, out *typ) {
	w.do("*out = make(" + w.raw(out) + ", len(*in))\n")
	if !w.directlyAssignable(in.Key, out.Key) {
		w.do("for range *in {\n")
		w.do("// FIXME: Converting unassignable keys unsupported " + w.raw(in.Key) + "\n")
		w.do("}\n")
		w.missing = append(w.missing, inputerr.Errorf(w.at, "map key %v: conversion-gen cannot convert it to %v", in.Key, out.Key))
		return
	}
	w.do("for key, val := range *in {\n")
	key := "key"
	if in.Key != out.Key {
		key = w.raw(out.Key) + "(key)"
	}
	if w.directlyAssignable(in.Elem, out.Elem) {
		if in.Elem == out.Elem {
			w.do("(*out)[" + key + "] = val\n")
		} else {
			w.do("(*out)[" + key + "] = " + w.raw(out.Elem) + "(val)\n")
		}
		w.do("}\n")
		return
	}
	if w.convertElem(in.Elem, out.Elem, "val", "newVal", "*newVal", true) {
		w.do("(*out)[" + key + "] = *newVal\n")
	}
	w.do("}\n")
}

// convertElem writes the conversion of one map value or slice element,
// src, from in to out, as conversion-gen does: by a function converting in
// to out, or, for pointers, one converting their pointees (the nil
// pointer left nil), or by the one this file generates; it reports false
// when there is none. dst points to the converted element and dstElem is
// *dst; with declare, dst is declared (as a new out) before the call.
func (w *writer) convertElem(in, out *typ, src, dst, dstElem string, declare bool) bool {
	prelude := func() {
		if declare {
			w.do(dst + " := new(" + w.raw(out) + ")\n")
		}
	}
	conditional := false
	if fn := w.preexists(in, out); fn != nil {
		prelude()
		w.do("if err := " + w.fnRef(fn) + "(&" + src + ", " + dst + ", s); err != nil {\n")
	} else if fn := w.preexistsPointers(in, out); fn != nil {
		prelude()
		w.do("if " + src + " != nil {\n")
		w.do(dstElem + " = new(" + w.raw(out.Elem) + ")\n")
		w.do("if err := " + w.fnRef(fn) + "(" + src + ", " + dstElem + ", s); err != nil {\n")
		conditional = true
	} else if w.convertibleWithinPackage(in, out) {
		prelude()
		w.do("if err := " + w.convertName(in, out) + "(&" + src + ", " + dst + ", s); err != nil {\n")
	} else {
		w.noConversion(w.at, in, out)
		return false
	}
	w.do("return err\n}\n")
	if conditional {
		w.do("}\n")
	}
	return true
}

func (w *writer) doSlice(in, out *typ) {
	w.do("*out = make(" + w.raw(out) + ", len(*in))\n")
	if in.Elem == out.Elem && in.Elem.Kind == universe.Builtin {
		w.do("copy(*out, *in)\n")
		return
	}
	w.do("for i := range *in {\n")
	switch {
	case w.directlyAssignable(in.Elem, out.Elem):
		if in.Elem == out.Elem {
			w.do("(*out)[i] = (*in)[i]\n")
		} else {
			w.do("(*out)[i] = " + w.raw(out.Elem) + "((*in)[i])\n")
		}
	default:
		w.convertElem(in.Elem, out.Elem, "(*in)[i]", "&(*out)[i]", "(*out)[i]", false)
	}
	w.do("}\n")
}

func (w *writer) doPointer(in, out *typ) {
	w.do("*out = new(" + w.raw(out.Elem) + ")\n")
	if w.directlyAssignable(in.Elem, out.Elem) {
		if in.Elem == out.Elem {
			w.do("**out = **in\n")
		} else {
			w.do("**out = " + w.raw(out.Elem) + "(**in)\n")
		}
		return
	}
	if w.elemCall(in.Elem, out.Elem, "*in, *out", w.at) {
		w.do("return err\n}\n")
	}
}

// findMember returns t's member called name.
func findMember(t *typ, name string) (member, bool) {
	if t.Kind != universe.Struct {
		return member{}, false
	}
	for _, m := range t.Members {
		if m.Name == name {
			return m, true
		}
	}
	return member{}, false
}

// withAliasName returns t's underlying type under t's name when t is an
// alias (so that it is spelled, and compared by name, as t), t otherwise.
func withAliasName(t *typ) *typ {
	under := universe.Unwrap(t)
	if under == t {
		return t
	}
	cp := *under
	cp.Pkg, cp.Name, cp.Decl = t.Pkg, t.Name, t.Decl
	return &cp
}

// memoryCopyable reports whether a whole struct converts by one unsafe
// cast: equal layouts, every member present on both sides, readable and
// settable, not opted out, and without a hand-written conversion other
// than a copy-only one.
func (w *writer) memoryCopyable(in, out *typ) bool {
	w.f(in)
	w.f(out)
	if !w.memoryEqual(in, out) {
		return false
	}
	for _, m := range in.Members {
		off, err := optedOut(memberLines(m), "", false)
		w.fail(err)
		if off {
			return false
		}
		om, ok := findMember(out, m.Name)
		if !ok {
			return false
		}
		if isPrivate(m.Name) && w.Pkg != in.Pkg || isPrivate(om.Name) && w.Pkg != out.Pkg {
			return false
		}
		if fn := w.preexists(m.Type, om.Type); fn != nil && !fn.copyOnly {
			return false
		}
	}
	return true
}

// fastConversion reports whether a copy-only function between in and out
// may be replaced by assignment.
func (w *writer) fastConversion(in, out *typ) bool {
	switch in.Kind {
	case universe.Builtin:
		return true
	case universe.Map, universe.Slice, universe.Pointer, universe.Struct, universe.Alias:
		return w.sameUnderlying(in, out)
	}
	return false
}

func (w *writer) doStruct(in, out *typ) {
	if w.memoryCopyable(in, out) {
		w.do("*out = *(*" + w.raw(out) + ")(" + w.qualified("unsafe", "Pointer") + "(in))\n")
		return
	}
	for _, m := range in.Members {
		w.at = m.Pos
		off, err := optedOut(memberLines(m), "", false)
		w.fail(err)
		if off {
			w.do("// INFO: in." + m.Name + " opted out of conversion generation\n")
			continue
		}
		om, found := findMember(out, m.Name)
		if !found {
			w.do("// WARNING: in." + m.Name + " requires manual conversion: does not exist in peer-type\n")
			w.skipped[in] = append(w.skipped[in], m.Name)
			continue
		}
		if isPrivate(m.Name) && w.Pkg != in.Pkg {
			w.do("// WARNING: in." + m.Name + " is not exported and cannot be read\n")
			w.skipped[in] = append(w.skipped[in], m.Name)
			continue
		}
		if isPrivate(om.Name) && w.Pkg != out.Pkg {
			w.do("// WARNING: out." + m.Name + " is not exported and cannot be set\n")
			w.skipped[in] = append(w.skipped[in], m.Name)
			continue
		}
		mi, mo := withAliasName(w.f(m.Type)), withAliasName(w.f(om.Type))
		name := m.Name
		if w.memoryEqual(mi, mo) {
			switch mi.Kind {
			case universe.Pointer:
				w.do("out." + name + " = (" + w.raw(mo) + ")(" + w.qualified("unsafe", "Pointer") + "(in." + name + "))\n")
				continue
			case universe.Map, universe.Slice:
				w.do("out." + name + " = *(*" + w.raw(mo) + ")(" + w.qualified("unsafe", "Pointer") + "(&in." + name + "))\n")
				continue
			}
		}
		if fn := w.preexists(m.Type, om.Type); fn != nil {
			if fn.drop {
				continue
			}
			if !fn.copyOnly || !w.fastConversion(mi, mo) {
				w.do("if err := " + w.fnRef(fn) + "(&in." + name + ", &out." + name + ", s); err != nil {\nreturn err\n}\n")
				continue
			}
		}
		if mi.Kind != mo.Kind {
			w.do("// WARNING: in." + name + " requires manual conversion: inconvertible types (" + mi.String() + " vs " + mo.String() + ")\n")
			w.skipped[in] = append(w.skipped[in], name)
			continue
		}
		switch mi.Kind {
		case universe.Builtin:
			if mi == mo {
				w.do("out." + name + " = in." + name + "\n")
			} else {
				w.do("out." + name + " = " + w.raw(mo) + "(in." + name + ")\n")
			}
		case universe.Map, universe.Slice, universe.Pointer:
			if w.sameUnderlying(mi, mo) {
				w.do("out." + name + " = in." + name + "\n")
				continue
			}
			w.do("if in." + name + " != nil {\n")
			w.do("in, out := &in." + name + ", &out." + name + "\n")
			w.generateFor(mi, mo)
			w.do("} else {\n")
			w.do("out." + name + " = nil\n")
			w.do("}\n")
		case universe.Struct:
			if w.sameUnderlying(mi, mo) {
				w.do("out." + name + " = in." + name + "\n")
				continue
			}
			w.memberCall(mi, mo, name)
		default:
			w.memberCall(mi, mo, name)
		}
	}
}

// memberCall writes the call of the Convert function of a member's types,
// or the FIXME conversion-gen writes when there is none.
func (w *writer) memberCall(in, out *typ, name string) {
	if w.convertibleWithinPackage(in, out) {
		w.do("if err := " + w.convertName(in, out) + "(&in." + name + ", &out." + name + ", s); err != nil {\nreturn err\n}\n")
		return
	}
	w.noConversion(w.at, in, out)
}
