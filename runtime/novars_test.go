package runtime_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestNoPackageLevelVars fails, naming file:line (relative to runtime/)
// and the variable, for every package-level var in runtime/'s non-test Go
// files that is neither an error value (every value an errors.New or
// fmt.Errorf call, or an Err* var of another package of the module exported
// again) nor an interface assertion (`var _ I = ...`). State held in
// package vars is shared by every informer, queue and controller of a
// process (and by parallel tests); it belongs in the value that uses it. A
// preset value is a function returning it.
func TestNoPackageLevelVars(t *testing.T) {
	type offender struct {
		key   string // "path:name"
		where token.Position
	}
	var offenders []offender
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path == "." {
				return nil
			}
			if d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") || strings.HasPrefix(d.Name(), "_") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir // another module
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, id := range packageVarOffenders(f) {
			offenders = append(offenders, offender{filepath.ToSlash(path) + ":" + id.Name, fset.Position(id.Pos())})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range offenders {
		_, name, _ := strings.Cut(o.key, ":")
		t.Errorf("%s:%d: package-level var %s (allowed: errors.New or fmt.Errorf values, and `var _ I = ...`); keep state in the value that uses it",
			filepath.ToSlash(o.where.Filename), o.where.Line, name)
	}
}

// modulePath is the module whose error values a package may export again.
const modulePath = "github.com/typedinformer/typedinformer"

// packageVarOffenders returns the names declared by f's package-level vars
// other than error values and interface assertions.
func packageVarOffenders(f *ast.File) []*ast.Ident {
	// Local names of the errors and fmt imports (usually "errors", "fmt").
	imported := map[string]string{}
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		name := path[strings.LastIndex(path, "/")+1:]
		if imp.Name != nil {
			name = imp.Name.Name
		}
		imported[name] = path
	}
	isErrorValue := func(e ast.Expr) bool {
		// pkg.ErrX: another package of the module's error value, exported
		// again (a public package naming an internal package's error).
		if sel, ok := e.(*ast.SelectorExpr); ok {
			pkg, ok := sel.X.(*ast.Ident)
			return ok && strings.HasPrefix(imported[pkg.Name], modulePath+"/") && strings.HasPrefix(sel.Sel.Name, "Err")
		}
		call, ok := e.(*ast.CallExpr)
		if !ok {
			return false
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok {
			return false
		}
		pkg, ok := sel.X.(*ast.Ident)
		if !ok {
			return false
		}
		switch imported[pkg.Name] {
		case "errors":
			return sel.Sel.Name == "New"
		case "fmt":
			return sel.Sel.Name == "Errorf"
		}
		return false
	}
	var out []*ast.Ident
	for _, decl := range f.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.VAR {
			continue
		}
		for _, spec := range gd.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, name := range vs.Names {
				switch {
				case name.Name == "_" && vs.Type != nil && len(vs.Values) > 0:
					// var _ I = (*T)(nil): an interface assertion.
				case len(vs.Values) == len(vs.Names) && isErrorValue(vs.Values[i]):
				default:
					out = append(out, name)
				}
			}
		}
	}
	return out
}
