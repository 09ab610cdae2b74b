package model

import (
	"slices"
	"strings"

	"github.com/typedinformer/typedinformer/generators/load"
)

// Model is the API surface found in the input packages: the groups, their
// versions and the types that get an informer or a lister. Everything in it
// is sorted, so rendering it is deterministic.
type Model struct {
	// Groups are sorted by Dir.
	Groups []*Group
	// ClientPackages counts the packages with +genclient types, listable or
	// not, and with the clientset those with a +genclient tag only.
	ClientPackages int
}

// Group is one API group, keyed by its full name.
type Group struct {
	// Name is the API group ("apps", "networking.k8s.io"; "" for core).
	Name string
	// GoName is client-gen's Go name of the group ("Apps", "Networking", "Core").
	GoName string
	// Dir is the group's directory under the informers root: the API
	// packages' parent directory, verbatim, as upstream informer-gen names it
	// ("core" for k8s.io/api/core/v1, "cilium.io" for apis/cilium.io/v2).
	Dir string
	// ListersDir is the group's directory under the listers root: Dir in
	// lower case, as upstream lister-gen names it.
	ListersDir string
	// PackageName is the Go package of the group's informers directory:
	// upstream's (Dir up to its first dot, "cilium" for "cilium.io") when that
	// is a usable package name, else a sanitized one ("cert-manager" →
	// "certmanager", "type" → "xtype").
	PackageName string
	// importIdent is what the factory imports the group package as and what
	// its versions' import aliases start with: PackageName, unless another
	// group has the same PackageName ("cilium.io" and "cilium.com").
	importIdent string
	// Versions are sorted by Name.
	Versions []*Version
	pos      string
}

// DisplayName names the group in comments and messages ("core" for "").
func (g *Group) DisplayName() string { return displayGroup(g.Name) }

// ImportName is the name the factory imports the group's informer package
// under: its package name, unless that collides with a fixed import.
func (g *Group) ImportName() string {
	if slices.Contains(reservedImportNames, g.importIdent) {
		return g.importIdent + "informers"
	}
	return g.importIdent
}

// Version is one version of a group, backed by one API package.
type Version struct {
	// Name is the version, from the API package's directory ("v1beta1").
	Name string
	// GoName is client-gen's Go name of the version ("V1beta1").
	GoName string
	// Dir names the version's informers and listers directories: the API
	// package's directory in lower case, as upstream names it.
	Dir string
	// PackageName is the Go package of those directories: Dir when that is a
	// usable package name, else a sanitized one ("go" → "xgo").
	PackageName string
	// APIPackage is the import path of the API types.
	APIPackage string
	// APIAlias is the import name generated files give APIPackage ("appsv1").
	APIAlias string
	// ListersAlias is the import name informer files give the listers package.
	ListersAlias string
	// Types are sorted by Name.
	Types []*Type
	// ClientTypes are every +genclient type of the version, sorted by Name:
	// the typed clients. Set only when the clientset is generated.
	ClientTypes []*Type
	// Client is set when the version gets a typed client (possibly of no
	// types): only when the clientset is generated.
	Client bool
	pos    string
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
	// PrivatePlural is client-gen's unexported plural ("ingresses"), the
	// name of the typed client's implementation.
	PrivatePlural string
	// Verbs are the client verbs of the type, in client-gen's order, after
	// its tags (UpdateStatus and ApplyStatus only for a type with a Status
	// member and without +genclient:noStatus).
	Verbs []string
	// NoVerbs is +genclient:noVerbs.
	NoVerbs bool
	// Extensions are the +genclient:method= verbs.
	Extensions []load.ClientExtension
	pos        string // file:line of the type's name
	// resourcePos is where Resource comes from: the +resourceName tag or pos.
	resourcePos string
}

// Private is the unexported form of the type's name, used for the
// implementation structs ("ingress").
func (t *Type) Private() string { return PrivateName(t.Name) }

// HasVerb reports whether the type's client has verb.
func (t *Type) HasVerb(verb string) bool { return slices.Contains(t.Verbs, verb) }

// FileName is the base name of the type's informer and lister files.
func (t *Type) FileName() string { return strings.ToLower(t.Name) + ".go" }

// InformerTypes are the version's types that get an informer.
func (v *Version) InformerTypes() []*Type {
	return filter(v.Types, func(t *Type) bool { return t.Informer })
}

// ListerTypes are the version's types that get a lister.
func (v *Version) ListerTypes() []*Type {
	return filter(v.Types, func(t *Type) bool { return t.Lister })
}

// InformerVersions are the group's versions with at least one informer.
func (g *Group) InformerVersions() []*Version {
	return filter(g.Versions, func(v *Version) bool { return len(v.InformerTypes()) > 0 })
}

// InformerGroups are the model's groups with at least one informer.
func (m *Model) InformerGroups() []*Group {
	return filter(m.Groups, func(g *Group) bool { return len(g.InformerVersions()) > 0 })
}

// GroupVersionCount counts the model's group-versions.
func (m *Model) GroupVersionCount() int {
	n := 0
	for _, g := range m.Groups {
		n += len(g.Versions)
	}
	return n
}

// filter returns the elements of in that keep keeps, in order; nil when
// none.
func filter[T any](in []T, keep func(T) bool) []T {
	var out []T
	for _, x := range in {
		if keep(x) {
			out = append(out, x)
		}
	}
	return out
}

// Build turns parsed packages into the model, validating tags and names.
// Packages whose +genclient types yield neither informer nor lister are left
// out. It runs three kinds of steps (select.go, derive.go, validate.go):
// selecting the types and packages that get code, deriving their names, and
// validating those names, then the groups against each other and the
// generated names (checkGeneratedNames, names.go).
// Packages are taken in order and an error is returned as soon as it is
// met, so a bad input reports its first problem in package order; the model
// is returned only when every check passed.
//
// With listersOnly no type gets an informer, and the names only informers
// use (the group's Go name) are not checked.
//
// With withClientset every +genclient type is also kept in its version's
// ClientTypes, and a package whose types get neither informer nor lister,
// or that has a +genclient tag but no +genclient type, still makes a
// version (of the clientset only).
//
// With clientsetOnly (which needs withClientset) no type gets an informer or
// a lister.
func Build(pkgs []load.ParsedPackage, n Namers, reservedGroupPackages []string, listersOnly, withClientset, clientsetOnly bool) (*Model, error) {
	b := &modelBuilder{n: n, m: &Model{}, groups: map[string]*Group{}, informed: map[string]load.ParsedType{}, listersOnly: listersOnly, withClientset: withClientset, clientsetOnly: clientsetOnly}
	for _, p := range pkgs {
		if err := b.addPackage(p); err != nil {
			return nil, err
		}
	}
	m := b.m
	m.Groups = sortedGroups(b.groups)
	if err := validateGroups(m.Groups, reservedGroupPackages, listersOnly); err != nil {
		return nil, err
	}
	deriveImportIdents(m.Groups)
	for _, g := range m.Groups {
		deriveAliases(g)
	}
	if err := checkGeneratedNames(m); err != nil {
		return nil, err
	}
	return m, nil
}

// modelBuilder is the state Build accumulates across packages. It is
// used by one goroutine.
type modelBuilder struct {
	n      Namers
	m      *Model
	groups map[string]*Group // by API group name
	// informed maps a Go type's identity to the type that got its informer:
	// the factory keeps one informer per Go type, so two informers for one
	// type (aliases) would silently share a cache.
	informed map[string]load.ParsedType
	// listersOnly: no type gets an informer (upstream lister-gen's run).
	listersOnly bool
	// withClientset: every +genclient type is kept for the clientset.
	withClientset bool
	// clientsetOnly: no type gets an informer or a lister.
	clientsetOnly bool
}

// displayGroup names a group in messages ("" is the core group).
func displayGroup(g string) string {
	if g == "" {
		return "core"
	}
	return g
}
