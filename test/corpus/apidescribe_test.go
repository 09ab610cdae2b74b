package corpus

import (
	"go/types"
	"sort"
)

// describeAPI describes every exported declaration of pkg, one line each,
// sorted: its kind and shape, with package paths written by qualifier.
// Parameter names are left out of signatures: they are no part of a type.
func describeAPI(pkg *types.Package, qualifier types.Qualifier) []string {
	var out []string
	for _, obj := range exported(pkg) {
		name := obj.Name()
		switch o := obj.(type) {
		case *types.Const:
			out = append(out, "const "+name+" "+typeString(o.Type(), qualifier))
		case *types.Var:
			out = append(out, "var "+name+" "+typeString(o.Type(), qualifier))
		case *types.Func:
			out = append(out, "func "+name+typeString(o.Type(), qualifier)[len("func"):])
		case *types.TypeName:
			out = append(out, describeTypeName(o, qualifier)...)
		}
	}
	sort.Strings(out)
	return out
}

// describeTypeName describes a named type: its underlying kind with the
// interface's methods or the struct's exported fields and tags, and the
// exported methods of its pointer's method set.
func describeTypeName(o *types.TypeName, q types.Qualifier) []string {
	name := o.Name()
	head := "type " + name
	if o.IsAlias() {
		return []string{head + " = " + typeString(o.Type(), q)}
	}
	var out []string
	switch u := o.Type().Underlying().(type) {
	case *types.Interface:
		out = append(out, head+" interface")
		for i := 0; i < u.NumMethods(); i++ {
			m := u.Method(i)
			out = append(out, head+" interface method "+m.Name()+typeString(m.Type(), q)[len("func"):])
		}
	case *types.Struct:
		out = append(out, head+" struct")
		for i := 0; i < u.NumFields(); i++ {
			f := u.Field(i)
			if !f.Exported() {
				continue
			}
			line := head + " field " + f.Name() + " " + typeString(f.Type(), q)
			if f.Embedded() {
				line += " (embedded)"
			}
			if tag := u.Tag(i); tag != "" {
				line += " `" + tag + "`"
			}
			out = append(out, line)
		}
	default:
		out = append(out, head+" "+typeString(u, q))
	}
	if _, isIface := o.Type().Underlying().(*types.Interface); !isIface {
		ms := types.NewMethodSet(types.NewPointer(o.Type()))
		for i := 0; i < ms.Len(); i++ {
			m := ms.At(i).Obj()
			if m.Exported() {
				out = append(out, head+" method "+m.Name()+typeString(m.Type(), q)[len("func"):])
			}
		}
	}
	return out
}

// typeString writes t with q, leaving out the names of parameters and results.
func typeString(t types.Type, q types.Qualifier) string {
	return types.TypeString(unnamedParams(t), q)
}

// unnamedParams returns t, or for a signature the same signature without
// parameter and result names (receivers dropped).
func unnamedParams(t types.Type) types.Type {
	sig, ok := t.(*types.Signature)
	if !ok {
		return t
	}
	strip := func(tup *types.Tuple) *types.Tuple {
		vars := make([]*types.Var, tup.Len())
		for i := range vars {
			v := tup.At(i)
			vars[i] = types.NewParam(v.Pos(), v.Pkg(), "", v.Type())
		}
		return types.NewTuple(vars...)
	}
	return types.NewSignatureType(nil, nil, nil, strip(sig.Params()), strip(sig.Results()), sig.Variadic())
}

// describeNames lists what code calling pkg can name, one line each, sorted:
// every exported function or variable of function type as "call N", other
// variables and constants as "value N", and every exported type as "type N"
// with a "type N method M" line for each exported method of its pointer's
// method set (an interface's own methods; an alias's target's methods).
// Signatures are left out: it is for packages whose names must port by an
// import swap while their types are the runtime's own.
func describeNames(pkg *types.Package) []string {
	var out []string
	for _, obj := range exported(pkg) {
		name := obj.Name()
		switch o := obj.(type) {
		case *types.Func:
			out = append(out, "call "+name)
		case *types.Var:
			if _, ok := o.Type().Underlying().(*types.Signature); ok {
				out = append(out, "call "+name)
			} else {
				out = append(out, "value "+name)
			}
		case *types.Const:
			out = append(out, "value "+name)
		case *types.TypeName:
			out = append(out, "type "+name)
			t := types.Unalias(o.Type())
			if _, isIface := t.Underlying().(*types.Interface); !isIface {
				t = types.NewPointer(t)
			}
			ms := types.NewMethodSet(t)
			for i := 0; i < ms.Len(); i++ {
				if m := ms.At(i).Obj(); m.Exported() {
					out = append(out, "type "+name+" method "+m.Name())
				}
			}
		}
	}
	sort.Strings(out)
	return out
}

// exported returns the exported objects of pkg's scope, by name.
func exported(pkg *types.Package) []types.Object {
	var out []types.Object
	scope := pkg.Scope()
	for _, name := range scope.Names() {
		if obj := scope.Lookup(name); obj.Exported() {
			out = append(out, obj)
		}
	}
	return out
}
