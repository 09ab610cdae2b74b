package load

import (
	"bytes"
	"context"
	"go/ast"
	"go/token"
	"sort"
	"strconv"
	"strings"
)

// ParsedType is a type declaration that carries +genclient tags.
type ParsedType struct {
	Name string
	Pos  string // file:line of the type's name
	// Tags are the comment lines of the block before the type's doc comment
	// (separated from it by one blank line) followed by the doc comment's, as
	// client-gen reads them.
	Tags []CommentLine
	// ObjectMeta reports whether the type is a struct embedding ObjectMeta,
	// directly or, once definitions are followed (see FollowDefinitions),
	// through the type it is defined as or an alias of.
	ObjectMeta bool
	// Generic reports whether the type has type parameters.
	Generic bool
	// HasStatus reports whether the type is a struct with a field (or an
	// embedded type) named Status: client-gen gives only such types
	// UpdateStatus and ApplyStatus.
	HasStatus bool
	// Def is what the type is defined as when that is another named type
	// ("type Foo Bar", "type Foo = v1.Bar"); nil for a struct or anything else.
	Def *typeRef
	// Unfollowed says why Def could not be followed to a struct, if it could not.
	Unfollowed string
	// Embeds are the struct's embedded named types other than ObjectMeta,
	// followed when ObjectMeta is not embedded directly.
	Embeds []*typeRef
	// needsTypes is set when reading syntax could not settle ObjectMeta:
	// the type-checking fallback (typeCheckFallback) then decides.
	needsTypes bool
	// Identity is the Go type the name stands for, "<import path>.<name>":
	// the type itself, or for an alias the defined type it names.
	Identity string
}

// typeRef names a type as written in a declaration: Name in the same package
// (Qualifier == "") or in the package the file imports as Qualifier.
type typeRef struct {
	Qualifier string
	Name      string
	Alias     bool
	// file are the imports of the file the name is written in.
	file *fileImports
}

// StringConst is a top-level string constant found in a package.
type StringConst struct {
	Value string
	Pos   string
}

// parsedFile is what the generator needs from one file: syntax and comments
// only, never types.
type parsedFile struct {
	fileHead
	GroupName *StringConst // const GroupName = "..."
	Types     []ParsedType
	// Genclient is set when a comment line of the file starts with
	// +genclient, wherever it stands.
	Genclient bool
}

// ParsedPackage is one input package reduced to what generation needs.
type ParsedPackage struct {
	InputPackage
	Name       string
	PackagePos string // file:line of the package clause of doc.go or of the first file read
	// Tags are the package's tag lines: all comments of doc.go, or, without a
	// doc.go, the package doc comments of its files.
	Tags      []CommentLine
	GroupName *StringConst
	Types     []ParsedType // sorted by name
	// Genclient is set when a comment line of one of the package's files
	// starts with +genclient, on a type or not: client-gen writes a typed
	// client for such a package even without +genclient types.
	Genclient bool
}

// relevant reports whether a file must be parsed: it is doc.go, or it may
// hold a +genclient type, a +groupName tag or a GroupName constant. Most
// files of an API package (generated protobuf, deepcopy, swagger docs) are
// skipped by this byte scan without being parsed.
func relevant(base string, src []byte) bool {
	return base == "doc.go" ||
		bytes.Contains(src, []byte("+genclient")) ||
		bytes.Contains(src, []byte("+groupName")) ||
		declaresGroupName(src)
}

// declaresGroupName reports whether src may declare an identifier GroupName
// with a value ("GroupName =" or "GroupName string ="), not merely use a
// longer name such as PodGroupName.
func declaresGroupName(src []byte) bool {
	const name = "GroupName"
	for rest := src; ; {
		i := bytes.Index(rest, []byte(name))
		if i < 0 {
			return false
		}
		before := byte(' ')
		if i > 0 {
			before = rest[i-1]
		}
		after := bytes.TrimLeft(rest[i+len(name):], " \t")
		if t, ok := bytes.CutPrefix(after, []byte("string")); ok {
			after = bytes.TrimLeft(t, " \t")
		}
		if !isIdentByte(before) && len(after) > 0 && after[0] == '=' && (len(after) == 1 || after[1] != '=') {
			return true
		}
		rest = rest[i+len(name):]
	}
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// inputFile is what one reading of an input file gives each target: the
// informers' and clients' view when relevant keeps the file, its type
// declarations for the Loader when holdsAPITypes does (and apply
// configurations are generated).
type inputFile struct {
	informers *parsedFile
	decls     *declFile
}

// ReadInputs parses every file of the input packages once, concurrently,
// for the informers and clients and, with withDecls, for the Loader: the
// type declarations of the files holdsAPITypes keeps, which the Loader then
// serves (NewLoader) instead of reading the inputs again.
func ReadInputs(ctx context.Context, pkgs []InputPackage, withDecls bool) ([]ParsedPackage, []*DeclPackage, error) {
	results, err := parseFiles(ctx, pkgs, func(fset *token.FileSet, filename string) (inputFile, error) {
		var informers, decls bool
		f, head, err := parseRelevant(fset, filename, func(base string, src []byte) bool {
			informers, decls = relevant(base, src), withDecls && holdsAPITypes(base, src)
			return informers || decls
		}, true)
		if f == nil || err != nil {
			return inputFile{}, err
		}
		var in inputFile
		if informers {
			in.informers = parsedFileOf(fset, f, head)
		}
		if decls {
			in.decls = declFileOf(fset, f, head)
		}
		return in, nil
	})
	if err != nil {
		return nil, nil, err
	}
	informerFiles := make([][]*parsedFile, len(results))
	var declared []*DeclPackage
	for i, files := range results {
		informerFiles[i] = make([]*parsedFile, len(files))
		declFiles := make([]*declFile, len(files))
		for j, f := range files {
			informerFiles[i][j], declFiles[j] = f.informers, f.decls
		}
		if withDecls {
			declared = append(declared, declPackageOf(pkgs[i], declFiles))
		}
	}
	return parsedPackages(pkgs, informerFiles), declared, nil
}

// parsedPackages assembles, from the files read (nil for a file skipped),
// by package and file in input order, the packages with a +genclient tag (on
// a type or anywhere in a comment, as kube_codegen.sh picks client-gen's
// inputs).
func parsedPackages(pkgs []InputPackage, results [][]*parsedFile) []ParsedPackage {

	var out []ParsedPackage
	for i, p := range pkgs {
		pp := ParsedPackage{InputPackage: p}
		heads := make([]*fileHead, len(results[i]))
		for j, f := range results[i] {
			if f == nil {
				continue
			}
			heads[j] = &f.fileHead
			if f.GroupName != nil && pp.GroupName == nil {
				pp.GroupName = f.GroupName
			}
			pp.Types = append(pp.Types, f.Types...)
			pp.Genclient = pp.Genclient || f.Genclient
		}
		if !pp.Genclient {
			continue // no +genclient tag at all
		}
		pp.Name, pp.PackagePos, pp.Tags = packageHead(heads)
		sort.Slice(pp.Types, func(a, b int) bool { return pp.Types[a].Name < pp.Types[b].Name })
		out = append(out, pp)
	}
	return out
}

// parseFile reads one file and extracts package tags, the GroupName constant
// and the +genclient types. It returns nil, nil for a file that holds none.
func parseFile(fset *token.FileSet, filename string) (*parsedFile, error) {
	f, head, err := parseRelevant(fset, filename, relevant, true)
	if f == nil || err != nil {
		return nil, err
	}
	return parsedFileOf(fset, f, head), nil
}

// parsedFileOf extracts what parseFile returns from a parsed file.
func parsedFileOf(fset *token.FileSet, f *ast.File, head *fileHead) *parsedFile {
	pf := &parsedFile{fileHead: *head}
	for _, cg := range f.Comments {
		if AnyGenclient(commentLines(fset, cg)) {
			pf.Genclient = true
			break
		}
	}
	tags := &declTags{fset: fset, f: f} // indexed lazily: most files have no tagged type
	var imps *fileImports
	importsFor := func() *fileImports {
		if imps == nil {
			imps = importsOf(fset, f)
		}
		return imps
	}
	for _, decl := range f.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok {
			continue
		}
		switch gd.Tok {
		case token.CONST:
			if pf.GroupName == nil {
				pf.GroupName = groupNameConst(fset, gd)
			}
		case token.TYPE:
			for _, spec := range gd.Specs {
				ts := spec.(*ast.TypeSpec)
				tl := tags.of(ts)
				if !AnyGenclient(tl) {
					continue
				}
				pt := ParsedType{
					Name:       ts.Name.Name,
					Pos:        position(fset, ts.Name.Pos()),
					Tags:       tl,
					ObjectMeta: embedsObjectMeta(ts.Type),
					Generic:    ts.TypeParams != nil && len(ts.TypeParams.List) > 0,
				}
				if ref := refOf(ts.Type, importsFor()); ref != nil {
					ref.Alias = ts.Assign.IsValid()
					pt.Def = ref
				} else if _, isStruct := ts.Type.(*ast.StructType); !isStruct {
					pt.needsTypes = true // e.g. an instance of a generic struct
				}
				pt.HasStatus = hasStatusField(ts.Type)
				if st, ok := ts.Type.(*ast.StructType); ok && !pt.ObjectMeta {
					for _, field := range st.Fields.List {
						ft := field.Type
						if star, isStar := ft.(*ast.StarExpr); isStar {
							ft = star.X
						}
						if len(field.Names) != 0 {
							continue
						}
						if r := refOf(ft, importsFor()); r != nil {
							pt.Embeds = append(pt.Embeds, r)
						} else {
							pt.needsTypes = true // e.g. an instance of a generic struct
						}
					}
				}
				pf.Types = append(pf.Types, pt)
			}
		}
	}
	return pf
}

// AnyGenclient reports whether a tag line starts with "+genclient".
func AnyGenclient(lines []CommentLine) bool {
	for _, l := range lines {
		if strings.HasPrefix(l.Text, "+genclient") {
			return true
		}
	}
	return false
}

// groupNameConst returns `GroupName = "..."` from a const declaration.
func groupNameConst(fset *token.FileSet, gd *ast.GenDecl) *StringConst {
	for _, spec := range gd.Specs {
		vs := spec.(*ast.ValueSpec)
		for i, n := range vs.Names {
			if n.Name != "GroupName" || i >= len(vs.Values) {
				continue
			}
			lit, ok := vs.Values[i].(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				continue
			}
			v, err := strconv.Unquote(lit.Value)
			if err != nil {
				continue
			}
			return &StringConst{Value: v, Pos: position(fset, n.Pos())}
		}
	}
	return nil
}

// refOf returns the named type expr refers to ("Bar", "v1.Bar"), written in
// a file with imports file, or nil when expr is not a plain type name.
func refOf(expr ast.Expr, file *fileImports) *typeRef {
	switch x := expr.(type) {
	case *ast.Ident:
		return &typeRef{Name: x.Name, file: file}
	case *ast.SelectorExpr:
		if q, ok := x.X.(*ast.Ident); ok {
			return &typeRef{Qualifier: q.Name, Name: x.Sel.Name, file: file}
		}
	}
	return nil
}

// embedsObjectMeta reports whether a type is a struct that embeds
// ObjectMeta (metav1.ObjectMeta, or ObjectMeta itself inside meta/v1), which
// makes its pointer a metav1.Object.
func embedsObjectMeta(typ ast.Expr) bool { return embedsNamed(typ, "ObjectMeta") }

// hasStatusField reports whether typ is a struct with a member named Status:
// a named field, or an embedded type of that name.
func hasStatusField(typ ast.Expr) bool {
	st, ok := typ.(*ast.StructType)
	if !ok {
		return false
	}
	for _, field := range st.Fields.List {
		for _, n := range field.Names {
			if n.Name == "Status" {
				return true
			}
		}
	}
	return embedsNamed(typ, "Status")
}

// embedsNamed reports whether typ is a struct embedding a type called name,
// of its own package or another, or a pointer to one.
func embedsNamed(typ ast.Expr, name string) bool {
	st, ok := typ.(*ast.StructType)
	if !ok {
		return false
	}
	for _, t := range embeddedTypes(st) {
		switch x := t.(type) {
		case *ast.SelectorExpr:
			if x.Sel.Name == name {
				return true
			}
		case *ast.Ident:
			if x.Name == name {
				return true
			}
		}
	}
	return false
}

// embeddedTypes are the types of st's embedded fields, in order; for an
// embedded pointer, the type it points to.
func embeddedTypes(st *ast.StructType) []ast.Expr {
	var out []ast.Expr
	for _, field := range st.Fields.List {
		if len(field.Names) != 0 {
			continue
		}
		t := field.Type
		if star, ok := t.(*ast.StarExpr); ok {
			t = star.X
		}
		out = append(out, t)
	}
	return out
}
