package defaulter

import (
	"encoding/json"
	"reflect"
	"regexp"
	"strings"

	"github.com/typedinformer/typedinformer/generators/internal/inputerr"
)

// node is one step of the path from an object to a member that has
// defaulters to call or a +default value to set: a member (field), the
// values of a slice or array (index), of a map (key), the target of a
// pointer (elem).
type node struct {
	field             string
	key, index, elem  bool
	calls             []*fn
	children          []node
	dflt              defaultValue
	defaultPrimitive  bool
	markerOnly        bool
	defaultType, topT *typ
}

// defaultValue is a +default value: a JSON literal, or ref(pkg.Name).
type defaultValue struct {
	inline   string
	refPkg   string
	refName  string
	isRef    bool
	resolved string
}

func (d defaultValue) empty() bool { return d.inline == "" && !d.isRef }

// zeroValues are the values, as encoding/json reads them, that a +default
// on a member of these types may not set: a default equal to the zero
// value is no default.
var zeroValues = map[string]any{
	"uint": 0., "uint8": 0., "uint16": 0., "uint32": 0., "uint64": 0.,
	"int": 0., "int8": 0., "int16": 0., "int32": 0., "int64": 0.,
	"byte": 0., "float64": 0., "float32": 0., "bool": false,
	"time.Time": "", "string": "", "integer": 0., "number": 0., "boolean": false,
	"[]byte": "", "interface{}": nil,
}

var refPattern = regexp.MustCompile(`^ref\(([^"]+)\)$`)

// treeBuilder builds the call tree of one type: the defaulters known by
// hand (existing) and the object defaulters generated (generated, whose
// object is set once the type is known to need one).
type treeBuilder struct {
	existing, generated defaulterMap
	building            map[string]bool
	err                 error
}

func newTreeBuilder(existing, generated defaulterMap) *treeBuilder {
	return &treeBuilder{existing: existing, generated: generated, building: map[string]bool{}}
}

// build returns the tree of what defaulting t calls, or nil when it calls
// nothing. A type met again below itself is not walked again.
func (b *treeBuilder) build(t *typ, root bool) *node {
	parent := &node{elem: root}
	key := t.String()
	d := b.existing.of(t)
	g, generated := b.generated[key]
	switch {
	case !root && generated && g.object != nil:
		parent.calls = append(parent.calls, g.object)
		return parent
	case d.object != nil:
		parent.calls = append(parent.calls, d.object)
		return parent
	case d.base != nil:
		parent.calls = append(parent.calls, d.base)
		if tagIs(d.base.doc, tagName, "covers") {
			return parent
		}
	}
	parent.calls = append(parent.calls, d.additional...)
	if b.building[key] {
		return nil
	}
	b.building[key] = true
	defer func() { b.building[key] = false }()

	switch t.kind {
	case kPointer:
		if child := b.build(t.elem, false); child != nil {
			child.elem = true
			parent.children = append(parent.children, *child)
		}
	case kSlice, kArray, kMap:
		child := b.build(t.elem, false)
		if child == nil {
			child = b.withDefault(nil, t.elem, t.elem.doc, t.elem.pkg, t.elem.pos())
		} else if t.kind != kMap && t.elem.kind == kPointer {
			child.elem = true
		}
		if child != nil {
			if t.kind == kMap {
				child.key = true
			} else {
				child.index = true
			}
			parent.children = append(parent.children, *child)
		}
	case kStruct:
		for _, m := range t.members {
			if child := b.build(m.t, false); child != nil {
				child.field = m.name
				b.withDefault(child, m.t, m.doc, m.t.pkg, m.pos)
				parent.children = append(parent.children, *child)
			} else if mem := b.withDefault(nil, m.t, m.doc, t.pkg, m.pos); mem != nil {
				mem.field = m.name
				parent.children = append(parent.children, *mem)
			}
		}
	case kAlias:
		if child := b.build(t.underlying, false); child != nil {
			parent.children = append(parent.children, *child)
		}
	}
	if len(parent.children) == 0 && len(parent.calls) == 0 {
		return nil
	}
	return parent
}

// resolve follows kAliases and pointers to the first other type, counting
// the pointers.
func resolve(t *typ) (*typ, int) {
	path, value := walkPointers(t)
	return value, len(path)
}

// pointerPath is the types the pointers from t to its value type point
// to, in order (kAliases followed).
func pointerPath(t *typ) []*typ {
	path, _ := walkPointers(t)
	return path
}

// walkPointers follows kAliases and pointers from t: path is the types
// the pointers point to, in order, and value the first type neither.
func walkPointers(t *typ) (path []*typ, value *typ) {
	for {
		switch t.kind {
		case kAlias:
			t = t.underlying
		case kPointer:
			t = t.elem
			path = append(path, t)
		default:
			return path, t
		}
	}
}

// nestedDefault is the first single non-empty +default of t and of the
// types its kAliases and pointers lead to.
func nestedDefault(t *typ) string {
	for {
		if vs := tagValues(t.doc, defaultTag); len(vs) == 1 && vs[0] != "" {
			return vs[0]
		}
		switch t.kind {
		case kAlias:
			t = t.underlying
		case kPointer:
			t = t.elem
		default:
			return ""
		}
	}
}

// withDefault records the +default of a member (or of the values of a
// slice or map) of type t, documented by doc, on n, making a node for it
// when n is nil; it returns n, or nil when there is no default to set.
// refPkg is the package a ref(Name) without a package refers into.
func (b *treeBuilder) withDefault(n *node, t *typ, doc []string, refPkg, pos string) *node {
	vs := tagValues(doc, defaultTag)
	var s string
	switch {
	case len(vs) == 1:
		s = vs[0]
	case len(vs) > 1:
		b.fail(pos, "found more than one +%s tag on a member of type %s", defaultTag, t)
		return n
	}
	base, depth := resolve(t)
	if depth > 0 && s == "" {
		s = nestedDefault(t)
	}
	if s == "" {
		return n
	}
	var dv defaultValue
	if m := refPattern.FindStringSubmatch(s); m != nil {
		dv.isRef = true
		dv.refName = m[1]
		if i := strings.LastIndexByte(m[1], '.'); i >= 0 {
			dv.refPkg, dv.refName = m[1][:i], m[1][i+1:]
		} else {
			dv.refPkg = refPkg
		}
	} else {
		var v any
		if err := json.Unmarshal([]byte(s), &v); err != nil {
			b.fail(pos, "+%s=%s on a member of type %s is not JSON: %v", defaultTag, s, t, err)
			return n
		}
		if v != nil && reflect.DeepEqual(v, zeroValues[t.String()]) {
			return n
		}
		dv.inline = s
	}
	if n == nil {
		n = &node{markerOnly: true}
	}
	n.defaultPrimitive = base.kind == kBuiltin
	n.defaultType = base
	n.topT = t
	n.dflt = dv
	return n
}

// tagName and defaultTag are defaulter-gen's tags on types, functions and
// members.
const (
	tagName    = "k8s:defaulter-gen"
	defaultTag = "default"
)

func (b *treeBuilder) fail(pos, format string, args ...any) {
	if b.err == nil {
		b.err = inputerr.Errorf(pos, format, args...)
	}
}
