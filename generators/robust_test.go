package generators

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/typedinformer/typedinformer/generators/output"
)

// fooOptions generates ./apis/... of dir into dir/gen.
func fooOptions(dir string) Options {
	return Options{
		Patterns:                  []string{"./apis/..."},
		WorkDir:                   dir,
		OutputDir:                 "gen",
		OutputPkg:                 "example.com/bad/gen",
		VersionedClientsetPackage: "example.com/bad/clientset",
		Now:                       fixedNow,
	}
}

// TestNonListableOnly: packages whose +genclient types have neither list
// and watch nor list and get are valid input with nothing to generate; the
// output of an earlier run for them is stale and removed, hand-written files
// stay.
func TestNonListableOnly(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, fooV1(okTypes).with("go.mod", fooModule))
	if _, err := Generate(context.Background(), fooOptions(dir)); err != nil {
		t.Fatal(err)
	}
	handWritten := filepath.Join(dir, "gen/listers/foo/v1/foo_expansion.go")
	writeTree(t, dir, map[string]string{
		"gen/listers/foo/v1/foo_expansion.go": "package v1\n\n// FooListerExpansion is mine.\ntype FooListerExpansion interface{}\n",
		"apis/foo/v1/types.go": strings.Replace(okTypes, "// +genclient\n", "// +genclient\n// +genclient:onlyVerbs=create\n", 1) +
			strings.Replace(okTypeDecl, "Foo", "Bar", 2),
	})
	// Bar still has every verb: only Bar is generated.
	res, err := Generate(context.Background(), fooOptions(dir))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Stale) == 0 {
		t.Error("Foo's files were not found stale")
	}
	writeTree(t, dir, map[string]string{
		"apis/foo/v1/types.go": strings.Replace(okTypes, "// +genclient\n", "// +genclient\n// +genclient:onlyVerbs=create\n", 1) +
			strings.Replace(strings.Replace(okTypeDecl, "Foo", "Bar", 2), "// +genclient\n", "// +genclient\n// +genclient:noVerbs\n", 1),
	})
	res, err = Generate(context.Background(), fooOptions(dir))
	if err != nil {
		t.Fatalf("non-listable types only: %v, want success", err)
	}
	if len(res.Files) != 0 {
		t.Errorf("generated %d files, want none", len(res.Files))
	}
	left := snapshot(t, filepath.Join(dir, "gen"))
	for p := range left {
		if !strings.HasSuffix(p, "/") && p != "listers/foo/v1/foo_expansion.go" {
			t.Errorf("file %s was left behind", p)
		}
	}
	if _, err := os.Stat(handWritten); err != nil {
		t.Errorf("the hand-written file is gone: %v", err)
	}
}

// TestBuildConstraintsOfUserFiles: a hand-written expansion file the go tool
// would not build (//go:build ignore, a tag not given) does not count, so
// expansion_generated.go still declares the interface; with --build-tags
// naming its tag it counts.
func TestBuildConstraintsOfUserFiles(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, fooV1(okTypes).with("go.mod", fooModule).
		// An input file the build would not see declares nothing either.
		with("apis/foo/v1/ignored.go", "//go:build ignore\n\npackage v1\n\n// +genclient\n\n// Ignored is not built.\ntype Ignored struct{ metav1.ObjectMeta }\n"))
	expansions := func(opts Options) string {
		t.Helper()
		res, err := Build(context.Background(), opts)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range res.Files {
			if strings.Contains(f.Path, "ignored") {
				t.Errorf("a type of an ignored file was generated: %s", f.Path)
			}
			if filepath.Base(f.Path) == "expansion_generated.go" {
				return string(f.Content)
			}
		}
		return ""
	}
	for _, c := range []struct {
		constraint string
		tags       []string
		counts     bool
	}{
		{"//go:build ignore\n\n", nil, false},
		{"//go:build custom\n\n", nil, false},
		{"//go:build custom\n\n", []string{"custom"}, true},
		{"", nil, true},
	} {
		writeTree(t, dir, map[string]string{
			"gen/listers/foo/v1/foo_expansion.go": c.constraint + "package v1\n\n// FooListerExpansion is mine.\ntype FooListerExpansion interface{}\n",
		})
		opts := fooOptions(dir)
		opts.BuildTags = c.tags
		got := expansions(opts)
		if declared := strings.Contains(got, "type FooListerExpansion interface"); declared == c.counts {
			t.Errorf("constraint %q, tags %v: expansion_generated.go declares FooListerExpansion: %v, want %v", c.constraint, c.tags, declared, !c.counts)
		}
	}
}

// TestInterruptedRunRecovers stops a run the way a kill would, after each
// temporary file write and each rename in turn: the tree then holds our
// temporary files (and a mix of old and new files), verify reports them, and
// the next generate leaves exactly what an uninterrupted run writes.
func TestInterruptedRunRecovers(t *testing.T) {
	want := snapshot(t, goldenDir)
	for _, step := range []string{"temp", "rename"} {
		for _, at := range []int{0, 3} {
			t.Run(fmt.Sprintf("%s%d", step, at), func(t *testing.T) {
				out := t.TempDir()
				opts := goldenOptions(out, goldenPkg)
				// An old tree: the goldens with some files changed, so the
				// interrupted run has renames to do.
				copyTree(t, goldenDir, out)
				old := snapshot(t, out)
				n := 0
				for rel := range old {
					if strings.HasSuffix(rel, ".go") && n < 6 && output.IsGenerated([]byte(old[rel])) { // not widget_expansion.go, which is the user's
						writeTree(t, out, map[string]string{rel: strings.Replace(old[rel], "package ", "// old\npackage ", 1)})
						n++
					}
				}
				func() {
					seen := 0
					output.WriteHook = func(s, _ string) {
						if s != step {
							return
						}
						if seen == at {
							panic("killed")
						}
						seen++
					}
					defer func() {
						output.WriteHook = nil
						if r := recover(); r != "killed" {
							t.Fatalf("the run was not interrupted: %v", r)
						}
					}()
					Generate(context.Background(), opts)
				}()
				var temps []string
				for rel := range snapshot(t, out) {
					if strings.HasPrefix(filepath.Base(rel), output.TempFilePrefix) {
						temps = append(temps, rel)
					}
				}
				if len(temps) == 0 {
					t.Fatal("the interrupted run left no temporary file: the hook did not stop it mid-write")
				}
				res, err := Build(context.Background(), opts)
				if err != nil {
					t.Fatal(err)
				}
				if res.UpToDate() || len(res.Leftovers) != len(temps) {
					t.Errorf("verify: up to date %v, %d leftovers; want false and %d", res.UpToDate(), len(res.Leftovers), len(temps))
				}
				var diff bytes.Buffer
				if err := res.Diff(&diff); err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(diff.String(), "interrupted run") {
					t.Errorf("the diff does not name the temporary files:\n%s", diff.String())
				}
				if _, err := Generate(context.Background(), opts); err != nil {
					t.Fatal(err)
				}
				if d := diffSnapshots(want, snapshot(t, out)); d != "" {
					t.Errorf("after the next generate the tree differs from an uninterrupted run: %s", d)
				}
			})
		}
	}
}
