package deepcopy

import (
	"errors"
	"fmt"
	"go/ast"
	"strings"

	"github.com/typedinformer/typedinformer/generators/internal/inputerr"
	"github.com/typedinformer/typedinformer/generators/load"
	"github.com/typedinformer/typedinformer/generators/plan"
	"github.com/typedinformer/typedinformer/generators/targets/universe"
)

// This file writes the deepcopy functions of one package, statement by
// statement as deepcopy-gen writes them (the output stage gofmt's them):
// DeepCopyInto, DeepCopy and the DeepCopy<Interface> methods of each type,
// the copy of each member chosen by its shape and by the DeepCopy and
// DeepCopyInto methods its type has.

// signature is what a hand-written DeepCopy or DeepCopyInto method says.
type signature struct {
	pointerReceiver, pointerResult bool
}

// writer writes the functions of one package.
type writer struct {
	u       *universe.Universe
	Pkg     string // the package's import path
	imports *plan.ImportSet
	b       strings.Builder
	err     error
	// at is the position of the type or member being written, for errors
	// that have none of their own.
	at string
}

// fail keeps the first error, placed at w.at when it has no position.
func (w *writer) fail(err error) {
	if err == nil || w.err != nil {
		return
	}
	var ie *inputerr.InputError
	if !errors.As(err, &ie) {
		err = inputerr.Errorf(w.at, "%v", err)
	}
	w.err = err
}

// f fills t (see universe.fill) and returns it.
func (w *writer) f(t *typ) *typ {
	w.fail(w.u.Fill(t))
	return t
}

func (w *writer) do(s string) { w.b.WriteString(s) }

// raw is the Go spelling of t in the generated file, its package's import
// name taken on first use.
func (w *writer) raw(t *typ) string {
	if t.Pkg != "" {
		if t.Pkg == w.Pkg {
			return t.Name
		}
		return w.importName(t.Pkg) + "." + t.Name
	}
	if s, ok := universe.Composite(t, w.raw); ok {
		return s
	}
	switch t.Kind {
	case universe.Chan:
		return "chan " + w.raw(t.Elem)
	case universe.Struct:
		var elems []string
		for _, m := range t.Members {
			elems = append(elems, m.Name+" "+w.raw(m.Type))
		}
		return "struct{" + strings.Join(elems, "; ") + "}"
	case universe.Interface:
		if t.Src == "interface{}" {
			return "any"
		}
	case universe.Builtin:
		return t.Name
	}
	return t.Src
}

// importName is the name pkg is imported under: the shortest run of its
// last path elements, joined without "_", "." and "-", that no other import
// and not the package's own last element has.
func (w *writer) importName(pkg string) string {
	dirs := strings.Split(pkg, "/")
	var candidates []string
	for n := len(dirs) - 1; n >= 0; n-- {
		name := strings.Join(dirs[n:], "")
		name = strings.NewReplacer("_", "", ".", "", "-", "").Replace(name)
		candidates = append(candidates, name)
	}
	return w.imports.AddFirstFree(pkg, candidates)
}

func isReference(t *typ) bool {
	switch t.Kind {
	case universe.Pointer, universe.Map, universe.Slice:
		return true
	}
	return t.Kind == universe.Alias && isReference(universe.Unwrap(t))
}

// assignable reports whether plain assignment copies t deeply.
func (w *writer) assignable(t *typ) bool { return universe.Assignable(t, w.f) }

// isEmptyInterface reports whether t is interface{} (or any) itself.
func isEmptyInterface(t *typ) bool {
	return t.Pkg == "" && t.Kind == universe.Interface && t.Src == "interface{}"
}

// isTypeName reports whether e names the type called name (unqualified,
// as a method's signature writes its own type).
func isTypeName(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}

func isPointerTo(e ast.Expr, name string) bool {
	star, ok := e.(*ast.StarExpr)
	return ok && isTypeName(star.X, name)
}

// deepCopy returns the signature of t's hand-written DeepCopy, nil when it
// has none; a DeepCopy of another shape is an error.
func (w *writer) deepCopy(t *typ) *signature {
	m := w.handWritten(t, "DeepCopy", 0, 1, func(m *load.Method) string {
		ptrResult, nonPtrResult := isPointerTo(m.Results[0], t.Name), isTypeName(m.Results[0], t.Name)
		switch {
		case !ptrResult && !nonPtrResult:
			return "to return " + t.Name + " or *" + t.Name
		case m.PointerReceiver && !ptrResult:
			return "a *" + t.Name + " result for a *" + t.Name + " receiver"
		case !m.PointerReceiver && !nonPtrResult:
			return "a " + t.Name + " result for a " + t.Name + " receiver"
		}
		return ""
	})
	if m == nil {
		return nil
	}
	return &signature{pointerReceiver: m.PointerReceiver, pointerResult: isPointerTo(m.Results[0], t.Name)}
}

// deepCopyInto returns the signature of t's hand-written DeepCopyInto, nil
// when it has none; a DeepCopyInto of another shape is an error.
func (w *writer) deepCopyInto(t *typ) *signature {
	m := w.handWritten(t, "DeepCopyInto", 1, 0, func(m *load.Method) string {
		if !isPointerTo(m.Params[0], t.Name) {
			return "parameter of type *" + t.Name
		}
		return ""
	})
	if m == nil {
		return nil
	}
	return &signature{pointerReceiver: m.PointerReceiver}
}

// handWritten returns t's hand-written method called name, nil when it has
// none or when its signature is not the one expected: params parameters
// (0 or 1), results results (0 or 1), and what misfit, called once the
// counts fit, says it expected instead ("" when it fits). A misfit is an
// error.
func (w *writer) handWritten(t *typ, name string, params, results int, misfit func(*load.Method) string) *load.Method {
	w.f(t)
	m := t.Methods[name]
	if m == nil {
		return nil
	}
	want := ""
	switch {
	case len(m.Params) != params:
		want = [...]string{"no parameters", "exactly one parameter"}[params]
	case len(m.Results) != results:
		want = [...]string{"no result type", "exactly one result"}[results]
	default:
		want = misfit(m)
	}
	if want != "" {
		w.fail(inputerr.Errorf(m.Pos, "type %v: invalid DeepCopy signature, expected %s", t, want))
		return nil
	}
	return m
}

func (w *writer) hasMethods(t *typ) bool { return w.deepCopy(t) != nil || w.deepCopyInto(t) != nil }

// unsupported records that t cannot be copied as a member of within.
func (w *writer) unsupported(at string, t, within *typ) {
	w.fail(inputerr.Errorf(at, "type %v in %v: deepcopy-gen cannot copy it (a func, a chan or an unnamed interface{} has no deep copy; use a named interface with DeepCopy<Name>, or opt the type out with +k8s:deepcopy-gen=false)", t, within))
}

// writeType writes the functions of t.
func (w *writer) writeType(t *typ, intfs []*typ, nonPointer bool) {
	w.at = t.Pos
	self := w.raw(t)
	dc := w.deepCopy(t)
	if w.deepCopyInto(t) == nil {
		w.do("// DeepCopyInto is an autogenerated deepcopy function, copying the receiver, writing into out. in must be non-nil.\n")
		if isReference(t) {
			w.do("func (in " + self + ") DeepCopyInto(out *" + self + ") {\n")
			w.do("{in:=&in\n")
		} else {
			w.do("func (in *" + self + ") DeepCopyInto(out *" + self + ") {\n")
		}
		if dc != nil {
			if dc.pointerReceiver {
				w.do("clone := in.DeepCopy()\n*out = *clone\n")
			} else {
				w.do("*out = in.DeepCopy()\n")
			}
		} else {
			w.generateFor(t, t.Pos)
		}
		w.do("return\n")
		if isReference(t) {
			w.do("}\n")
		}
		w.do("}\n\n")
	}
	if dc == nil {
		w.do("// DeepCopy is an autogenerated deepcopy function, copying the receiver, creating a new " + self + ".\n")
		if isReference(t) {
			w.do("func (in " + self + ") DeepCopy() " + self + " {\n")
		} else {
			w.do("func (in *" + self + ") DeepCopy() *" + self + " {\n")
		}
		w.do("if in == nil { return nil }\n")
		w.do("out := new(" + self + ")\n")
		w.do("in.DeepCopyInto(out)\n")
		if isReference(t) {
			w.do("return *out\n")
		} else {
			w.do("return out\n")
		}
		w.do("}\n\n")
	}
	for _, intf := range intfs {
		name := intf.Name
		if nonPointer {
			w.do(fmt.Sprintf("// DeepCopy%s is an autogenerated deepcopy function, copying the receiver, creating a new %s.\n", name, w.raw(intf)))
			w.do(fmt.Sprintf("func (in %s) DeepCopy%s() %s {\n", self, name, w.raw(intf)))
			w.do("return *in.DeepCopy()")
			w.do("}\n\n")
		} else {
			w.do(fmt.Sprintf("// DeepCopy%s is an autogenerated deepcopy function, copying the receiver, creating a new %s.\n", name, w.raw(intf)))
			w.do(fmt.Sprintf("func (in *%s) DeepCopy%s() %s {\n", self, name, w.raw(intf)))
			w.do("if c := in.DeepCopy(); c != nil {\nreturn c\n}\nreturn nil\n}\n\n")
		}
	}
}

// generateFor writes the body that copies *in to *out for t (a named type
// or an unnamed one), by the shape of its underlying type.
func (w *writer) generateFor(t *typ, at string) {
	w.f(t)
	switch universe.Unwrap(t).Kind {
	case universe.Builtin:
		w.doBuiltin(t)
	case universe.Map:
		w.doMap(t, at)
	case universe.Slice:
		w.doSlice(t, at)
	case universe.Struct:
		w.doStruct(t)
	case universe.Pointer:
		w.doPointer(t, at)
	default:
		w.unsupported(at, t, t)
	}
}

func (w *writer) doBuiltin(t *typ) {
	if w.hasMethods(t) {
		w.do("*out = in.DeepCopy()\n")
		return
	}
	w.do("*out = *in\n")
}

// rightPointer reports whether the DeepCopy of t (hand-written or, beside a
// hand-written DeepCopyInto, generated) returns a pointer.
func (w *writer) rightPointer(t *typ) bool {
	if dc := w.deepCopy(t); dc != nil {
		return dc.pointerResult
	}
	return !isReference(t)
}

func (w *writer) doMap(t *typ, at string) {
	ut, elem, uet := w.elemOf(t)
	if w.copiedByMethod(t) {
		return
	}
	if !w.assignable(ut.Key) {
		w.unsupported(at, ut.Key, t)
		return
	}
	w.do("*out = make(" + w.raw(t) + ", len(*in))\n")
	w.do("for key, val := range *in {\n")
	switch {
	case w.hasMethods(elem):
		left, right := elem.Kind == universe.Pointer, w.rightPointer(elem)
		switch {
		case left == right:
			w.do("(*out)[key] = val.DeepCopy()\n")
		case left:
			w.do("x := val.DeepCopy()\n(*out)[key] = &x\n")
		default:
			w.do("(*out)[key] = *val.DeepCopy()\n")
		}
	case isAnonymousStruct(elem), w.assignable(uet):
		w.do("(*out)[key] = val\n")
	case uet.Kind == universe.Interface:
		copier, ok := w.interfaceCopier(at, uet, t)
		if !ok {
			return
		}
		w.do("if val == nil {(*out)[key]=nil} else {\n(*out)[key] = val." + copier + "()\n}\n")
	case isReference(uet):
		w.do("var outVal " + w.raw(uet) + "\n")
		w.do("if val == nil { (*out)[key] = nil } else {\n")
		w.do("in, out := &val, &outVal\n")
		w.generateFor(elem, at)
		w.do("}\n")
		w.do("(*out)[key] = outVal\n")
	case uet.Kind == universe.Struct:
		w.do("(*out)[key] = *val.DeepCopy()\n")
	default:
		w.unsupported(at, uet, t)
		return
	}
	w.do("}\n")
}

// interfaceCopier is the method that copies a value of the interface
// type it, a member or element of t at at: DeepCopy<Name>. The empty
// interface has none, which is an error.
func (w *writer) interfaceCopier(at string, it, t *typ) (string, bool) {
	if isEmptyInterface(it) {
		w.unsupported(at, it, t)
		return "", false
	}
	return "DeepCopy" + it.Name, true
}

// elemOf returns the underlying type of t (a map, slice or pointer), its
// element type, filled, and the element's underlying type.
func (w *writer) elemOf(t *typ) (ut, elem, uet *typ) {
	ut = universe.Unwrap(t)
	elem = w.f(ut.Elem)
	return ut, elem, universe.Unwrap(elem)
}

// copiedByMethod writes the copy of t by its own DeepCopy when t has
// hand-written deepcopy methods, and reports whether it did.
func (w *writer) copiedByMethod(t *typ) bool {
	if !w.hasMethods(t) {
		return false
	}
	w.do("*out = in.DeepCopy()\n")
	return true
}

func isAnonymousStruct(t *typ) bool {
	return t.Kind == universe.Struct && t.Pkg == "" || t.Kind == universe.Alias && isAnonymousStruct(t.Underlying)
}

func (w *writer) doSlice(t *typ, at string) {
	_, elem, uet := w.elemOf(t)
	if w.copiedByMethod(t) {
		return
	}
	w.do("*out = make(" + w.raw(t) + ", len(*in))\n")
	switch {
	case w.hasMethods(elem):
		w.do("for i := range *in {\n(*in)[i].DeepCopyInto(&(*out)[i])\n}\n")
		return
	case uet.Kind == universe.Builtin || w.assignable(uet):
		w.do("copy(*out, *in)\n")
		return
	}
	w.do("for i := range *in {\n")
	switch uet.Kind {
	case universe.Slice, universe.Map, universe.Pointer:
		w.do("if (*in)[i] != nil {\n")
		w.do("in, out := &(*in)[i], &(*out)[i]\n")
		w.generateFor(elem, at)
		w.do("}\n")
	case universe.Interface:
		copier, ok := w.interfaceCopier(at, uet, t)
		if !ok {
			return
		}
		w.do("if (*in)[i] != nil {\n(*out)[i] = (*in)[i]." + copier + "()\n}\n")
	case universe.Struct:
		w.do("(*in)[i].DeepCopyInto(&(*out)[i])\n")
	default:
		w.unsupported(at, uet, t)
		return
	}
	w.do("}\n")
}

func (w *writer) doStruct(t *typ) {
	ut := universe.Unwrap(t)
	if w.hasMethods(t) {
		w.do("*out = in.DeepCopy()\n")
		return
	}
	w.do("*out = *in\n")
	for _, m := range ut.Members {
		w.at = m.Pos
		ft := w.f(m.Type)
		uft := w.f(universe.Unwrap(ft))
		switch {
		case w.hasMethods(ft):
			left, right := ft.Kind == universe.Pointer, w.rightPointer(ft)
			switch {
			case left == right:
				w.do("out." + m.Name + " = in." + m.Name + ".DeepCopy()\n")
			case left:
				w.fail(inputerr.Errorf(m.Pos, "member %s of %v: deepcopy-gen writes no compilable copy of a pointer member whose type's DeepCopy returns a value", m.Name, t))
				return
			default:
				w.do("in." + m.Name + ".DeepCopyInto(&out." + m.Name + ")\n")
			}
		case uft.Kind == universe.Builtin:
		case isReference(uft):
			w.do("if in." + m.Name + " != nil {\n")
			w.do("in, out := &in." + m.Name + ", &out." + m.Name + "\n")
			w.generateFor(ft, m.Pos)
			w.do("}\n")
		case uft.Kind == universe.Array:
			w.do("out." + m.Name + " = in." + m.Name + "\n")
		case uft.Kind == universe.Struct:
			if w.assignable(ft) {
				w.do("out." + m.Name + " = in." + m.Name + "\n")
			} else {
				w.do("in." + m.Name + ".DeepCopyInto(&out." + m.Name + ")\n")
			}
		case uft.Kind == universe.Interface:
			copier, ok := w.interfaceCopier(m.Pos, uft, t)
			if !ok {
				return
			}
			w.do("if in." + m.Name + " != nil {\nout." + m.Name + " = in." + m.Name + "." + copier + "()\n}\n")
		default:
			w.unsupported(m.Pos, ft, t)
			return
		}
	}
}

func (w *writer) doPointer(t *typ, at string) {
	_, elem, uet := w.elemOf(t)
	switch {
	case w.hasMethods(elem):
		if w.rightPointer(elem) {
			w.do("*out = (*in).DeepCopy()\n")
		} else {
			w.do("x := (*in).DeepCopy()\n*out = &x\n")
		}
	case w.assignable(uet):
		w.do("*out = new(" + w.raw(elem) + ")\n")
		w.do("**out = **in")
	case isReference(uet):
		w.do("*out = new(" + w.raw(elem) + ")\n")
		w.do("if **in != nil {\n")
		w.do("in, out := *in, *out\n")
		w.generateFor(uet, at)
		w.do("}\n")
	case uet.Kind == universe.Struct:
		w.do("*out = new(" + w.raw(elem) + ")\n")
		w.do("(*in).DeepCopyInto(*out)\n")
	default:
		w.unsupported(at, uet, t)
	}
}
