package model

import (
	"path"
	"slices"
	"strings"

	"github.com/typedinformer/typedinformer/generators/internal/inputerr"
	"github.com/typedinformer/typedinformer/generators/load"
)

// validateClientType checks what every +genclient type needs, whether or
// not it gets an informer or a lister: a concrete, exported type.
func validateClientType(t load.ParsedType) error {
	if t.Generic {
		return inputerr.Errorf(t.Pos, "type %s has +genclient but type parameters: clients, informers and listers need a concrete type (declare one, e.g. type %sOfX = %s[X], and move +genclient to it)", t.Name, t.Name, t.Name)
	}
	if !load.IsExportedIdent(t.Name) {
		return inputerr.Errorf(t.Pos, "type %s has +genclient but is not exported (its name must start with an upper-case letter): rename it or drop the tag", t.Name)
	}
	return nil
}

// validateInformedType checks a type selected for an informer or a lister,
// before it is recorded in b.informed: following its definition must not
// have stopped short of metav1.ObjectMeta, and its Go type must not already
// have an informer through an alias. It reads b.informed only.
func (b *modelBuilder) validateInformedType(t load.ParsedType, typ *Type) error {
	if !t.ObjectMeta && t.Unfollowed != "" {
		return inputerr.Errorf(t.Pos, "type %s has +genclient but informers and listers need it to embed metav1.ObjectMeta, and following its definition did not find it: %s (make it a struct embedding metav1.ObjectMeta, or mark the type +genclient:noVerbs)", t.Name, t.Unfollowed)
	}
	if other, dup := b.informed[t.Identity]; dup && typ.Informer && t.Identity != "" {
		return inputerr.Errorf(t.Pos, "type %s is the same Go type (%s) as type %s at %s, through an alias: the informer factory keeps one informer per Go type, so both would share one cache; make one of them a type definition (type %s X) or drop its +genclient", t.Name, t.Identity, other.Name, other.Pos, t.Name)
	}
	return nil
}

// validateObjectMeta checks that a type selected for an informer or a lister
// embeds metav1.ObjectMeta.
func validateObjectMeta(t load.ParsedType) error {
	if !t.ObjectMeta {
		return inputerr.Errorf(t.Pos, "type %s has +genclient but does not embed metav1.ObjectMeta, which informers and listers need (embed it, or mark the type +genclient:noVerbs)", t.Name)
	}
	return nil
}

// factoryMethods are the names a group's Go name must not take: the
// generated factory already has methods of these names.
var factoryMethods = []string{"Base", "Client", "Start", "Shutdown", "WaitForCacheSync", "RemoveInformer", "ForResource"}

// validateVersion checks the names deriveVersion gave package p's version
// v and its group (goName): the package must sit at <group>/<version>, and
// both Go names must be identifiers, the group's not one of the factory's
// methods. Listers use neither Go name: with listersOnly only the layout is
// checked.
func validateVersion(p load.ParsedPackage, pt load.PackageTags, v *Version, goName string, listersOnly bool) error {
	if parent := path.Dir(p.ImportPath); parent == "." || parent == "/" {
		return inputerr.Errorf(p.PackagePos, "package %s: informer-gen needs API packages laid out as <group>/<version>", p.ImportPath)
	}
	if listersOnly {
		return nil
	}
	if !load.IsIdentifier(goName) {
		return inputerr.Errorf(pt.GroupPos, "package %s: group %q has no usable Go name: add // +groupGoName=<Name> to its doc.go", p.ImportPath, pt.Group)
	}
	if slices.Contains(factoryMethods, goName) {
		return inputerr.Errorf(pt.GroupPos, "package %s: group Go name %q collides with a factory method: add // +groupGoName=<OtherName> to its doc.go", p.ImportPath, goName)
	}
	if !load.IsIdentifier(v.GoName) {
		return inputerr.Errorf(p.PackagePos, "package %s: version directory %q is not usable as a Go name", p.ImportPath, v.Name)
	}
	return nil
}

// validateGroups checks the sorted groups against each other: no group may
// be generated into a directory informer-gen uses itself (reserved), and no
// two may share an output directory (compared ignoring case, since the
// listers directory is the lower-cased one and file systems may ignore case)
// or a Go name. The first offending group in the model's order is reported.
//
// With listersOnly the Go names, which only informers use, are not compared.
func validateGroups(groups []*Group, reserved []string, listersOnly bool) error {
	for i, g := range groups {
		if slices.Contains(reserved, g.Dir) || slices.Contains(reserved, g.PackageName) {
			return inputerr.Errorf(g.pos, "group %q would be generated into directory %q, which informer-gen uses itself: move its packages to another parent directory", displayGroup(g.Name), g.Dir)
		}
		for _, other := range groups[:i] {
			if strings.EqualFold(other.Dir, g.Dir) {
				return inputerr.Errorf(g.pos, "groups %q and %q both come from directories named %q: their generated packages would collide", displayGroup(other.Name), displayGroup(g.Name), g.ListersDir)
			}
			if other.GoName == g.GoName && !listersOnly {
				return inputerr.Errorf(g.pos, "groups %q and %q share the Go name %q: set a distinct // +groupGoName= in one of them (client-gen needs it too)", displayGroup(other.Name), displayGroup(g.Name), g.GoName)
			}
		}
	}
	return nil
}
