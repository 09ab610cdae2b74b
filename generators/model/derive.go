package model

import (
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/typedinformer/typedinformer/generators/load"
)

// deriveType builds the model type of +genclient type t from its package's
// and its own tags: names from n (or +resourceName), scope, and whether it
// gets an informer (list and watch verbs) and a lister (list and get). It
// cannot fail; the caller validates.
func deriveType(t load.ParsedType, pt load.PackageTags, ct load.ClientTags, n Namers) *Type {
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
	typ.PrivatePlural = n.privatePlural(t.Name)
	typ.NoVerbs, typ.Extensions = ct.NoVerbs, ct.Extensions
	for _, v := range ct.Verbs {
		if (v == "updateStatus" || v == "applyStatus") && (!t.HasStatus || ct.NoStatus) {
			continue
		}
		typ.Verbs = append(typ.Verbs, v)
	}
	return typ
}

// deriveVersion builds the version API package p defines, holding types, and
// returns it with its group's Go name (client-gen's, or +groupGoName). The
// names may be unusable: validateVersion checks them.
func deriveVersion(p load.ParsedPackage, pt load.PackageTags, types []*Type) (*Version, string) {
	versionName := path.Base(p.ImportPath)
	v := &Version{
		Name:        versionName,
		GoName:      versionGoName(versionName),
		Dir:         strings.ToLower(versionName),
		PackageName: UpstreamPackageName(strings.ToLower(versionName), versionName),
		APIPackage:  p.ImportPath,
		Types:       types,
		pos:         p.PackagePos,
	}
	return v, GroupGoName(pt.Group, pt.GroupGoName)
}

// sortedGroups returns the groups sorted by Dir, then Name, each
// with its versions sorted by Name: the model's order, which makes
// rendering deterministic.
func sortedGroups(groups map[string]*Group) []*Group {
	var out []*Group // nil without groups, as the model always had
	for _, g := range groups {
		sort.Slice(g.Versions, func(i, j int) bool { return g.Versions[i].Name < g.Versions[j].Name })
		out = append(out, g)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Dir != out[j].Dir {
			return out[i].Dir < out[j].Dir
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// reservedImportNames are the import names generated files use for fixed
// packages; an API package alias that equals one of them gets a suffix.
var reservedImportNames = []string{
	"cache", "context", "fmt", "informers", "internalinterfaces", "labels", "listers",
	"group", "metav1", "reflect", "runtime", "schema", "time", "version", "versioned", "watch",
	// Local names of the informer files' functions, which an import of the
	// same name would be shadowed by.
	"client", "namespace", "gvr", "options", "informer", "typed", "indexers",
}

// deriveImportIdents sets each group's importIdent: its PackageName, or,
// when several groups share that name ("cilium.io" and "cilium.com" are both
// package cilium), its whole directory name sanitized ("ciliumio"). The
// groups' Dirs must be validated and unique.
func deriveImportIdents(groups []*Group) {
	count := map[string]int{}
	for _, g := range groups {
		count[g.PackageName]++
	}
	for _, g := range groups {
		g.importIdent = g.PackageName
		if count[g.PackageName] > 1 {
			g.importIdent = PackageName(g.Dir)
		}
	}
}

// deriveAliases sets the import names generated files give g's API and
// lister packages: the group's import name joined with the version's
// package name, suffixed when it would shadow a fixed import. It needs the
// group's importIdent.
func deriveAliases(g *Group) {
	for _, v := range g.Versions {
		v.APIAlias = g.importIdent + v.PackageName
		if slices.Contains(reservedImportNames, v.APIAlias) {
			v.APIAlias += "api"
		}
		v.ListersAlias = v.APIAlias + "listers"
	}
}
