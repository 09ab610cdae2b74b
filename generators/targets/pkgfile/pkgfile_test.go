package pkgfile

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/typedinformer/typedinformer/generators/load"
)

// TestEach: the file of every package whose build asks for one, in import
// path order, at the given or default name, headed by the build
// constraint; an error stops the plan.
func TestEach(t *testing.T) {
	pkgs := []load.InputPackage{
		{ImportPath: "example.com/c", Dir: "/src/c"},
		{ImportPath: "example.com/a", Dir: "/src/a"},
		{ImportPath: "example.com/b", Dir: "/src/b"},
	}
	for _, c := range []struct {
		name    string
		n       Name
		skip    string // the package whose build says no
		fail    string // the package whose build fails
		want    []string
		wantErr string
	}{
		{"default name", Name{Default: "zz_generated.x.go"}, "", "", []string{"/src/a/zz_generated.x.go", "/src/b/zz_generated.x.go", "/src/c/zz_generated.x.go"}, ""},
		{"given name, one package skipped", Name{Given: "zz_x.go", Default: "zz_generated.x.go"}, "example.com/b", "", []string{"/src/a/zz_x.go", "/src/c/zz_x.go"}, ""},
		{"failing package", Name{Default: "zz_generated.x.go"}, "", "example.com/b", nil, "b failed"},
	} {
		t.Run(c.name, func(t *testing.T) {
			files, err := c.n.Each(pkgs, Code, func(in load.InputPackage) (any, bool, error) {
				if in.ImportPath == c.fail {
					return nil, false, errors.New(filepath.Base(in.Dir) + " failed")
				}
				return "package " + filepath.Base(in.Dir) + "\n", in.ImportPath != c.skip, nil
			})
			if (err == nil) != (c.wantErr == "") || err != nil && err.Error() != c.wantErr {
				t.Fatalf("error %v, want %q", err, c.wantErr)
			}
			var got []string
			for _, f := range files {
				got = append(got, filepath.ToSlash(f.Path))
				if f.Prefix != BuildConstraint || f.Template != Code || f.Data != "package "+filepath.Base(filepath.Dir(f.Path))+"\n" {
					t.Errorf("%s: prefix %q, data %v", f.Path, f.Prefix, f.Data)
				}
			}
			if strings.Join(got, " ") != strings.Join(c.want, " ") {
				t.Errorf("files %v, want %v", got, c.want)
			}
			if c.wantErr == "" {
				if paths := c.n.Paths(pkgs); len(paths) != len(pkgs) || filepath.Base(paths[0]) != c.n.String() {
					t.Errorf("paths %v", paths)
				}
			}
		})
	}
}
