package defaulter

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/typedinformer/typedinformer/generators/plan"
)

// writer writes the functions of one output package.
type writer struct {
	pkg     string
	imports *plan.ImportSet
	b       strings.Builder
}

// importName is the name pkg is imported under: the shortest run of its
// last path elements, joined without "_", "." and "-", that no other import
// and not the output package's own last element has.
func (w *writer) importName(pkg string) string {
	dirs := strings.Split(pkg, "/")
	candidates := make([]string, 0, len(dirs))
	for n := len(dirs) - 1; n >= 0; n-- {
		name := strings.NewReplacer("_", "", ".", "", "-", "").Replace(strings.Join(dirs[n:], ""))
		candidates = append(candidates, name)
	}
	return w.imports.AddFirstFree(pkg, candidates)
}

// qualified names pkg.name as written in the output package.
func (w *writer) qualified(pkg, name string) string {
	if pkg == "" || pkg == w.pkg {
		return name
	}
	return w.importName(pkg) + "." + name
}

// raw spells t in the output package.
func (w *writer) raw(t *typ) string {
	switch {
	case t.kind == kBuiltin:
		return t.name
	case t.named():
		return w.qualified(t.pkg, t.name)
	}
	switch t.kind {
	case kPointer:
		return "*" + w.raw(t.elem)
	case kSlice:
		return "[]" + w.raw(t.elem)
	case kMap:
		return "map[" + w.raw(t.key) + "]" + w.raw(t.elem)
	}
	return "interface{}"
}

func (w *writer) line(format string, args ...any) {
	fmt.Fprintf(&w.b, format+"\n", args...)
}

// registerDefaults writes RegisterDefaults over the types, in order.
func (w *writer) registerDefaults(types []*typ) {
	scheme := w.qualified("k8s.io/apimachinery/pkg/runtime", "Scheme")
	w.line("// RegisterDefaults adds defaulters functions to the given scheme.")
	w.line("// Public to allow building arbitrary schemes.")
	w.line("// All generated defaulters are covering - they call all nested defaulters.")
	w.line("func RegisterDefaults(scheme *%s) error {", scheme)
	for _, t := range types {
		r := w.raw(t)
		w.line("scheme.AddTypeDefaultingFunc(&%s{}, func(obj interface{}) { %s%s(obj.(*%s)) })", r, objectFnPrefix, t.name, r)
	}
	w.line("return nil")
	w.line("}")
	w.line("")
}

// objectDefaulter writes SetObjectDefaults_<Type> from t's call tree.
func (w *writer) objectDefaulter(t *typ, tree *node) {
	tree.visit(func(n *node) {
		if n.dflt.isRef {
			pkg := ""
			if n.dflt.refPkg != "" && n.dflt.refPkg != w.pkg {
				pkg = w.importName(n.dflt.refPkg)
			}
			n.dflt.resolved = n.dflt.refName
			if pkg != "" {
				n.dflt.resolved = pkg + "." + n.dflt.refName
			}
		}
	})
	w.line("func %s%s(in *%s) {", objectFnPrefix, t.name, w.raw(t))
	w.method(tree, "in", 0, nil)
	w.line("}")
	w.line("")
}

func (n *node) visit(f func(*node)) {
	f(n)
	for i := range n.children {
		n.children[i].visit(f)
	}
}

// varsForDepth are the loop index and local variable of a nesting depth.
func varsForDepth(depth int) (index, local string) {
	const indexVars, localVars = "ijklmnop", "abcdefgh"
	if depth < len(indexVars) {
		return indexVars[depth : depth+1], localVars[depth : depth+1]
	}
	return "i" + strconv.Itoa(depth), "local" + strconv.Itoa(depth)
}

// method writes the statements of n, reached as v: a nil check for a
// pointer, a loop over a slice's or map's values, the defaults set and the
// functions called, then n's children.
func (w *writer) method(n *node, v string, depth int, ancestors []*node) {
	if n.field != "" {
		v += "." + n.field
	}
	index, local := varsForDepth(depth)
	isPointer := n.elem && !n.index
	check := isPointer && len(ancestors) > 0
	if check {
		w.line("if %s != nil {", v)
	}
	switch {
	case n.index:
		w.line("for %s := range %s {", index, v)
		if !n.markerOnly {
			if n.elem {
				w.line("%s := %s[%s]", local, v, index)
			} else {
				w.line("%s := &%s[%s]", local, v, index)
			}
		}
		w.setDefault(n, v, index, isPointer)
		w.calls(n, local, true)
		for i := range n.children {
			w.method(&n.children[i], local, depth+1, append(ancestors, n))
		}
		w.line("}")
	case n.key:
		// A map's values are not addressable: only their defaults are set.
		if !n.dflt.empty() {
			index += "_" + ancestors[len(ancestors)-1].field
			w.line("for %s := range %s {", index, v)
			w.setDefault(n, v, index, isPointer)
			w.line("}")
		}
	default:
		w.setDefault(n, v, index, isPointer)
		w.calls(n, v, isPointer)
		for i := range n.children {
			w.method(&n.children[i], v, depth, append(ancestors, n))
		}
	}
	if check {
		w.line("}")
	}
}

// calls writes n's function calls on v.
func (w *writer) calls(n *node, v string, isPointer bool) {
	if !isPointer {
		v = "&" + v
	}
	for _, f := range n.calls {
		w.line("%s(%s)", w.qualified(f.pkg, f.name), v)
	}
}

// setDefault writes the statements that set n's +default value on v (or
// on v[index] for a slice's or map's values) when it is unset.
func (w *writer) setDefault(n *node, v, index string, isPointer bool) {
	if n.dflt.empty() {
		return
	}
	value := n.dflt.inline
	if n.dflt.isRef {
		value = n.dflt.resolved
	}
	dest := v
	if n.index || n.key {
		dest = v + "[" + index + "]"
	}
	switch {
	case n.defaultPrimitive && len(pointerPath(n.topT)) > 0:
		path := pointerPath(n.topT)
		elemT := path[len(path)-1]
		w.line("if %s == nil {", dest)
		if n.dflt.inline != "" {
			w.line("var ptrVar%d %s = %s", len(path), w.raw(elemT), value)
		} else {
			w.line("ptrVar%d := %s(%s)", len(path), w.raw(elemT), value)
		}
		for i := len(path); i >= 1; i-- {
			to, assign := "ptrVar"+strconv.Itoa(i-1), ":="
			if i == 1 {
				to, assign = dest, "="
			}
			source := "*" + elemT.String()
			if i == len(path) {
				source = elemT.String()
			}
			elemT = path[i-1]
			if elemT.String() == source {
				w.line("%s %s &ptrVar%d", to, assign, i)
			} else {
				w.line("%s %s (*%s)(&ptrVar%d)", to, assign, w.raw(elemT), i)
			}
		}
	case n.defaultPrimitive:
		zero := "<no value>"
		switch z := zeroValues[n.defaultType.String()].(type) {
		case string:
			zero = strconv.Quote(z)
		case float64:
			zero = strconv.FormatFloat(z, 'g', -1, 64)
		case bool:
			zero = strconv.FormatBool(z)
		}
		w.line("if %s == %s {", dest, zero)
		if n.dflt.inline != "" {
			w.line("%s = %s", dest, value)
		} else {
			w.line("%s = %s(%s)", dest, w.raw(n.topT), value)
		}
	default:
		w.line("if %s == nil {", dest)
		unmarshal := w.qualified("encoding/json", "Unmarshal")
		if n.key {
			tmp := index + "_default"
			w.line("%s := %s[%s]", tmp, v, index)
			w.line("if err := %s([]byte(`%s`), &%s); err != nil {", unmarshal, value, tmp)
		} else {
			ptr := dest
			if !isPointer {
				ptr = "&" + ptr
			}
			w.line("if err := %s([]byte(`%s`), %s); err != nil {", unmarshal, value, ptr)
		}
		w.line("panic(err)")
		w.line("}")
		if n.key {
			w.line("%s[%s] = %s_default", v, index, index)
		}
	}
	w.line("}")
}
