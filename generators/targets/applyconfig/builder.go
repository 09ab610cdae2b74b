package applyconfig

import (
	"fmt"
	"go/token"
	"path"
	"sort"
	"strings"
	"unicode"

	"github.com/typedinformer/typedinformer/generators/load"
	"github.com/typedinformer/typedinformer/generators/model"
	"github.com/typedinformer/typedinformer/generators/plan"
)

// This file builds what one apply configuration file receives: the
// builder's fields and its With, ensure and Get methods, with the member
// types mapped to their apply configurations.

// applyFor is the apply configuration type of a member type:
// applyconfiguration-gen's mapping (a struct with an apply configuration
// becomes it; slices and maps of one become slices and maps of it; a
// pointer is dropped; anything else stays as written).
func (g *acGen) applyFor(t *load.TypeExpr) *load.TypeExpr {
	switch t.Kind {
	case load.KindNamed:
		if pkg, ok := g.refs[typeKey(t.Pkg, t.Name)]; ok {
			return &load.TypeExpr{Kind: load.KindNamed, Pkg: pkg, Name: t.Name + applyConfigSuffix}
		}
	case load.KindMap:
		if g.isApply(t.Elem) && t.Elem.Kind == load.KindNamed {
			return &load.TypeExpr{Kind: load.KindMap, Key: g.applyFor(t.Key), Elem: g.applyFor(t.Elem)}
		}
	case load.KindSlice:
		if g.isApply(t.Elem) && t.Elem.Kind == load.KindNamed {
			return &load.TypeExpr{Kind: load.KindSlice, Elem: g.applyFor(t.Elem)}
		}
	case load.KindPointer:
		return g.applyFor(t.Elem)
	}
	return t
}

// isApply reports whether t is, or points to, a type with an apply configuration.
func (g *acGen) isApply(t *load.TypeExpr) bool {
	switch t.Kind {
	case load.KindNamed:
		_, ok := g.refs[typeKey(t.Pkg, t.Name)]
		return ok
	case load.KindPointer:
		return g.isApply(t.Elem)
	}
	return false
}

func deref(t *load.TypeExpr) *load.TypeExpr {
	for t.Kind == load.KindPointer {
		t = t.Elem
	}
	return t
}

func nillable(t *load.TypeExpr) bool { return t.Kind == load.KindSlice || t.Kind == load.KindMap }

func isMetaType(t *load.TypeExpr, name string) bool {
	return t.Kind == load.KindNamed && t.Pkg == metav1Pkg && t.Name == name
}

// embedsMeta reports whether a struct embeds metav1.<name> (not a pointer).
func embedsMeta(s *acStruct, name string) bool {
	for _, m := range s.members {
		if m.Embedded && isMetaType(m.Type, name) {
			return true
		}
	}
	return false
}

// embedsOtherObjectMeta reports whether a struct embeds, json-tagged and
// not through a pointer, a struct named ObjectMeta of a package other than
// meta/v1 (a copy of it, as cilium's slim meta/v1): its apply
// configuration embeds that struct as the API type and reads the name to
// apply by from it.
func embedsOtherObjectMeta(s *acStruct) bool {
	for _, m := range s.members {
		if _, tagged := load.LookupJSON(m); m.Embedded && tagged && m.Type.Kind == load.KindNamed && m.Type.Name == "ObjectMeta" && m.Type.Pkg != metav1Pkg {
			return true
		}
	}
	return false
}

// titleWord upper-cases the first letter of each word of s and lower-cases
// the rest, as the Extract<Type><Subresource> functions are named.
func titleWord(s string) string {
	var b strings.Builder
	start := true
	for _, r := range s {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			start = true
			b.WriteRune(r)
		case start:
			b.WriteRune(unicode.ToUpper(r))
			start = false
		default:
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// acTypeFile is what an apply configuration file receives.
type acTypeFile struct {
	Imports []plan.ImportLine
	Name    string // the API type ("Deployment")
	AC      string // "DeploymentApplyConfiguration"
	Doc     []string
	Fields  []acField
	// Constructor is "namespaced" or "cluster" for a +genclient type, else
	// "typeMeta" (sets Kind and APIVersion) or "plain".
	Constructor      string
	Kind, APIVersion string
	IsApply          bool
	Extract          *acExtract
	Methods          []acMethod
}

type acField struct {
	Doc  []string
	Decl string
}

type acExtract struct {
	Obj, Param, OpenAPIType string
	Namespaced              bool
	Subresources            []acSubresource
}

type acSubresource struct{ Name, Path string }

// acMethod is one method of a builder.
type acMethod struct {
	// Kind is "with", "withSlice", "withMap", "ensureEmbed", "ensureSlice",
	// "get" or "getValue" (a getter of a string that is no pointer).
	Kind   string
	Member string
	// Path is the field the method sets ("b.ObjectMetaApplyConfiguration.Name").
	Path string
	// Type is the parameter (or, for a getter, result) type; Elem the
	// element type a slice method takes or an ensure method allocates.
	Type, Elem string
	// Ensure is the ensure method to call first, if any.
	Ensure string
	// Pointer: with assigns &value; withSlice checks for nil and appends
	// *values[i]; get returns a pointer.
	Pointer bool
	// PtrSlice: the member is a pointer to a slice, which SliceEnsure
	// allocates.
	PtrSlice    bool
	SliceEnsure string
	// Embed is, for getValue, the embedded pointer field that may be nil.
	Embed string
}

// typeFile builds one apply configuration file.
func (g *acGen) typeFile(pl *acPlanned, r acRoot) (*acTypeFile, error) {
	imps := plan.NewImportSet(applyFileNames)
	w := &acWriter{g: g, imps: imps, local: pl.pkg, otherMeta: r.tags.GenerateClient && embedsOtherObjectMeta(r.st)}
	f := &acTypeFile{Name: r.decl.Name, AC: r.decl.Name + applyConfigSuffix, Kind: r.decl.Name, APIVersion: apiVersion(pl.group, pl.version)}
	for _, l := range r.decl.Tags {
		if !strings.HasPrefix(l.Text, "+") {
			f.Doc = append(f.Doc, l.Text)
		}
	}
	for _, m := range r.st.members {
		if blocklisted(r.st, m) {
			continue
		}
		jt, ok := load.LookupJSON(m)
		if !ok {
			continue
		}
		if !jt.Inline {
			jt.OmitEmpty = true
		}
		mt := w.typeString(g.applyFor(m.Type))
		var decl string
		switch {
		case m.Embedded && jt.Inline:
			decl = fmt.Sprintf("%s `json:%q`", mt, jt.String())
		case m.Embedded:
			decl = fmt.Sprintf("*%s `json:%q`", mt, jt.String())
		case nillable(m.Type):
			decl = fmt.Sprintf("%s %s `json:%q`", m.Name, mt, jt.String())
		default:
			decl = fmt.Sprintf("%s *%s `json:%q`", m.Name, mt, jt.String())
		}
		var doc []string
		for _, l := range m.Doc {
			if !strings.HasPrefix(strings.TrimSpace(l), "+") {
				doc = append(doc, l)
			}
		}
		f.Fields = append(f.Fields, acField{Doc: doc, Decl: decl})
	}
	hasTypeMeta := embedsMeta(r.st, "TypeMeta")
	switch {
	case r.tags.GenerateClient && r.tags.NonNamespaced:
		f.Constructor = "cluster"
	case r.tags.GenerateClient:
		f.Constructor = "namespaced"
	case hasTypeMeta:
		f.Constructor = "typeMeta"
	default:
		f.Constructor = "plain"
	}
	f.IsApply = r.tags.GenerateClient || hasTypeMeta
	if r.tags.GenerateClient && g.openAPI != nil {
		if n, ok := g.openAPI[f.APIVersion+"/"+r.decl.Name]; ok {
			x := &acExtract{Obj: imps.Add(pl.api.ImportPath, model.PackageAlias(pl.api.ImportPath)) + "." + r.decl.Name, Param: model.PrivateName(r.decl.Name), OpenAPIType: n, Namespaced: !r.tags.NonNamespaced}
			subs := map[string]bool{}
			if !r.tags.NoStatus {
				for _, m := range r.st.members {
					if m.Name == "Status" {
						subs["status"] = true
						break
					}
				}
			}
			for _, e := range r.tags.Extensions {
				if e.Subresource != "" {
					subs[e.Subresource] = true
				}
			}
			for s := range subs {
				x.Subresources = append(x.Subresources, acSubresource{Name: titleWord(s), Path: s})
			}
			sort.Slice(x.Subresources, func(i, j int) bool { return x.Subresources[i].Path < x.Subresources[j].Path })
			f.Extract = x
			imps.Fixed("k8s.io/apimachinery/pkg/util/managedfields", "managedfields")
			imps.Fixed(path.Join(g.outPkg, "internal"), "internal")
		}
	}
	var generated []string
	if err := w.withs(r.st, f, nil, &generated); err != nil {
		return nil, err
	}
	if err := w.getters(r.st, f, nil); err != nil {
		return nil, err
	}
	f.Imports = imps.Imports
	return f, nil
}

// blocklisted members get no field and no method: ObjectMeta's
// ManagedFields and SelfLink, members named ZZZ_*, and members whose type
// names an unexported type, which the apply configuration's package cannot
// refer to.
func blocklisted(s *acStruct, m load.Member) bool {
	if s.decl.Pkg.ImportPath == metav1Pkg && s.decl.Name == "ObjectMeta" && (m.Name == "ManagedFields" || m.Name == "SelfLink") {
		return true
	}
	return strings.HasPrefix(m.Name, "ZZZ_") || namesUnexported(m.Type)
}

// namesUnexported reports whether t refers to an unexported declared type.
func namesUnexported(t *load.TypeExpr) bool {
	switch t.Kind {
	case load.KindNamed:
		return !token.IsExported(t.Name)
	case load.KindPointer, load.KindSlice, load.KindArray:
		return namesUnexported(t.Elem)
	case load.KindMap:
		return namesUnexported(t.Key) || namesUnexported(t.Elem)
	}
	return false
}

// acWriter renders the types and methods of one file.
type acWriter struct {
	g     *acGen
	imps  *plan.ImportSet
	local string
	// otherMeta: the file is a +genclient type's that embeds another
	// package's ObjectMeta, whose getters read it.
	otherMeta bool
}

// embedCtx is the embedded member whose members a method sets.
type embedCtx struct {
	field  string // the embedded field's name ("ObjectMetaApplyConfiguration")
	inline bool
	// api: the embedded field is the API type itself (it has no apply
	// configuration), or is reached through one, so its members are the
	// API type's members as declared.
	api bool
}

func (w *acWriter) path(e *embedCtx, member string) string {
	if e == nil {
		return "b." + member
	}
	return "b." + e.field + "." + member
}

func (w *acWriter) ensure(e *embedCtx) string {
	if e == nil || e.inline {
		return ""
	}
	return "ensure" + e.field + "Exists"
}

// jsonMember is a member of a builder: its json tag and the apply
// configuration type of its type.
type jsonMember struct {
	load.Member
	json  load.JSONTag
	apply *load.TypeExpr
}

// jsonMembers are the members of s a builder has: json-tagged and not
// blocklisted, in order.
func (w *acWriter) jsonMembers(s *acStruct) []jsonMember {
	var out []jsonMember
	for _, m := range s.members {
		if blocklisted(s, m) {
			continue
		}
		if jt, ok := load.LookupJSON(m); ok {
			out = append(out, jsonMember{Member: m, json: jt, apply: w.g.applyFor(m.Type)})
		}
	}
	return out
}

// embedded follows the embedded member tm of s, itself reached through
// outer (nil for the builder's own members), to its struct (nil when it is
// none the generator can read) and returns the context its members'
// methods are set through.
func (w *acWriter) embedded(s *acStruct, tm jsonMember, outer *embedCtx) (*acStruct, *embedCtx, error) {
	base := deref(tm.Type)
	inner, err := w.g.structOf(base.Pkg, base.Name, s.decl.Pkg.Dir)
	ctx := &embedCtx{field: tm.apply.Name, inline: tm.json.Inline, api: !w.g.isApply(tm.Type)}
	if outer != nil && outer.api {
		ctx.field, ctx.api = base.Name, true
	}
	return inner, ctx, err
}

// withs adds the With methods of s's members (and of its embedded
// structs' members, once per name; none through an embedded pointer, whose
// struct may be nil) to f.
func (w *acWriter) withs(s *acStruct, f *acTypeFile, embed *embedCtx, generated *[]string) error {
	for _, tm := range w.jsonMembers(s) {
		m, jt, at := tm.Member, tm.json, tm.apply
		if containsString(*generated, m.Name) {
			continue
		}
		*generated = append(*generated, m.Name)
		if m.Embedded {
			inner, ctx, err := w.embedded(s, tm, embed)
			if err != nil {
				return err
			}
			if inner != nil && m.Type.Kind != load.KindPointer {
				if err := w.withs(inner, f, ctx, generated); err != nil {
					return err
				}
			}
			// A pointer to an API type the embedded members' With
			// methods set needs the same ensure method as one to an
			// apply configuration.
			if !jt.Inline && (w.g.isApply(m.Type) || (inner != nil && embed == nil)) {
				f.Methods = append(f.Methods, acMethod{Kind: "ensureEmbed", Member: at.Name, Elem: w.typeString(at)})
			}
			continue
		}
		if embed != nil && embed.api {
			f.Methods = append(f.Methods, w.apiMemberWith(m, at, embed, f))
			continue
		}
		mt := at
		if w.g.isApply(m.Type) {
			mt = &load.TypeExpr{Kind: load.KindPointer, Elem: at}
		}
		meth := acMethod{Member: m.Name, Path: w.path(embed, m.Name), Ensure: w.ensure(embed)}
		if d := deref(m.Type); (d.Kind == load.KindSlice && w.g.isApply(d.Elem)) || m.Type.Kind == load.KindSlice {
			// A slice of apply configurations takes pointers to them.
			meth.Kind = "withSlice"
			meth.PtrSlice = m.Type.Kind == load.KindPointer
			meth.Pointer = w.g.isApply(d.Elem)
			meth.Elem = w.typeString(at.Elem)
			if meth.PtrSlice {
				// The field is *[]T: an ensure method allocates it.
				meth.SliceEnsure = "ensure" + typePublicName(at.Elem) + "Exists"
				f.Methods = append(f.Methods, acMethod{Kind: "ensureSlice", Member: m.Name, Path: w.path(embed, m.Name), Elem: meth.Elem, Ensure: meth.SliceEnsure})
			}
			f.Methods = append(f.Methods, meth)
			continue
		}
		meth.Type = w.typeString(mt)
		switch m.Type.Kind {
		case load.KindMap:
			meth.Kind = "withMap"
		default:
			meth.Kind = "with"
			meth.Pointer = !(w.g.isApply(m.Type) || nillable(m.Type))
		}
		f.Methods = append(f.Methods, meth)
	}
	return nil
}

// apiMemberWith is the With method of member m of an embedded API type
// (embed.api), whose field has the type m declares: the method takes what
// the apply configuration's method of such a member takes (at; a member
// of a type with an apply configuration takes its declared type, which
// the API type's field holds) and stores it as the field's type wants,
// the value itself into a field that is no pointer. A *[]T field is
// allocated by an ensure method, as the builder's own are.
func (w *acWriter) apiMemberWith(m load.Member, at *load.TypeExpr, embed *embedCtx, f *acTypeFile) acMethod {
	meth := acMethod{Member: m.Name, Path: w.path(embed, m.Name), Ensure: w.ensure(embed)}
	declared := m.Type
	if d := deref(declared); d.Kind == load.KindSlice {
		meth.Kind = "withSlice"
		meth.PtrSlice = declared.Kind == load.KindPointer
		meth.Elem = w.typeString(d.Elem)
		if meth.PtrSlice {
			meth.SliceEnsure = "ensure" + typePublicName(d.Elem) + "Exists"
			f.Methods = append(f.Methods, acMethod{Kind: "ensureSlice", Member: m.Name, Path: meth.Path, Elem: meth.Elem, Ensure: meth.SliceEnsure})
		}
		return meth
	}
	switch {
	case declared.Kind == load.KindMap:
		meth.Kind, meth.Type = "withMap", w.typeString(declared)
	case w.g.isApply(declared):
		meth.Kind, meth.Type = "with", w.typeString(declared)
	default:
		meth.Kind, meth.Type = "with", w.typeString(at)
		meth.Pointer = declared.Kind == load.KindPointer
	}
	return meth
}

// getters adds GetName and GetNamespace (from ObjectMeta) and GetKind and
// GetAPIVersion (from TypeMeta), which Apply needs, also, for a +genclient
// type embedding another package's ObjectMeta, from that package's
// ObjectMeta and TypeMeta embedded as API types; none through an embedded
// pointer.
func (w *acWriter) getters(s *acStruct, f *acTypeFile, embed *embedCtx) error {
	for _, tm := range w.jsonMembers(s) {
		m, at := tm.Member, tm.apply
		if m.Embedded {
			inner, ctx, err := w.embedded(s, tm, embed)
			if err != nil {
				return err
			}
			if inner != nil && m.Type.Kind != load.KindPointer {
				if err := w.getters(inner, f, ctx); err != nil {
					return err
				}
			}
			continue
		}
		meta := s.decl.Pkg.ImportPath == metav1Pkg
		if w.otherMeta && embed != nil && embed.api && !meta {
			// Another package's ObjectMeta or TypeMeta, embedded as the
			// API type: its string members have no "unset" but empty.
			if (s.decl.Name == "ObjectMeta" && (m.Name == "Name" || m.Name == "Namespace")) ||
				(s.decl.Name == "TypeMeta" && (m.Name == "Kind" || m.Name == "APIVersion")) {
				if d := m.Type; d.Kind == load.KindBuiltin && d.Name == "string" {
					meth := acMethod{Kind: "getValue", Member: m.Name, Path: w.path(embed, m.Name), Type: "string"}
					if !embed.inline {
						meth.Embed = "b." + embed.field
					}
					f.Methods = append(f.Methods, meth)
				}
			}
			continue
		}
		if !(meta && s.decl.Name == "ObjectMeta" && (m.Name == "Name" || m.Name == "Namespace")) &&
			!(meta && s.decl.Name == "TypeMeta" && (m.Name == "Kind" || m.Name == "APIVersion")) {
			continue
		}
		mt := at
		if w.g.isApply(m.Type) {
			mt = &load.TypeExpr{Kind: load.KindPointer, Elem: at}
		}
		f.Methods = append(f.Methods, acMethod{Kind: "get", Member: m.Name, Path: w.path(embed, m.Name), Ensure: w.ensure(embed),
			Type: w.typeString(mt), Pointer: !(w.g.isApply(m.Type) || nillable(m.Type))})
	}
	return nil
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// typePublicName is the exported name of a type for ensure method names.
func typePublicName(t *load.TypeExpr) string {
	switch t.Kind {
	case load.KindNamed, load.KindBuiltin:
		return strings.ToUpper(t.Name[:1]) + t.Name[1:]
	case load.KindPointer:
		return typePublicName(t.Elem)
	case load.KindSlice:
		return typePublicName(t.Elem) + "Slice"
	case load.KindMap:
		return "MapOf" + typePublicName(t.Key) + "To" + typePublicName(t.Elem)
	}
	return "Value"
}

// typeString writes t as the file refers to it, adding imports.
func (w *acWriter) typeString(t *load.TypeExpr) string {
	switch t.Kind {
	case load.KindNamed:
		if t.Pkg == w.local {
			return t.Name
		}
		want := model.PackageAlias(t.Pkg)
		if strings.HasPrefix(t.Pkg, w.g.outPkg+"/") || t.Pkg == clientGoMetaApplyPkg || strings.HasSuffix(t.Name, applyConfigSuffix) {
			want = "applyconfigurations" + want
		}
		return w.imps.Add(t.Pkg, want) + "." + t.Name
	case load.KindBuiltin:
		if t.Name == "uint8" {
			return "byte" // the same type, spelt as applyconfiguration-gen spells it
		}
		return t.Name
	case load.KindPointer:
		return "*" + w.typeString(t.Elem)
	case load.KindSlice:
		return "[]" + w.typeString(t.Elem)
	case load.KindArray:
		return "[" + t.Len + "]" + w.typeString(t.Elem)
	case load.KindMap:
		return "map[" + w.typeString(t.Key) + "]" + w.typeString(t.Elem)
	}
	return t.Src
}

// applyFileNames are the names apply configuration files use for
// themselves and their fixed imports; an import may not take one.
var applyFileNames = []string{"b", "value", "values", "entries", "k", "v", "i", "err", "kind", "scheme", "fieldManager", "subresource", "managedfields", "internal", "schema", "runtime", "typed", "fmt", "sync"}
