package runtime_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEveryExportedNameHasADocComment walks the runtime packages and fails
// for each exported function, type, method (of an exported type), constant,
// variable and interface method without a doc comment. The contract of the
// runtime lives in those comments.
func TestEveryExportedNameHasADocComment(t *testing.T) {
	var missing []string
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || !strings.Contains(path, string(filepath.Separator)) {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		report := func(pos token.Pos, what string) {
			missing = append(missing, fset.Position(pos).String()+": "+what)
		}
		for _, decl := range f.Decls {
			switch decl := decl.(type) {
			case *ast.FuncDecl:
				if !decl.Name.IsExported() || decl.Doc != nil {
					continue
				}
				if decl.Recv != nil && !exportedReceiver(decl.Recv) {
					continue
				}
				report(decl.Pos(), "func "+decl.Name.Name)
			case *ast.GenDecl:
				for _, spec := range decl.Specs {
					switch spec := spec.(type) {
					case *ast.TypeSpec:
						if !spec.Name.IsExported() {
							continue
						}
						if spec.Doc == nil && decl.Doc == nil {
							report(spec.Pos(), "type "+spec.Name.Name)
						}
						if it, ok := spec.Type.(*ast.InterfaceType); ok {
							for _, m := range it.Methods.List {
								if len(m.Names) == 1 && m.Names[0].IsExported() && m.Doc == nil {
									report(m.Pos(), spec.Name.Name+"."+m.Names[0].Name)
								}
							}
						}
					case *ast.ValueSpec:
						for _, n := range spec.Names {
							if n.IsExported() && spec.Doc == nil && decl.Doc == nil {
								report(n.Pos(), n.Name)
							}
						}
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range missing {
		t.Errorf("no doc comment: %s", m)
	}
}

func exportedReceiver(recv *ast.FieldList) bool {
	typ := recv.List[0].Type
	for {
		switch x := typ.(type) {
		case *ast.StarExpr:
			typ = x.X
		case *ast.IndexExpr:
			typ = x.X
		case *ast.IndexListExpr:
			typ = x.X
		case *ast.Ident:
			return x.IsExported()
		default:
			return false
		}
	}
}
