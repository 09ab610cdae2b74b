package load

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/build"
	"go/parser"
	"go/printer"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// declarations prints what a parse of src declares, with positions: every
// declaration (a function's without its body, the others with the comments
// inside them), doc comments, and the comments outside function bodies.
func declarations(src []byte) (string, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "x.go", src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "package %s at %v, doc %q\n", f.Name.Name, fset.Position(f.Package), f.Doc.Text())
	var bodies [][2]token.Pos
	for _, d := range f.Decls {
		fmt.Fprintf(&b, "%T %v-%v: ", d, fset.Position(d.Pos()), fset.Position(d.End()))
		if fd, ok := d.(*ast.FuncDecl); ok {
			fmt.Fprintf(&b, "doc %q ", fd.Doc.Text())
			body := fd.Body
			fd.Body = nil
			err = printer.Fprint(&b, fset, fd)
			fd.Body = body
			if body != nil {
				bodies = append(bodies, [2]token.Pos{body.Lbrace, body.Rbrace})
			}
		} else {
			err = printer.Fprint(&b, fset, &printer.CommentedNode{Node: d, Comments: f.Comments})
		}
		if err != nil {
			return "", err
		}
		b.WriteString("\n")
	}
comments:
	for _, cg := range f.Comments {
		for _, r := range bodies {
			if cg.Pos() > r[0] && cg.End() <= r[1] {
				continue comments
			}
		}
		fmt.Fprintf(&b, "comment %v %q\n", fset.Position(cg.Pos()), cg.Text())
	}
	return b.String(), nil
}

// checkBlanked requires that blanking src's function bodies changes
// nothing a parse declares, and that a source that parses still parses.
func checkBlanked(t *testing.T, name string, src []byte) {
	t.Helper()
	want, err := declarations(src)
	if err != nil {
		return // the parser reports it on the source as given
	}
	blanked := bytes.Clone(src)
	blankFuncBodies(blanked)
	if len(blanked) != len(src) {
		t.Fatalf("%s: blanking changed the length from %d to %d", name, len(src), len(blanked))
	}
	got, err := declarations(blanked)
	if err != nil {
		t.Errorf("%s: blanked source does not parse: %v", name, err)
		return
	}
	if got != want {
		t.Errorf("%s: declarations differ after blanking\nblanked:\n%s\nwant:\n%s", name, got, want)
	}
}

var blankCases = []struct {
	name, src string
	blanked   bool // whether some body must have been emptied
}{
	{"plain", "package p\n\n// F does.\nfunc F(a int) int {\n\tx := a\n\treturn x\n}\n", true},
	{"method", "package p\n\ntype T struct{}\n\nfunc (t *T) M() { _ = t }\n", true},
	{"generic", "package p\n\nfunc F[T interface{ ~int }](v T) T {\n\treturn v\n}\n", true},
	{"interface result", "package p\n\nfunc F() interface {\n\tM()\n} {\n\treturn nil\n}\n", true},
	{"struct result", "package p\n\nfunc F() struct{ A int } { return struct{ A int }{} }\n", true},
	{"map of struct result", "package p\n\nfunc F() map[string]struct{} { return nil }\n", true},
	{"no body", "package p\n\nfunc now() (sec int64)\n\ntype T struct {\n\tA int\n}\n", false},
	{"func literal", "package p\n\nvar f = func() {\n\tprintln(\"{\")\n}\n\nfunc G() { f() }\n", true},
	{"braces in literals", "package p\n\nfunc F() string {\n\ts := \"}\" + `}\n{` + string('}') + string('\\'')\n\t// }\n\t/* } */\n\treturn s\n}\n\n// +k8s:deepcopy-gen=true\ntype T struct{}\n", true},
	{"func in raw string", "package p\n\nconst s = `\nfunc F() {\n\treturn\n}\n`\n\n// T is.\ntype T int\n", false},
	{"func in block comment", "package p\n\n/*\nfunc F() {\n\treturn\n}\n*/\n\n// T is.\ntype T int\n", false},
	{"line directive", "package p\n\nfunc F() {\n//line other.go:10\n\tprintln()\n}\n\ntype T int\n", false},
	{"multi-line params", "package p\n\nfunc F(\n\ta int,\n\tb string,\n) (err error) {\n\treturn nil\n}\n", true},
	{"unterminated string", "package p\n\nfunc F() {\n\ts := \"abc\n}\n", false},
	{"unicode", "package p\n\nfunc Größe() int {\n\tλ := 1\n\treturn λ\n}\n\ntype T int\n", true},
}

func TestBlankFuncBodies(t *testing.T) {
	for _, c := range blankCases {
		t.Run(c.name, func(t *testing.T) {
			src := []byte(c.src)
			checkBlanked(t, c.name, src)
			blanked := bytes.Clone(src)
			blankFuncBodies(blanked)
			if changed := !bytes.Equal(blanked, src); changed != c.blanked {
				t.Errorf("blanking changed the source: %v, want %v\n%s", changed, c.blanked, blanked)
			}
		})
	}
}

// TestBlankFuncBodiesOnRealPackages checks every non-test file of packages
// the generator follows: the standard library's and apimachinery's.
func TestBlankFuncBodiesOnRealPackages(t *testing.T) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "k8s.io/apimachinery").Output()
	if err != nil {
		t.Fatalf("locating k8s.io/apimachinery: %v", err)
	}
	roots := []string{filepath.Join(strings.TrimSpace(string(out)), "pkg")}
	for _, p := range []string{"time", "net", "go", "encoding", "reflect", "strings", "fmt", "sync", "runtime"} {
		roots = append(roots, filepath.Join(build.Default.GOROOT, "src", p))
	}
	if testing.Short() {
		roots = roots[:3]
	}
	files := 0
	for _, root := range roots {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && d.Name() == "testdata" {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			src, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			files++
			checkBlanked(t, path, src)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if files < 500 {
		t.Fatalf("only %d files checked", files)
	}
}

func FuzzBlankFuncBodies(f *testing.F) {
	for _, c := range blankCases {
		f.Add([]byte(c.src))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		checkBlanked(t, "input", src)
	})
}
