package clientset

import (
	"bytes"
	"embed"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"text/template"

	"github.com/typedinformer/typedinformer/generators/load"
	"github.com/typedinformer/typedinformer/generators/model"
	"github.com/typedinformer/typedinformer/generators/plan"
)

// This file plans the versioned clientset and its fake: the packages
// client-gen v0.37 writes, with its file names, package names and exported
// names, from the same model as the informers and listers.

// Options are the flags the clientset's planner reads.
type Options struct {
	// ApplyConfigurationPackage is the apply configurations' import path,
	// or "" (no Apply methods).
	ApplyConfigurationPackage string
	// PrefersProtobuf makes the clients ask for protobuf.
	PrefersProtobuf bool
	// NoFakeClientset leaves the fakes out.
	NoFakeClientset bool
}

// clientData is what the clientset's templates receive; fields a template
// does not use are zero.
type clientData struct {
	// Package is the Go package name of the file.
	Package string
	// Clientset is the clientset being generated.
	Clientset *clientsetData
	// GV is the typed client package of a group-version file, CType the
	// type of a type client file.
	GV    *clientGroupVersion
	CType *clientTypeData
	// Doc is the package comment of a doc.go.
	Doc string
	// PrivateScheme renders the fake clientset's unexported scheme.
	PrivateScheme bool
	// Expansions are the expansion interfaces generated_expansion.go
	// declares.
	Expansions []clientExpansion
}

// clientExpansion is an empty interface a typed client embeds so that
// users can add methods to it.
type clientExpansion struct {
	Name string // "WidgetExpansion"
}

// clientTemplateFS holds the clientset's templates: the clientset, its
// scheme, the typed clients (client_*) and the fakes (fake_*).
//
//go:embed templates/clientset.go.tmpl templates/client_*.tmpl templates/fake_*.tmpl
var clientTemplateFS embed.FS

// clientTemplates are parsed once per process; template.Template is safe
// for concurrent Execute. The templates are embedded: failing to parse them
// is a bug, found by every test that renders.
var clientTemplates = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("").Funcs(template.FuncMap{"dict3": newRequestPathData}).ParseFS(clientTemplateFS, "templates/*.tmpl"))
})

// requestPathData is what the clientset templates' shared request-path
// snippet receives.
type requestPathData struct {
	PB bool
	T  *clientTypeData
	E  extensionData
}

func newRequestPathData(pb bool, t *clientTypeData, e extensionData) requestPathData {
	return requestPathData{pb, t, e}
}

// clientsetData is what the clientset templates receive about the clientset.
type clientsetData struct {
	// Package is the clientset's package name ("versioned").
	Package string
	// Pkg is its import path.
	Pkg string
	// GroupVersions are every group-version with a typed client, in the
	// model's order.
	GroupVersions []*clientGroupVersion
	// ApplyPackage is the apply configurations' import path, or "".
	ApplyPackage string
	// PrefersProtobuf makes the clients ask for protobuf.
	PrefersProtobuf bool
	// CustomRegister is set when scheme/register_custom.go exists: the
	// scheme then also runs its ExtraAddToScheme, as client-gen's does.
	CustomRegister bool
}

// clientGroupVersion is one typed client package.
type clientGroupVersion struct {
	Group   *model.Group
	Version *model.Version
	// Name is the group client's name stem ("CoreV1").
	Name string
	// Alias is the import name the clientset gives the typed package and
	// the schemes the API package ("corev1"): client-gen's lower-cased Go
	// group name and version.
	Alias string
	// TypedPkg and FakePkg are the import paths of the typed client and its fake.
	TypedPkg, FakePkg string
	// APIPath is "/api" for the core group, else "/apis".
	APIPath string
	// FileStem names the group client's file: <FileStem>_client.go (the
	// group's directory, as client-gen names it).
	FileStem string
	// Types are the version's typed clients.
	Types []*clientTypeData
}

// clientTypeData is what the type client templates receive about a type.
type clientTypeData struct {
	*model.Type
	// Obj is the qualified type ("corev1.Pod"); ApplyConfig its apply
	// configuration ("applyconfigurationscorev1.PodApplyConfiguration"), or "".
	Obj, ApplyConfig string
	// API is the import name of the type's API package.
	API string
	// WithList and WithApply choose the gentype client the type embeds:
	// Variant names it ("ClientWithList") and TypeArgs are its type
	// arguments ("*corev1.Pod, *corev1.PodList").
	WithList, WithApply bool
	Variant, TypeArgs   string
	// Ext are the extension verbs, resolved.
	Ext []extensionData
	// Imports are the file's imports besides the fixed ones.
	Imports []plan.ImportLine
	// TypedAlias is the import name fake files give the typed package.
	TypedAlias string
}

// extensionData is one +genclient:method verb, its types qualified.
type extensionData struct {
	Method, Verb, Subresource string
	// In and Res are the qualified input and result types; InApply the
	// input's apply configuration.
	In, Res, InApply string
	// InParam is the input parameter's name ("scale"); NameParam the
	// parent's name parameter of a subresource verb ("deploymentName").
	InParam, NameParam string
	// Sig is the method's signature in the interface.
	Sig string
}

// fixedClientImports are the import names the client templates use for
// fixed packages; an API package may not take one.
var fixedClientImports = []string{
	"context", "fmt", "time", "json", "http", "metav1", "types", "watch", "runtime", "schema", "serializer",
	"utilruntime", "gentype", "apply", "scheme", "rest", "testing", "discovery", "fakediscovery", "flowcontrol",
	"clientset", "applyconfigurations",
}

// buildClientType resolves the names one type's client files use.
func buildClientType(v *model.Version, t *model.Type, applyPkg string) *clientTypeData {
	imps := plan.NewImportSet(fixedClientImports)
	api := imps.Add(v.APIPackage, v.APIAlias)
	d := &clientTypeData{Type: t, Obj: api + "." + t.Name, TypedAlias: "typed" + v.APIAlias}
	applyAlias := func(pkg string) string {
		return imps.Add(path.Join(applyPkg, model.GroupVersionPath(pkg)), "applyconfigurations"+model.PackageAlias(pkg))
	}
	if applyPkg != "" {
		d.ApplyConfig = applyAlias(v.APIPackage) + "." + t.Name + "ApplyConfiguration"
	}
	d.API = api
	d.WithList = !t.NoVerbs && t.HasVerb("list")
	d.WithApply = !t.NoVerbs && t.HasVerb("apply") && applyPkg != ""
	d.Variant, d.TypeArgs = "Client", "*"+d.Obj
	if d.WithList {
		d.Variant, d.TypeArgs = d.Variant+"WithList", d.TypeArgs+", *"+d.Obj+"List"
	}
	if d.WithApply {
		if d.WithList {
			d.Variant = "ClientWithListAndApply"
		} else {
			d.Variant = "ClientWithApply"
		}
		d.TypeArgs += ", *" + d.ApplyConfig
	}
	qualify := func(ref string) (qualified, pkg, name string) {
		pkg, name = load.SplitTypeRef(ref)
		if pkg == "" {
			pkg = v.APIPackage
		}
		return imps.Add(pkg, model.PackageAlias(pkg)) + "." + name, pkg, name
	}
	if !t.NoVerbs {
		for _, e := range t.Extensions {
			if e.Verb == "apply" && applyPkg == "" {
				continue
			}
			x := extensionData{Method: e.Method, Verb: e.Verb, Subresource: e.Subresource, In: d.Obj, Res: d.Obj,
				InParam: t.Private(), NameParam: t.Private() + "Name"}
			inPkg, inName := v.APIPackage, t.Name
			if e.Input != "" {
				x.In, inPkg, inName = qualify(e.Input)
				x.InParam = model.PrivateName(inName)
			}
			if e.Result != "" {
				x.Res, _, _ = qualify(e.Result)
			}
			if e.Verb == "apply" {
				x.InApply = applyAlias(inPkg) + "." + inName + "ApplyConfiguration"
			}
			x.Sig = extensionSignature(x)
			d.Ext = append(d.Ext, x)
		}
	}
	d.Imports = imps.Imports
	return d
}

// extensionSignature is client-gen's interface method for an extension
// verb: the default verb's, renamed, or for a subresource the subresource
// form (which takes the parent's name) where client-gen has one.
func extensionSignature(x extensionData) string {
	sub := x.Subresource != ""
	name := ""
	if sub {
		name = x.NameParam + " string, "
	}
	switch {
	case x.Verb == "create":
		return fmt.Sprintf("%s(ctx context.Context, %s%s *%s, opts metav1.CreateOptions) (*%s, error)", x.Method, name, x.InParam, x.In, x.Res)
	case x.Verb == "update":
		return fmt.Sprintf("%s(ctx context.Context, %s%s *%s, opts metav1.UpdateOptions) (*%s, error)", x.Method, name, x.InParam, x.In, x.Res)
	case x.Verb == "get" && sub:
		return fmt.Sprintf("%s(ctx context.Context, %soptions metav1.GetOptions) (*%s, error)", x.Method, name, x.Res)
	case x.Verb == "get":
		return fmt.Sprintf("%s(ctx context.Context, name string, opts metav1.GetOptions) (*%s, error)", x.Method, x.Res)
	case x.Verb == "list":
		return fmt.Sprintf("%s(ctx context.Context, %sopts metav1.ListOptions) (*%sList, error)", x.Method, name, x.Res)
	case x.Verb == "patch":
		return fmt.Sprintf("%s(ctx context.Context, name string, pt types.PatchType, data []byte, opts metav1.PatchOptions, subresources ...string) (result *%s, err error)", x.Method, x.Res)
	case x.Verb == "apply" && sub:
		return fmt.Sprintf("%s(ctx context.Context, %s%s *%s, opts metav1.ApplyOptions) (*%s, error)", x.Method, name, x.InParam, x.InApply, x.Res)
	default: // apply
		return fmt.Sprintf("%s(ctx context.Context, %s *%s, opts metav1.ApplyOptions) (result *%s, err error)", x.Method, x.InParam, x.InApply, x.Res)
	}
}

// Plan lays out the clientset's files. exists reports whether a
// file is in the output tree (client-gen leaves an expansion interface to a
// <type>_expansion.go the user wrote, and adds ExtraAddToScheme when
// scheme/register_custom.go exists).
func Plan(m *model.Model, l plan.Layout, o Options, exists func(string) bool) []plan.File {
	var files []plan.File
	add := func(p, tmpl string, d clientData) {
		files = append(files, plan.File{Path: p, Template: clientTemplates().Lookup(tmpl), Data: d, Post: pruneImports})
	}
	cs := &clientsetData{
		Package:         path.Base(l.ClientsetPkg),
		Pkg:             l.ClientsetPkg,
		ApplyPackage:    o.ApplyConfigurationPackage,
		PrefersProtobuf: o.PrefersProtobuf,
		CustomRegister:  exists(filepath.Join(l.ClientsetDir, "scheme", "register_custom.go")),
	}
	for _, g := range m.Groups {
		for _, v := range g.Versions {
			if !v.Client {
				continue
			}
			sub := path.Join("typed", strings.ToLower(g.Dir), strings.ToLower(v.Name))
			gv := &clientGroupVersion{
				Group: g, Version: v, Name: g.GoName + v.GoName,
				Alias:    strings.ToLower(g.GoName) + strings.ToLower(v.Name),
				TypedPkg: path.Join(l.ClientsetPkg, sub), FakePkg: path.Join(l.ClientsetPkg, sub, "fake"),
				APIPath: "/apis", FileStem: g.Dir,
			}
			if g.Name == "" {
				gv.APIPath = "/api"
			}
			for _, t := range v.ClientTypes {
				gv.Types = append(gv.Types, buildClientType(v, t, o.ApplyConfigurationPackage))
			}
			cs.GroupVersions = append(cs.GroupVersions, gv)
		}
	}
	if len(cs.GroupVersions) == 0 {
		return nil
	}
	data := func(d clientData) clientData {
		d.Clientset = cs
		return d
	}
	dir := l.ClientsetDir
	add(filepath.Join(dir, "clientset.go"), "clientset.go.tmpl", data(clientData{Package: cs.Package}))
	add(filepath.Join(dir, "scheme", "doc.go"), "client_doc.go.tmpl", data(clientData{Package: "scheme", Doc: "Package scheme holds the scheme, codecs and parameter codec of the generated clientset."}))
	add(filepath.Join(dir, "scheme", "register.go"), "client_scheme.go.tmpl", data(clientData{Package: "scheme"}))
	fake := !o.NoFakeClientset
	if fake {
		add(filepath.Join(dir, "fake", "doc.go"), "client_doc.go.tmpl", data(clientData{Package: "fake", Doc: "Package fake is the generated clientset's fake, over client-go's object tracker, for tests."}))
		add(filepath.Join(dir, "fake", "clientset_generated.go"), "fake_clientset.go.tmpl", data(clientData{Package: "fake"}))
		add(filepath.Join(dir, "fake", "register.go"), "client_scheme.go.tmpl", data(clientData{Package: "fake", PrivateScheme: true}))
	}
	for _, gv := range cs.GroupVersions {
		vdir := filepath.Join(dir, filepath.FromSlash(strings.TrimPrefix(gv.TypedPkg, l.ClientsetPkg+"/")))
		pkg := gv.Version.PackageName
		add(filepath.Join(vdir, "doc.go"), "client_doc.go.tmpl", data(clientData{Package: pkg, Doc: "Package " + pkg + " has the generated typed clients of " + gv.Group.DisplayName() + "/" + gv.Version.Name + "."}))
		add(filepath.Join(vdir, gv.FileStem+"_client.go"), "client_group.go.tmpl", data(clientData{Package: pkg, GV: gv}))
		var expansions []clientExpansion
		for _, t := range gv.Types {
			add(filepath.Join(vdir, t.FileName()), "client_type.go.tmpl", data(clientData{Package: pkg, GV: gv, CType: t}))
			if !exists(filepath.Join(vdir, strings.ToLower(t.Name+"_expansion.go"))) {
				expansions = append(expansions, clientExpansion{Name: t.Name + "Expansion"})
			}
		}
		add(filepath.Join(vdir, "generated_expansion.go"), "client_expansion.go.tmpl", data(clientData{Package: pkg, Expansions: expansions}))
		if fake {
			fdir := filepath.Join(vdir, "fake")
			add(filepath.Join(fdir, "doc.go"), "client_doc.go.tmpl", data(clientData{Package: "fake", Doc: "Package fake has the generated fake typed clients of " + gv.Group.DisplayName() + "/" + gv.Version.Name + "."}))
			add(filepath.Join(fdir, "fake_"+gv.FileStem+"_client.go"), "fake_group.go.tmpl", data(clientData{Package: "fake", GV: gv}))
			for _, t := range gv.Types {
				add(filepath.Join(fdir, "fake_"+t.FileName()), "fake_type.go.tmpl", data(clientData{Package: "fake", GV: gv, CType: t}))
			}
		}
	}
	return files
}

// pruneImports removes the imports a rendered file does not use: the
// clientset templates import every package a variant of the file may need.
// Every import must be named.
func pruneImports(src []byte) ([]byte, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	used := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok {
				used[id.Name] = true
			}
		}
		return true
	})
	var drop []int
	for _, imp := range f.Imports {
		name := ""
		if imp.Name != nil {
			name = imp.Name.Name
		} else {
			p, _ := strconv.Unquote(imp.Path.Value)
			name = path.Base(p)
		}
		if name != "_" && !used[name] {
			drop = append(drop, fset.Position(imp.Pos()).Line)
		}
	}
	if len(drop) == 0 {
		return src, nil
	}
	sort.Ints(drop)
	lines := bytes.SplitAfter(src, []byte("\n"))
	var out bytes.Buffer
	for i, line := range lines {
		if j := sort.SearchInts(drop, i+1); j < len(drop) && drop[j] == i+1 {
			continue
		}
		out.Write(line)
	}
	return format.Source(out.Bytes())
}
