package applyconfig

import (
	"embed"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"text/template"

	"github.com/typedinformer/typedinformer/generators/internal/inputerr"
	"github.com/typedinformer/typedinformer/generators/load"
	"github.com/typedinformer/typedinformer/generators/model"
	"github.com/typedinformer/typedinformer/generators/plan"
)

// This file plans the apply configurations applyconfiguration-gen v0.37
// writes: for every struct type with json-tagged members reachable from a
// +genclient type with an apply verb, a builder <Type>ApplyConfiguration with
// With<Member> methods, its constructor and, for the +genclient types when an
// OpenAPI schema is given, the Extract functions; the utils package (ForKind,
// NewTypeConverter) and the internal package (the schema and its Parser).
// reach.go decides which types get one, builder.go
// what each file declares.

const (
	metav1Pkg            = "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientGoMetaApplyPkg = "k8s.io/client-go/applyconfigurations/meta/v1"
	// applyConfigSuffix ends every apply configuration's type name.
	applyConfigSuffix = "ApplyConfiguration"
)

// defaultExternalApplyConfigurations are the meta/v1 types whose apply
// configurations client-go ships; applyconfiguration-gen always knows them.
var defaultExternalApplyConfigurations = []string{
	"Condition", "DeleteOptions", "LabelSelector", "LabelSelectorRequirement",
	"ManagedFieldsEntry", "ObjectMeta", "OwnerReference", "TypeMeta",
}

// acPlanned is one package of apply configurations.
type acPlanned struct {
	api     *load.DeclPackage
	pkg     string // import path of the apply configurations
	sub     string // its directory below the root
	group   string // API group ("" for core)
	version string
	goName  string // group's Go name, for utils' comments
	types   []acRoot
}

// acRoot is one type that gets an apply configuration file.
type acRoot struct {
	decl *load.TypeDecl
	st   *acStruct
	tags load.ClientTags
}

// parseExternals reads --external-applyconfigurations entries,
// "<type package>.<Type>:<apply configuration package>".
func parseExternals(entries []string) (map[string]string, error) {
	out := map[string]string{}
	for _, n := range defaultExternalApplyConfigurations {
		out[typeKey(metav1Pkg, n)] = clientGoMetaApplyPkg
	}
	for _, e := range entries {
		e = strings.TrimSpace(e)
		if e == "" {
			continue
		}
		typ, pkg, ok := strings.Cut(e, ":")
		i := strings.LastIndex(typ, ".")
		if !ok || i <= 0 || i == len(typ)-1 || !load.IsImportPath(pkg) || !load.IsImportPath(typ[:i]) || !load.IsExportedIdent(typ[i+1:]) {
			return nil, inputerr.Errorf("", "--external-applyconfigurations: %q is not <type package>.<Type>:<apply configuration package> (e.g. k8s.io/api/apps/v1.Deployment:k8s.io/client-go/applyconfigurations/apps/v1)", e)
		}
		out[typ] = pkg
	}
	return out, nil
}

// Plan decides which types get apply configurations and lays out their
// files. parsed are the inputs as load.ReadInputs read them; other packages
// are located and read through ld, the run's load.Loader. externals are
// --external-applyconfigurations' entries; schema, when not nil, is the
// OpenAPI document given with --openapi-schema.
func Plan(ld *load.Loader, parsed []*load.DeclPackage, externals []string, l plan.Layout, schema *OpenAPIDoc) ([]plan.File, error) {
	refs, err := parseExternals(externals)
	if err != nil {
		return nil, err
	}
	var files []plan.File
	add := func(p, tmpl string, d applyData) {
		files = append(files, plan.File{Path: p, Template: applyTemplates().Lookup(tmpl), Data: d})
	}

	g := &acGen{
		loader: ld,
		inputs: map[string]*load.DeclPackage{}, others: map[string]*load.DeclPackage{},
		outPkg: l.ApplyPkg,
		refs:   refs, structs: map[string]*acStruct{},
	}
	// The packages that get apply configurations, keyed by their output
	// package: applyconfiguration-gen's <group>/<version> from the last two
	// path elements, lower-cased.
	var planned []*acPlanned
	byOut := map[string]*acPlanned{}
	for _, p := range parsed {
		g.inputs[p.ImportPath] = p
	}
	for _, p := range parsed {
		tags := load.ExtractTags(p.Tags)
		if v, ok := tags["k8s:applyconfiguration-gen"]; ok && strings.TrimSpace(v[len(v)-1].Value) == "false" {
			continue
		}
		internal, err := g.isInternalPackage(p)
		if err != nil {
			return nil, err
		}
		if internal {
			continue
		}
		sub := strings.ToLower(model.GroupVersionPath(p.ImportPath))
		pl := &acPlanned{api: p, sub: sub, pkg: path.Join(l.ApplyPkg, sub), version: path.Base(p.ImportPath), group: path.Base(path.Dir(p.ImportPath))}
		if v, ok := tags["groupName"]; ok {
			pl.group = v[0].Value
		}
		pl.goName = model.GroupGoName(pl.group, "")
		if v, ok := tags["groupGoName"]; ok {
			pl.goName = model.GroupGoName(pl.group, v[0].Value)
		}
		if other, dup := byOut[pl.pkg]; dup {
			return nil, inputerr.Errorf(p.PackagePos, "packages %s and %s would share the apply configurations package %s (it is named after the last two elements of the import path)", other.api.ImportPath, p.ImportPath, pl.pkg)
		}
		byOut[pl.pkg] = pl
		planned = append(planned, pl)
	}
	sort.Slice(planned, func(i, j int) bool { return planned[i].pkg < planned[j].pkg })

	// Reachability from the +genclient types with an apply verb.
	seen := map[string]bool{}
	for _, pl := range planned {
		for _, name := range load.SortedDeclNames(pl.api) {
			d := pl.api.Decls[name]
			if !load.AnyGenclient(d.Tags) {
				continue
			}
			ct, err := load.ParseClientTags(load.ParsedType{Name: d.Name, Pos: d.Pos, Tags: d.Tags})
			if err != nil {
				return nil, err
			}
			if !ct.GenerateClient {
				continue
			}
			if hasApplyVerb(ct) {
				if err := g.reach(&load.TypeExpr{Kind: load.KindNamed, Pkg: pl.api.ImportPath, Name: d.Name}, pl.api.Dir, seen); err != nil {
					return nil, err
				}
			}
			for _, e := range ct.Extensions {
				if e.Verb != "apply" || e.Input == "" {
					continue
				}
				ipkg, iname := load.SplitTypeRef(e.Input)
				if ipkg != "" {
					if err := g.reach(&load.TypeExpr{Kind: load.KindNamed, Pkg: ipkg, Name: iname}, pl.api.Dir, seen); err != nil {
						return nil, err
					}
					continue
				}
				// An input of the type's own package is reached as
				// applyconfiguration-gen reaches it: the name is marked,
				// but the members walked are the +genclient type's.
				seen[typeKey(pl.api.ImportPath, iname)] = true
				if err := g.reachMembers(pl.api, d, seen); err != nil {
					return nil, err
				}
			}
		}
	}
	for _, pl := range planned {
		for _, name := range load.SortedDeclNames(pl.api) {
			key := typeKey(pl.api.ImportPath, name)
			if !seen[key] {
				continue
			}
			ok, err := g.requiresApplyConfiguration(pl.api.ImportPath, name, pl.api.Dir)
			if err != nil {
				return nil, err
			}
			if ok {
				g.refs[key] = pl.pkg
			}
		}
	}

	if schema != nil {
		g.openAPI = map[string]string{}
	}
	var roots []string // OpenAPI names of the roots, for the schema
	for _, pl := range planned {
		for _, name := range load.SortedDeclNames(pl.api) {
			d := pl.api.Decls[name]
			var ct load.ClientTags
			if load.AnyGenclient(d.Tags) {
				if ct, err = load.ParseClientTags(load.ParsedType{Name: d.Name, Pos: d.Pos, Tags: d.Tags}); err != nil {
					return nil, err
				}
			}
			if _, ok := g.refs[typeKey(pl.api.ImportPath, name)]; !ok {
				continue
			}
			st, err := g.structOf(pl.api.ImportPath, name, pl.api.Dir)
			if err != nil {
				return nil, err
			}
			if st == nil {
				continue
			}
			if ct.GenerateClient {
				if !embedsMeta(st, "ObjectMeta") && !embedsOtherObjectMeta(st) {
					continue // no name to apply by
				}
				if g.openAPI != nil && (hasApplyVerb(ct)) {
					n := restFriendlyName(typeKey(pl.api.ImportPath, name))
					g.openAPI[apiVersion(pl.group, pl.version)+"/"+name] = n
					roots = append(roots, n)
				}
			}
			pl.types = append(pl.types, acRoot{decl: d, st: st, tags: ct})
		}
	}

	var utilGroups []*acUtilGroup
	groupIndex := map[string]*acUtilGroup{}
	for _, pl := range planned {
		if len(pl.types) == 0 {
			continue
		}
		dir := filepath.Join(l.ApplyDir, filepath.FromSlash(pl.sub))
		for _, r := range pl.types {
			fd, err := g.typeFile(pl, r)
			if err != nil {
				return nil, err
			}
			add(filepath.Join(dir, strings.ToLower(r.decl.Name)+".go"), "applyconfig_type.go.tmpl", applyData{Package: model.PackageName(strings.ToLower(pl.version)), Apply: fd})
		}
		gname := pl.group
		if gname == "" {
			gname = "core"
		}
		ug := groupIndex[gname]
		if ug == nil {
			ug = &acUtilGroup{Name: gname, GoName: pl.goName}
			groupIndex[gname] = ug
			utilGroups = append(utilGroups, ug)
		}
		uv := &acUtilVersion{Name: pl.version, API: pl.api.ImportPath, Pkg: pl.pkg}
		for _, r := range pl.types {
			uv.Kinds = append(uv.Kinds, r.decl.Name)
		}
		ug.Versions = append(ug.Versions, uv)
	}
	sort.Slice(utilGroups, func(i, j int) bool { return strings.ToLower(utilGroups[i].Name) < strings.ToLower(utilGroups[j].Name) })
	imps := plan.NewImportSet(applyFileNames)
	for _, ug := range utilGroups {
		sort.Slice(ug.Versions, func(i, j int) bool {
			return strings.ToLower(ug.Versions[i].Name) < strings.ToLower(ug.Versions[j].Name)
		})
		for _, uv := range ug.Versions {
			uv.APIAlias = imps.Add(uv.API, model.PackageAlias(uv.API))
			uv.Alias = imps.Add(uv.Pkg, "applyconfigurations"+model.PackageAlias(uv.API))
		}
	}
	for _, f := range []plan.ImportLine{{Alias: "internal", Path: path.Join(l.ApplyPkg, "internal")}, {Alias: "runtime", Path: "k8s.io/apimachinery/pkg/runtime"}, {Alias: "schema", Path: "k8s.io/apimachinery/pkg/runtime/schema"}, {Alias: "managedfields", Path: "k8s.io/apimachinery/pkg/util/managedfields"}} {
		imps.Fixed(f.Path, f.Alias)
	}
	add(filepath.Join(l.ApplyDir, "utils.go"), "applyconfig_utils.go.tmpl", applyData{Package: model.PackageName(path.Base(l.ApplyPkg)), ApplyUtils: &acUtilsData{Groups: utilGroups, Imports: imps.Imports}})

	schemaYAML := emptySMDSchema
	if schema != nil {
		if schemaYAML, err = schema.smdYAML(roots); err != nil {
			return nil, err
		}
	}
	add(filepath.Join(l.ApplyDir, "internal", "internal.go"), "applyconfig_internal.go.tmpl", applyData{Package: "internal", ApplySchema: schemaYAML})
	return files, nil
}

// hasApplyVerb reports whether a type's tags name apply or applyStatus,
// +genclient:noVerbs notwithstanding, as applyconfiguration-gen reads them.
func hasApplyVerb(ct load.ClientTags) bool {
	return containsString(ct.TaggedVerbs, "apply") || containsString(ct.TaggedVerbs, "applyStatus")
}

// apiVersion is "<group>/<version>", or the version for the core group.
func apiVersion(group, version string) string {
	if group == "" {
		return version
	}
	return group + "/" + version
}

// restFriendlyName is the OpenAPI definition name of a Go type
// "k8s.io/api/apps/v1.Deployment": its first path element's domain
// reversed, slashes made dots ("io.k8s.api.apps.v1.Deployment").
func restFriendlyName(name string) string {
	parts := strings.Split(name, "/")
	if strings.Contains(parts[0], ".") {
		d := strings.Split(parts[0], ".")
		for i, j := 0, len(d)-1; i < j; i, j = i+1, j-1 {
			d[i], d[j] = d[j], d[i]
		}
		parts[0] = strings.Join(d, ".")
	}
	return strings.Join(parts, ".")
}

// applyData is what the apply configurations' templates receive; fields a
// template does not use are zero.
type applyData struct {
	// Package is the Go package name of the file.
	Package string
	// Apply is an apply configuration's type file, ApplyUtils the utils
	// package and ApplySchema the internal package's schema YAML.
	Apply       *acTypeFile
	ApplyUtils  *acUtilsData
	ApplySchema string
}

// applyTemplateFS holds the apply configurations' templates: one per type,
// the utils package and the internal package.
//
//go:embed templates/applyconfig_*.tmpl
var applyTemplateFS embed.FS

// applyTemplates are parsed once per process; template.Template is safe for
// concurrent Execute. The templates are embedded: failing to parse them is a
// bug, found by every test that renders.
var applyTemplates = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("").ParseFS(applyTemplateFS, "templates/applyconfig_*.tmpl"))
})

// acUtilsData is what utils.go receives.
type acUtilsData struct {
	Groups  []*acUtilGroup
	Imports []plan.ImportLine
}

type acUtilGroup struct {
	Name, GoName string
	Versions     []*acUtilVersion
}

type acUtilVersion struct {
	Name     string
	API, Pkg string
	APIAlias string
	Alias    string
	Kinds    []string
}
