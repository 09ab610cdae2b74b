package model

import (
	"path"
	"strings"

	"github.com/typedinformer/typedinformer/generators/internal/inputerr"
	"github.com/typedinformer/typedinformer/generators/load"
)

// addPackage selects what package p contributes to the model: nothing when
// it has no informer or lister tag, or no +genclient type that gets an
// informer or a lister; otherwise one version of one group, merged into
// b.groups. Tag, type and name errors come back in the order they are met.
func (b *modelBuilder) addPackage(p load.ParsedPackage) error {
	pt, err := load.ParsePackageTags(p)
	if err != nil {
		return err
	}
	if b.clientsetOnly {
		pt.InformerGen, pt.ListerGen = false, false
	}
	if !pt.InformerGen && !pt.ListerGen && !b.withClientset {
		return nil
	}
	types, clientTypes, err := b.selectTypes(p, pt)
	// client-gen writes a typed client, empty when it has no types, for
	// every package it is given.
	anyClient := len(clientTypes) > 0 || (b.withClientset && p.Genclient)
	if err != nil || !anyClient {
		return err
	}
	b.m.ClientPackages++
	if !pt.HasGroup {
		return inputerr.Errorf(p.PackagePos, "package %s has +genclient types but no group name: add // +groupName=<group> (e.g. example.com) to its doc.go", p.ImportPath)
	}
	if len(types) == 0 && !b.withClientset {
		return nil
	}
	v, goName := deriveVersion(p, pt, types)
	if b.withClientset {
		v.Client, v.ClientTypes = true, clientTypes
	}
	if err := validateVersion(p, pt, v, goName, b.listersOnly); err != nil {
		return err
	}
	return b.addVersion(p, pt, v, goName)
}

// selectTypes returns the +genclient types of p that get an informer or a
// lister, and every +genclient type of p, in source order.
// Every +genclient type is validated (validateClientType); every selected
// one must also be able to back an informer (validateInformedType), and
// becomes the owner of its Go type's informer in b.informed.
func (b *modelBuilder) selectTypes(p load.ParsedPackage, pt load.PackageTags) (types, clientTypes []*Type, err error) {
	for _, t := range p.Types {
		ct, err := load.ParseClientTags(t)
		if err != nil {
			return nil, nil, err
		}
		if !ct.GenerateClient {
			continue
		}
		if err := validateClientType(t); err != nil {
			return nil, nil, err
		}
		typ := deriveType(t, pt, ct, b.n)
		if b.withClientset && !t.ObjectMeta {
			return nil, nil, inputerr.Errorf(t.Pos, "type %s has +genclient but does not embed metav1.ObjectMeta, which its typed client needs (client-go's gentype clients take a metav1.Object)", t.Name)
		}
		clientTypes = append(clientTypes, typ)
		if !pt.InformerGen && !pt.ListerGen {
			continue
		}
		if b.listersOnly {
			typ.Informer = false
		}
		if !typ.Informer && !typ.Lister {
			continue
		}
		if err := b.validateInformedType(t, typ); err != nil {
			return nil, nil, err
		}
		if typ.Informer && t.Identity != "" {
			b.informed[t.Identity] = t
		}
		if err := validateObjectMeta(t); err != nil {
			return nil, nil, err
		}
		types = append(types, typ)
	}
	return types, clientTypes, nil
}

// addVersion files v under its group in b.groups, creating the group the
// first time it is seen. Every version of a group must give it the same Go
// name, and no two packages may define the same group-version.
func (b *modelBuilder) addVersion(p load.ParsedPackage, pt load.PackageTags, v *Version, goName string) error {
	g := b.groups[pt.Group]
	if g == nil {
		dir := path.Base(path.Dir(p.ImportPath))
		g = &Group{Name: pt.Group, GoName: goName, Dir: dir, ListersDir: strings.ToLower(dir), PackageName: groupDirPackageName(dir), pos: pt.GroupPos}
		b.groups[pt.Group] = g
	} else if g.GoName != goName && !b.listersOnly {
		return inputerr.Errorf(pt.GroupPos, "package %s: group %q has Go name %q here but %q at %s: give every version the same +groupGoName", p.ImportPath, pt.Group, goName, g.GoName, g.pos)
	}
	for _, other := range g.Versions {
		if other.Name == v.Name {
			return inputerr.Errorf(p.PackagePos, "package %s: group-version %s/%s is also defined by %s", p.ImportPath, displayGroup(pt.Group), v.Name, other.APIPackage)
		}
	}
	g.Versions = append(g.Versions, v)
	return nil
}
