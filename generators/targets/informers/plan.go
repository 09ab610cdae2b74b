package informers

import (
	"embed"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"text/template"

	"github.com/typedinformer/typedinformer/generators/model"
	"github.com/typedinformer/typedinformer/generators/plan"
)

// templateFS holds the informers' and listers' templates, one per kind of
// generated file: the factory (factory.go.tmpl, factory_interfaces.go.tmpl,
// generic.go.tmpl), the group and version interfaces, the informers, the
// listers and their expansions.
//
//go:embed templates/*.tmpl
var templateFS embed.FS

// templates are parsed once per process; template.Template is safe for
// concurrent Execute. The templates are embedded: failing to parse them is a
// bug, found by every test that renders.
var templates = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("").ParseFS(templateFS, "templates/*.tmpl"))
})

// templateData is what a template receives. Fields irrelevant to a template
// are zero.
type templateData struct {
	// Package is the Go package name of the file (factory and generic files).
	Package string
	// ClientsetPackage is the import path of the versioned clientset.
	ClientsetPackage string
	// InformersPackage is the import path of the informers root
	// (…/informers/externalversions).
	InformersPackage string
	// ListersPackage is the import path of the version's listers package.
	ListersPackage string
	Model          *model.Model
	Group          *model.Group
	Version        *model.Version
	Type           *model.Type
	// Expansions are the expansion interfaces expansion_generated.go declares.
	Expansions []expansion
}

// expansion is an empty interface a lister embeds so that users can add
// methods to it.
type expansion struct {
	Name    string // "WidgetNamespaceListerExpansion"
	Extends string // "WidgetNamespaceLister"
	File    string // where a user would declare it: "widget_expansion.go"
}

// Plan lays the model's informers, factory and listers out in files under
// l's informers and listers directories. clientsetPkg is the import path of
// the versioned clientset the informers list and watch through. userDecls
// returns the type names declared by non-generated files of an output
// directory, so that expansion_generated.go never redeclares an interface a
// user wrote.
func Plan(m *model.Model, l plan.Layout, clientsetPkg string, userDecls func(dir string) (map[string]bool, error)) ([]plan.File, error) {
	var files []plan.File
	add := func(p, tmpl string, d templateData) {
		d.Model, d.ClientsetPackage, d.InformersPackage = m, clientsetPkg, l.InformersPkg
		files = append(files, plan.File{Path: p, Template: templates().Lookup(tmpl), Data: d})
	}
	if groups := m.InformerGroups(); len(groups) > 0 {
		root := model.UpstreamPackageName(filepath.Base(l.InformersDir), path.Base(l.InformersPkg))
		add(filepath.Join(l.InformersDir, "internalinterfaces", "factory_interfaces.go"), "factory_interfaces.go.tmpl", templateData{})
		add(filepath.Join(l.InformersDir, "factory.go"), "factory.go.tmpl", templateData{Package: root})
		add(filepath.Join(l.InformersDir, "generic.go"), "generic.go.tmpl", templateData{Package: root})
		for _, g := range groups {
			gdir := filepath.Join(l.InformersDir, g.Dir)
			add(filepath.Join(gdir, "interface.go"), "group_interface.go.tmpl", templateData{Group: g})
			for _, v := range g.InformerVersions() {
				vdir := filepath.Join(gdir, v.Dir)
				listers := path.Join(l.ListersPkg, g.ListersDir, v.Dir)
				add(filepath.Join(vdir, "interface.go"), "version_interface.go.tmpl", templateData{Group: g, Version: v})
				for _, t := range v.InformerTypes() {
					add(filepath.Join(vdir, t.FileName()), "informer.go.tmpl", templateData{Group: g, Version: v, Type: t, ListersPackage: listers})
				}
			}
		}
	}
	for _, g := range m.Groups {
		for _, v := range g.Versions {
			types := v.ListerTypes()
			if len(types) == 0 {
				continue
			}
			vdir := filepath.Join(l.ListersDir, g.ListersDir, v.Dir)
			declared, err := userDecls(vdir)
			if err != nil {
				return nil, err
			}
			var expansions []expansion
			for _, t := range types {
				add(filepath.Join(vdir, t.FileName()), "lister.go.tmpl", templateData{Group: g, Version: v, Type: t})
				extends := []string{t.Name + "Lister"}
				if t.Namespaced {
					extends = append(extends, t.Name+"NamespaceLister")
				}
				for _, e := range extends {
					if !declared[e+"Expansion"] {
						expansions = append(expansions, expansion{Name: e + "Expansion", Extends: e, File: strings.ToLower(t.Name) + "_expansion.go"})
					}
				}
			}
			if len(expansions) > 0 {
				add(filepath.Join(vdir, "expansion_generated.go"), "expansion.go.tmpl", templateData{Group: g, Version: v, Expansions: expansions})
			}
		}
	}
	return files, nil
}
