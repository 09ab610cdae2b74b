package generators

import (
	"path"
	"slices"
	"sort"
	"strings"
)

// Model is the API surface found in the input packages: the groups, their
// versions and the types that get an informer or a lister. Everything in it
// is sorted, so rendering it is deterministic.
type Model struct {
	// Groups are sorted by PackageName.
	Groups []*Group
	// clientPackages counts the packages with +genclient types, listable or not.
	clientPackages int
}

// Group is one API group, keyed by its full name.
type Group struct {
	// Name is the API group ("apps", "networking.k8s.io"; "" for core).
	Name string
	// GoName is client-gen's Go name of the group ("Apps", "Networking", "Core").
	GoName string
	// PackageName names the group's output directory and Go package: the
	// API packages' parent directory ("core" for k8s.io/api/core/v1).
	PackageName string
	// Versions are sorted by Name.
	Versions []*Version
	pos      string
}

// DisplayName names the group in comments and messages ("core" for "").
func (g *Group) DisplayName() string { return displayGroup(g.Name) }

// ImportName is the name the factory imports the group's informer package
// under: its package name, unless that collides with a fixed import.
func (g *Group) ImportName() string {
	if slices.Contains(reservedImportNames, g.PackageName) {
		return g.PackageName + "informers"
	}
	return g.PackageName
}

// Version is one version of a group, backed by one API package.
type Version struct {
	// Name is the version, from the API package's directory ("v1beta1").
	Name string
	// GoName is client-gen's Go name of the version ("V1beta1").
	GoName string
	// PackageName names the version's output directories and Go packages.
	PackageName string
	// APIPackage is the import path of the API types.
	APIPackage string
	// APIAlias is the import name generated files give APIPackage ("appsv1").
	APIAlias string
	// ListersAlias is the import name informer files give the listers package.
	ListersAlias string
	// Types are sorted by Name.
	Types []*Type
	pos   string
}

// Type is one API type with +genclient that gets an informer, a lister or both.
type Type struct {
	// Name is the Go type name ("Ingress").
	Name string
	// Plural is client-gen's plural Go name ("Ingresses"), used for the
	// clientset accessor and the lister methods.
	Plural string
	// Resource is the REST resource ("ingresses", or the +resourceName value).
	Resource string
	// Namespaced is false for +genclient:nonNamespaced types.
	Namespaced bool
	// Informer is true when the type has list and watch verbs and informer
	// generation is not turned off.
	Informer bool
	// Lister is true when the type has list and get verbs and lister
	// generation is not turned off.
	Lister bool
	pos    string // file:line of the type's name
	// resourcePos is where Resource comes from: the +resourceName tag or pos.
	resourcePos string
}

// Private is the unexported form of the type's name, used for the
// implementation structs ("ingress").
func (t *Type) Private() string { return privateName(t.Name) }

// FileName is the base name of the type's informer and lister files.
func (t *Type) FileName() string { return strings.ToLower(t.Name) + ".go" }

// InformerTypes are the version's types that get an informer.
func (v *Version) InformerTypes() []*Type {
	return filterTypes(v.Types, func(t *Type) bool { return t.Informer })
}

// ListerTypes are the version's types that get a lister.
func (v *Version) ListerTypes() []*Type {
	return filterTypes(v.Types, func(t *Type) bool { return t.Lister })
}

// InformerVersions are the group's versions with at least one informer.
func (g *Group) InformerVersions() []*Version {
	var out []*Version
	for _, v := range g.Versions {
		if len(v.InformerTypes()) > 0 {
			out = append(out, v)
		}
	}
	return out
}

// InformerGroups are the model's groups with at least one informer.
func (m *Model) InformerGroups() []*Group {
	var out []*Group
	for _, g := range m.Groups {
		if len(g.InformerVersions()) > 0 {
			out = append(out, g)
		}
	}
	return out
}

// GroupVersionCount counts the model's group-versions.
func (m *Model) GroupVersionCount() int {
	n := 0
	for _, g := range m.Groups {
		n += len(g.Versions)
	}
	return n
}

func filterTypes(ts []*Type, keep func(*Type) bool) []*Type {
	var out []*Type
	for _, t := range ts {
		if keep(t) {
			out = append(out, t)
		}
	}
	return out
}

// factoryMethods are the names a group's Go name must not take: the
// generated factory already has methods of these names.
var factoryMethods = []string{"Base", "Client", "Start", "Shutdown", "WaitForCacheSync", "RemoveInformer", "ForResource"}

// reservedImportNames are the import names generated files use for fixed
// packages; an API package alias that equals one of them gets a suffix.
var reservedImportNames = []string{
	"cache", "context", "fmt", "informers", "internalinterfaces", "labels", "listers",
	"group", "metav1", "reflect", "runtime", "schema", "time", "version", "versioned", "watch",
}

// buildModel turns parsed packages into the model, validating tags and
// names. Packages whose +genclient types yield neither informer nor lister
// are left out.
func buildModel(pkgs []parsedPackage, n namers, reservedGroupPackages []string) (*Model, error) {
	groups := map[string]*Group{}
	m := &Model{}
	// The factory keeps one informer per Go type: two informers for one type
	// (aliases) would silently share a cache.
	informed := map[string]parsedType{}
	for _, p := range pkgs {
		pt, err := parsePackageTags(p)
		if err != nil {
			return nil, err
		}
		if !pt.InformerGen && !pt.ListerGen {
			continue
		}
		var types []*Type
		var anyClient bool
		for _, t := range p.Types {
			ct, err := parseClientTags(t)
			if err != nil {
				return nil, err
			}
			if !ct.GenerateClient {
				continue
			}
			anyClient = true
			if t.Generic {
				return nil, inputErrorf(t.Pos, "type %s has +genclient but type parameters: clients, informers and listers need a concrete type (declare one, e.g. type %sOfX = %s[X], and move +genclient to it)", t.Name, t.Name, t.Name)
			}
			if !isExportedIdent(t.Name) {
				return nil, inputErrorf(t.Pos, "type %s has +genclient but is not exported (its name must start with an upper-case letter): rename it or drop the tag", t.Name)
			}
			typ := &Type{
				Name:        t.Name,
				pos:         t.Pos,
				resourcePos: t.Pos,
				Plural:      n.plural(t.Name),
				Resource:    n.resource(t.Name),
				Namespaced:  !ct.NonNamespaced,
				Informer:    pt.InformerGen && ct.InformerGen && ct.HasVerb("list") && ct.HasVerb("watch"),
				Lister:      pt.ListerGen && ct.ListerGen && ct.HasVerb("list") && ct.HasVerb("get"),
			}
			if ct.ResourceName != "" {
				typ.Resource, typ.resourcePos = ct.ResourceName, ct.ResourceNamePos
			}
			if !typ.Informer && !typ.Lister {
				continue
			}
			if !t.ObjectMeta && t.Unfollowed != "" {
				return nil, inputErrorf(t.Pos, "type %s has +genclient but informers and listers need it to embed metav1.ObjectMeta, and following its definition did not find it: %s (make it a struct embedding metav1.ObjectMeta, or mark the type +genclient:noVerbs)", t.Name, t.Unfollowed)
			}
			if other, dup := informed[t.Identity]; dup && typ.Informer && t.Identity != "" {
				return nil, inputErrorf(t.Pos, "type %s is the same Go type (%s) as type %s at %s, through an alias: the informer factory keeps one informer per Go type, so both would share one cache; make one of them a type definition (type %s X) or drop its +genclient", t.Name, t.Identity, other.Name, other.Pos, t.Name)
			}
			if typ.Informer && t.Identity != "" {
				informed[t.Identity] = t
			}
			if !t.ObjectMeta {
				return nil, inputErrorf(t.Pos, "type %s has +genclient but does not embed metav1.ObjectMeta, which informers and listers need (embed it, or mark the type +genclient:noVerbs)", t.Name)
			}
			types = append(types, typ)
		}
		if !anyClient {
			continue
		}
		m.clientPackages++
		if !pt.HasGroup {
			return nil, inputErrorf(p.PackagePos, "package %s has +genclient types but no group name: add // +groupName=<group> (e.g. example.com) to its doc.go", p.ImportPath)
		}
		if len(types) == 0 {
			continue
		}

		versionName := path.Base(p.ImportPath)
		parent := path.Dir(p.ImportPath)
		if parent == "." || parent == "/" {
			return nil, inputErrorf(p.PackagePos, "package %s: informer-gen needs API packages laid out as <group>/<version>", p.ImportPath)
		}
		goName := groupGoName(pt.Group, pt.GroupGoName)
		if !isIdentifier(goName) {
			return nil, inputErrorf(pt.GroupPos, "package %s: group %q has no usable Go name: add // +groupGoName=<Name> to its doc.go", p.ImportPath, pt.Group)
		}
		if slices.Contains(factoryMethods, goName) {
			return nil, inputErrorf(pt.GroupPos, "package %s: group Go name %q collides with a factory method: add // +groupGoName=<OtherName> to its doc.go", p.ImportPath, goName)
		}
		v := &Version{
			Name:        versionName,
			GoName:      versionGoName(versionName),
			PackageName: packageName(versionName),
			APIPackage:  p.ImportPath,
			Types:       types,
			pos:         p.PackagePos,
		}
		if !isIdentifier(v.GoName) {
			return nil, inputErrorf(p.PackagePos, "package %s: version directory %q is not usable as a Go name", p.ImportPath, versionName)
		}

		g := groups[pt.Group]
		if g == nil {
			g = &Group{Name: pt.Group, GoName: goName, PackageName: packageName(path.Base(parent)), pos: pt.GroupPos}
			groups[pt.Group] = g
		} else if g.GoName != goName {
			return nil, inputErrorf(pt.GroupPos, "package %s: group %q has Go name %q here but %q at %s: give every version the same +groupGoName", p.ImportPath, pt.Group, goName, g.GoName, g.pos)
		}
		for _, other := range g.Versions {
			if other.Name == v.Name {
				return nil, inputErrorf(p.PackagePos, "package %s: group-version %s/%s is also defined by %s", p.ImportPath, displayGroup(pt.Group), v.Name, other.APIPackage)
			}
		}
		g.Versions = append(g.Versions, v)
	}

	for _, g := range groups {
		sort.Slice(g.Versions, func(i, j int) bool { return g.Versions[i].Name < g.Versions[j].Name })
		m.Groups = append(m.Groups, g)
	}
	sort.Slice(m.Groups, func(i, j int) bool {
		if m.Groups[i].PackageName != m.Groups[j].PackageName {
			return m.Groups[i].PackageName < m.Groups[j].PackageName
		}
		return m.Groups[i].Name < m.Groups[j].Name
	})
	for i, g := range m.Groups {
		if slices.Contains(reservedGroupPackages, g.PackageName) {
			return nil, inputErrorf(g.pos, "group %q would be generated into directory %q, which informer-gen uses itself: move its packages to another parent directory", displayGroup(g.Name), g.PackageName)
		}
		for _, other := range m.Groups[:i] {
			if other.PackageName == g.PackageName {
				return nil, inputErrorf(g.pos, "groups %q and %q both come from directories named %q: their generated packages would collide", displayGroup(other.Name), displayGroup(g.Name), g.PackageName)
			}
			if other.GoName == g.GoName {
				return nil, inputErrorf(g.pos, "groups %q and %q share the Go name %q: set a distinct // +groupGoName= in one of them (client-gen needs it too)", displayGroup(other.Name), displayGroup(g.Name), g.GoName)
			}
		}
		for _, v := range g.Versions {
			v.APIAlias = g.PackageName + v.PackageName
			if slices.Contains(reservedImportNames, v.APIAlias) {
				v.APIAlias += "api"
			}
			v.ListersAlias = v.APIAlias + "listers"
		}
	}
	if err := checkGeneratedNames(m); err != nil {
		return nil, err
	}
	return m, nil
}

// displayGroup names a group in messages ("" is the core group).
func displayGroup(g string) string {
	if g == "" {
		return "core"
	}
	return g
}
