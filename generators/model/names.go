package model

import (
	"fmt"
	"go/build"
	"io"
	"path"
	"slices"
	"strings"

	"github.com/typedinformer/typedinformer/generators/internal/inputerr"
	"github.com/typedinformer/typedinformer/generators/load"
)

// scope is one Go package (or one method set) of the output: every name the
// templates declare in it, with who causes it, so that two types, versions
// or groups that would make the same identifier or file are refused before
// anything is rendered.
type scope struct {
	where string // "package listers/foo/v1"
	names map[string]nameOwner
}

// nameOwner is what makes a generated name: "type Foo" at pos.
type nameOwner struct {
	what, pos string
}

func newScope(format string, args ...any) *scope {
	return &scope{where: fmt.Sprintf(format, args...), names: map[string]nameOwner{}}
}

// declare records that owner (at pos) makes name in the scope; a name already
// made by someone else is an InputError at pos naming both.
func (s *scope) declare(name, kind, what, pos string) error {
	if o, ok := s.names[name]; ok && o.what != what {
		other := o.what
		if o.pos != "" {
			other += " (" + o.pos + ")"
		}
		return inputerr.Errorf(pos, "%s would generate %s %s in %s, which %s generates too: rename one of them (or set +resourceName/--plural-exceptions for a plural)", what, kind, name, s.where, other)
	}
	s.names[name] = nameOwner{what, pos}
	return nil
}

// fixedImports are the import names of the generated files of a kind.
var (
	informerFileImports = []string{"context", "time", "metav1", "runtime", "schema", "watch", "cache", "informers", "versioned", "internalinterfaces"}
	listerFileImports   = []string{"labels", "schema", "cache", "listers"}
	factoryFileImports  = []string{"context", "reflect", "time", "runtime", "schema", "cache", "informers", "versioned", "internalinterfaces", "fmt"}
)

// checkGeneratedNames verifies that every identifier, import name and file
// name the templates would emit for m is unique where it must be, is a valid
// Go name, and that every file would be compiled (no _test.go or GOOS/GOARCH
// suffix). It also refuses two types with the same resource in one
// group-version.
func checkGeneratedNames(m *Model) error {
	factory := newScope("the informer factory")
	for _, name := range factoryMethods {
		factory.names[name] = nameOwner{what: "informer-gen"}
	}
	factoryImports := newScope("the imports of factory.go")
	for _, name := range factoryFileImports {
		factoryImports.names[name] = nameOwner{what: "informer-gen"}
	}
	for _, g := range m.Groups {
		gwhat := fmt.Sprintf("group %q", displayGroup(g.Name))
		if len(g.InformerVersions()) > 0 {
			if err := factory.declare(g.GoName, "the method", gwhat, g.pos); err != nil {
				return err
			}
			if err := factoryImports.declare(g.ImportName(), "the import name", gwhat, g.pos); err != nil {
				return err
			}
		}
		groupPkg := newScope("package informers/%s", g.Dir)
		for _, name := range []string{"internalinterfaces", "group", "Interface", "New"} {
			groupPkg.names[name] = nameOwner{what: "informer-gen"}
		}
		groupMethods := newScope("the methods of the %s informer group", displayGroup(g.Name))
		versionDirs := newScope("the directories of group %q", displayGroup(g.Name))
		for _, v := range g.Versions {
			vwhat := fmt.Sprintf("version %s of group %q", v.Name, displayGroup(g.Name))
			if err := versionDirs.declare(v.Dir, "the package", vwhat, v.pos); err != nil {
				return err
			}
			if len(v.InformerTypes()) > 0 {
				if err := groupPkg.declare(v.PackageName, "the import name", vwhat, v.pos); err != nil {
					return err
				}
				if err := groupMethods.declare(v.GoName, "the method", vwhat, v.pos); err != nil {
					return err
				}
			}
			if err := checkVersionNames(g, v); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkVersionNames checks the informer and lister packages of one version.
func checkVersionNames(g *Group, v *Version) error {
	where, listersWhere := path.Join(g.Dir, v.Dir), path.Join(g.ListersDir, v.Dir)
	resources := newScope("group-version %s/%s", displayGroup(g.Name), v.Name)
	for _, t := range v.Types {
		if err := resources.declare(t.Resource, "the resource", "type "+t.Name, t.resourcePos); err != nil {
			return inputerr.Errorf(t.resourcePos, "types %s and %s both serve resource %q of %s/%s: give one of them another +resourceName (client-gen would also generate one client for both)",
				resources.names[t.Resource].what[len("type "):], t.Name, t.Resource, displayGroup(g.Name), v.Name)
		}
		if !load.IsExportedIdent(t.Plural) {
			return inputerr.Errorf(t.pos, "type %s: its plural %q is not an exported Go identifier: fix the --plural-exceptions entry", t.Name, t.Plural)
		}
	}

	if infs := v.InformerTypes(); len(infs) > 0 {
		pkg := newScope("package informers/%s", where)
		files := newScope("directory informers/%s", where)
		methods := newScope("the methods of the %s informers interface", where)
		for _, name := range append(slices.Clone(informerFileImports), "Interface", "version", "New", v.APIAlias, v.ListersAlias) {
			pkg.names[name] = nameOwner{what: "informer-gen"}
		}
		files.names["interface.go"] = nameOwner{what: "informer-gen"}
		for _, t := range infs {
			what := "type " + t.Name
			for _, name := range informerFileNames(t) {
				if err := pkg.declare(name, "the identifier", what, t.pos); err != nil {
					return err
				}
			}
			if err := methods.declare(t.Plural, "the method", what, t.pos); err != nil {
				return err
			}
			if err := checkFileName(files, t); err != nil {
				return err
			}
		}
	}
	if ls := v.ListerTypes(); len(ls) > 0 {
		pkg := newScope("package listers/%s", listersWhere)
		files := newScope("directory listers/%s", listersWhere)
		for _, name := range append(slices.Clone(listerFileImports), v.APIAlias) {
			pkg.names[name] = nameOwner{what: "informer-gen"}
		}
		files.names["expansion_generated.go"] = nameOwner{what: "informer-gen"}
		for _, t := range ls {
			what := "type " + t.Name
			names := []string{t.Name + "Lister", t.Private() + "Lister", "New" + t.Name + "Lister", t.Name + "ListerExpansion"}
			if t.Namespaced {
				names = append(names, t.Name+"NamespaceLister", t.Private()+"NamespaceLister", t.Name+"NamespaceListerExpansion")
				// The lister interface has List and the struct embeds
				// ResourceLister: the plural method may be neither.
				if t.Plural == "List" || t.Plural == "ResourceLister" {
					return inputerr.Errorf(t.pos, "type %s: its plural %q would clash with the lister's own %s: set another plural with --plural-exceptions", t.Name, t.Plural, t.Plural)
				}
			}
			for _, name := range names {
				if err := pkg.declare(name, "the identifier", what, t.pos); err != nil {
					return err
				}
			}
			if err := checkFileName(files, t); err != nil {
				return err
			}
		}
	}
	return nil
}

// informerFileNames are the identifiers an informer file declares for t:
// ours and client-go v0.37's typed ones.
func informerFileNames(t *Type) []string {
	n, p := t.Name, t.Private()
	return []string{
		n + "Informer", "Typed" + n + "Informer", n + "IndexInformer",
		n + "HandlerFuncs", n + "DetailedHandlerFuncs", n + "FilteringHandler", n + "Indexers", "Deleted" + n,
		p + "Informer", p + "TypedInformerAdapter",
		"New" + n + "Informer", "NewTyped" + n + "Informer",
		"NewFiltered" + n + "Informer", "NewTypedFiltered" + n + "Informer",
		"New" + n + "InformerWithOptions", "NewTyped" + n + "InformerWithOptions",
		"ToTyped" + n + "Informer", "To" + n + "IndexInformer",
	}
}

// checkFileName declares the type's file in files and checks that the go
// tool would compile it: a name ending in _test or in a GOOS/GOARCH suffix
// would be left out of the build.
func checkFileName(files *scope, t *Type) error {
	name := t.FileName()
	if strings.HasSuffix(name, "_test.go") || !alwaysBuilt(name) {
		return inputerr.Errorf(t.pos, "type %s would be generated into %s, which the go tool only builds in tests or on some platforms: rename the type", t.Name, name)
	}
	return files.declare(name, "the file", "type "+t.Name, t.pos)
}

// alwaysBuilt reports whether a file name carries no GOOS or GOARCH suffix
// ("foo_linux.go", "foo_arm64.go"): it is matched by a build context whose
// GOOS and GOARCH are no real ones, reading an empty package.
func alwaysBuilt(name string) bool {
	ctxt := build.Context{
		GOOS: "nonesuchos", GOARCH: "nonesucharch", Compiler: "gc",
		OpenFile: func(string) (io.ReadCloser, error) { return io.NopCloser(strings.NewReader("package x\n")), nil },
	}
	ok, err := ctxt.MatchFile("/", name)
	return err == nil && ok
}
