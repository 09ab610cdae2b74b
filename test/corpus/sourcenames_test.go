package corpus

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path"
	"slices"
	"sort"
	"strings"
	"testing"
)

// filesUnder returns the files of tree whose path starts with one of prefixes.
func filesUnder(tree map[string][]byte, prefixes ...string) map[string][]byte {
	out := map[string][]byte{}
	for p, b := range tree {
		for _, pre := range prefixes {
			if strings.HasPrefix(p, pre) {
				out[p] = b
				break
			}
		}
	}
	return out
}

// sourceNames lists what code calling a Go file can name, read from its
// syntax alone (the trees compared are not built): "name N" for an exported
// function, variable or constant (a variable may hold a function), "type N"
// for an exported type, "type N method M" for each exported method declared
// on it (by a receiver of N or *N, or in N's interface literal), and
// "alias N" for an exported alias, whose methods are its target's and are
// not seen, as promoted methods are not.
func sourceNames(src []byte) ([]string, error) {
	f, err := parser.ParseFile(token.NewFileSet(), "", src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if !d.Name.IsExported() {
				continue
			}
			if d.Recv == nil {
				out = append(out, "name "+d.Name.Name)
				continue
			}
			if recv := receiverName(d.Recv.List[0].Type); ast.IsExported(recv) {
				out = append(out, "type "+recv+" method "+d.Name.Name)
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.ValueSpec:
					for _, n := range s.Names {
						if n.IsExported() {
							out = append(out, "name "+n.Name)
						}
					}
				case *ast.TypeSpec:
					if !s.Name.IsExported() {
						continue
					}
					out = append(out, "type "+s.Name.Name)
					if s.Assign.IsValid() {
						out = append(out, "alias "+s.Name.Name)
					}
					if it, ok := s.Type.(*ast.InterfaceType); ok {
						for _, m := range it.Methods.List {
							for _, n := range m.Names {
								if n.IsExported() {
									out = append(out, "type "+s.Name.Name+" method "+n.Name)
								}
							}
						}
					}
				}
			}
		}
	}
	return out, nil
}

// receiverName is the type name of a method's receiver (T, *T, T[P]).
func receiverName(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.Ident:
			return x.Name
		default:
			return ""
		}
	}
}

// knownInformerNameGaps are names of upstream informer-gen's informers that
// ours lacks knowingly, each with why: client-go's untyped informer
// registry, which the typed factory replaces by its typed informers.
var knownInformerNameGaps = map[string]string{
	"informers/externalversions/internalinterfaces: only upstream: type NewInformerFunc":                          "the typed factory registers typed informers; there is no untyped constructor type",
	"informers/externalversions/internalinterfaces: only upstream: type SharedInformerFactory method InformerFor": "the typed factory registers typed informers",
	"informers/externalversions/internalinterfaces: only upstream: type SharedInformerFactory method Start":       "the internal factory interface is the typed informers' view of the factory, which does not start it",
	"informers/externalversions: only upstream: type SharedInformerFactory method InformerFor":                    "the typed factory registers typed informers",
}

// diffSourceNames compares generated listers and informers keyed by
// relative file path: the same files must exist on both sides, and every
// package (directory) of ours must hold every name (sourceNames) upstream's
// declares, but for knownInformerNameGaps; ours may add names. A method of
// a type ours declares as an alias is not seen in ours and not required.
func diffSourceNames(ours, theirs map[string][]byte) []string {
	var diffs []string
	var paths []string
	for p := range theirs {
		paths = append(paths, p)
	}
	for p := range ours {
		if _, ok := theirs[p]; !ok {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	names := func(tree map[string][]byte, side string) map[string][]string {
		byDir := map[string][]string{}
		for p, b := range tree {
			n, err := sourceNames(b)
			if err != nil {
				diffs = append(diffs, fmt.Sprintf("%s: cannot parse %s's: %v", p, side, err))
				continue
			}
			byDir[path.Dir(p)] = append(byDir[path.Dir(p)], n...)
		}
		return byDir
	}
	for _, p := range paths {
		_, inOurs := ours[p]
		_, inTheirs := theirs[p]
		switch {
		case !inOurs:
			diffs = append(diffs, "only upstream: "+p)
		case !inTheirs:
			diffs = append(diffs, "only ours: "+p)
		}
	}
	o, th := names(ours, "ours"), names(theirs, "upstream")
	var dirs []string
	for d := range th {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	for _, d := range dirs {
		for _, n := range minus(th[d], o[d]) {
			if typ, _, ok := strings.Cut(strings.TrimPrefix(n, "type "), " method "); ok && slices.Contains(o[d], "alias "+typ) {
				continue
			}
			line := d + ": only upstream: " + n
			if _, known := knownInformerNameGaps[line]; !known {
				diffs = append(diffs, line)
			}
		}
	}
	return slices.Compact(diffs)
}

// TestDiffSourceNames checks the listers' and informers' comparison on
// small sources: a missing file, a missing name, a method of a type ours
// aliases, a function ours holds in a variable, and a known gap.
func TestDiffSourceNames(t *testing.T) {
	const theirFactory = `package externalversions
type SharedInformerFactory interface {
	Start(stopCh <-chan struct{})
	InformerFor() int
}
type GenericInformer interface {
	Informer() int
}
func WithNamespace(ns string) int { return 0 }
type sharedInformerFactory struct{}
func (f *sharedInformerFactory) Start() {}
`
	const ourFactory = `package externalversions
type SharedInformerFactory interface {
	Start(stopCh <-chan struct{})
}
type GenericInformer = runtime.GenericInformer
var WithNamespace = runtime.WithNamespace
`
	tests := []struct {
		name         string
		ours, theirs map[string][]byte
		want         []string
	}{
		{
			name:   "same names, alias and variable",
			ours:   map[string][]byte{"informers/externalversions/factory.go": []byte(ourFactory)},
			theirs: map[string][]byte{"informers/externalversions/factory.go": []byte(theirFactory)},
		},
		{
			name:   "a file only upstream writes",
			ours:   map[string][]byte{"informers/externalversions/factory.go": []byte(ourFactory)},
			theirs: map[string][]byte{"informers/externalversions/factory.go": []byte(theirFactory), "listers/v1/foo.go": []byte("package v1\ntype FooLister interface{ List() }\n")},
			want:   []string{"only upstream: listers/v1/foo.go", "listers/v1: only upstream: type FooLister", "listers/v1: only upstream: type FooLister method List"},
		},
		{
			name:   "a method ours lacks",
			ours:   map[string][]byte{"listers/v1/foo.go": []byte("package v1\ntype FooLister interface{ List() }\n")},
			theirs: map[string][]byte{"listers/v1/foo.go": []byte("package v1\ntype FooLister interface{ List(); Foos(ns string) }\n")},
			want:   []string{"listers/v1: only upstream: type FooLister method Foos"},
		},
		{
			name:   "a method declared by a receiver",
			ours:   map[string][]byte{"listers/v1/foo.go": []byte("package v1\ntype X struct{}\n")},
			theirs: map[string][]byte{"listers/v1/foo.go": []byte("package v1\ntype X struct{}\nfunc (x *X) Get() {}\n")},
			want:   []string{"listers/v1: only upstream: type X method Get"},
		},
		{
			name:   "a file only ours writes",
			ours:   map[string][]byte{"listers/v1/foo.go": []byte("package v1\n")},
			theirs: map[string][]byte{},
			want:   []string{"only ours: listers/v1/foo.go"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := diffSourceNames(tt.ours, tt.theirs)
			if !slices.Equal(got, tt.want) {
				t.Errorf("diffSourceNames:\ngot  %q\nwant %q", got, tt.want)
			}
		})
	}
}
