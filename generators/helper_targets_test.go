package generators

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The testdata packages of the deepcopy and register goldens.
const (
	deepCopyPkgs = "./testdata/deepcopyapis/..."
	registerPkgs = "./testdata/registerapis/..."
)

// deepCopyOptions generates the deepcopy testdata in place.
func deepCopyOptions() Options {
	return inPlace(deepCopyPkgs, func(o *Options) { o.DeepCopyOnly = true })
}

// registerOptions generates the register testdata in place.
func registerOptions() Options {
	return inPlace(registerPkgs, func(o *Options) { o.RegisterOnly = true })
}

// The committed golden trees of the targets that write into the input
// packages: each package's generated file lies beside its types.
var helperGoldens = []struct {
	name, dir string
	opts      func() Options
}{
	{"deepcopy", "testdata/deepcopyapis", deepCopyOptions},
	{"register", "testdata/registerapis", registerOptions},
}

// TestHelperGolden compares the generated files of each helper golden tree
// (rewritten with -update) with the committed ones.
func TestHelperGolden(t *testing.T) {
	for _, g := range helperGoldens {
		t.Run(g.name, func(t *testing.T) {
			checkGolden(t, g.opts(), g.name+" goldens", "go test ./generators -run HelperGolden -update")
		})
	}
}

// TestHelperGoldenCompiles vets the helper golden trees with their
// generated files.
func TestHelperGoldenCompiles(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go vet; skipped in -short mode")
	}
	args := []string{"vet"}
	for _, g := range helperGoldens {
		args = append(args, "./"+g.dir+"/...")
	}
	if out, err := exec.Command("go", args...).CombinedOutput(); err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// defaulterOptions generates only the defaulters of the deepcopy testdata.
func defaulterOptions() Options {
	return inPlace(deepCopyPkgs, func(o *Options) { o.DefaulterOnly = true })
}

// inPlace generates the testdata packages pkgs in place, in the only-mode
// only sets.
func inPlace(pkgs string, only func(*Options)) Options {
	o := Options{Patterns: []string{pkgs}, HeaderFile: headerFile, Now: fixedNow}
	only(&o)
	return o
}

// TestHelperOptions: the flags of the targets that write into the input
// packages are refused where they mean nothing or name no file or package,
// and an only-mode alone takes --output-file as its own file's name.
func TestHelperOptions(t *testing.T) {
	for _, c := range []struct {
		name   string
		base   func() Options
		mutate func(*Options)
		want   string
	}{
		{"output file without deepcopy", deepCopyOptions, func(o *Options) { o.DeepCopyOnly = false; o.DeepCopyOutputFile = "x.go" }, "--output-file names the deepcopy file"},
		{"deepcopy output file in a directory", deepCopyOptions, func(o *Options) { o.DeepCopyOutputFile = "sub/x.go" }, `--output-file "sub/x.go" is not the base name of a non-test Go file`},
		{"test file", deepCopyOptions, func(o *Options) { o.DeepCopyOutputFile = "x_test.go" }, "is not the base name of a non-test Go file"},
		{"deepcopy only with a clientset", deepCopyOptions, func(o *Options) { o.WithClientset = true }, "--with-clientset configures informers, listers or clients, which --deepcopy-only does not generate"},
		{"output file without conversion", deepCopyOptions, func(o *Options) { o.ConversionOutputFile = "x.go" }, "--conversion-output-file configures the conversion functions, which are generated only with --with-conversion or --conversion-only"},
		{"extra peers without conversion", deepCopyOptions, func(o *Options) { o.ExtraPeerDirs = []string{"example.com/x"} }, "--extra-peer-dirs configures the conversion functions"},
		{"skip-unsafe without conversion", deepCopyOptions, func(o *Options) { o.SkipUnsafe = true }, "--skip-unsafe configures the conversion functions"},
		{"conversion output file in a directory", deepCopyOptions, func(o *Options) { o.ConversionOnly = true; o.ConversionOutputFile = "sub/x.go" }, `--conversion-output-file "sub/x.go" is not the base name of a non-test Go file`},
		{"output file of the deepcopy functions", deepCopyOptions, func(o *Options) {
			o.ConversionOnly = true
			o.ConversionOutputFile = "zz.go"
			o.DeepCopyOutputFile = "zz.go"
		}, `--conversion-output-file and --output-file both name "zz.go"`},
		{"relative peer directory", deepCopyOptions, func(o *Options) { o.ConversionOnly = true; o.ExtraPeerDirs = []string{"./apis/x"} }, `peer directory "./apis/x" is not a package import path`},
		{"conversion only with a clientset", deepCopyOptions, func(o *Options) { o.DeepCopyOnly = false; o.ConversionOnly = true; o.WithClientset = true }, "--with-clientset configures informers, listers or clients, which --conversion-only does not generate"},
		{"output file without defaulter", defaulterOptions, func(o *Options) { o.DefaulterOnly = false; o.DeepCopyOnly = true; o.DefaulterOutputFile = "x.go" }, "--defaulter-output-file names the defaults file, which is generated only with --with-defaulter or --defaulter-only"},
		{"defaults output file in a directory", defaulterOptions, func(o *Options) { o.DefaulterOutputFile = "sub/x.go" }, `--defaulter-output-file "sub/x.go" is not the base name of a non-test Go file`},
		{"--output-file in a directory", defaulterOptions, func(o *Options) { o.DeepCopyOutputFile = "sub/x.go" }, `--output-file "sub/x.go" is not the base name of a non-test Go file`},
		{"both output files", defaulterOptions, func(o *Options) { o.DeepCopyOutputFile = "x.go"; o.DefaulterOutputFile = "y.go" }, "--output-file and --defaulter-output-file both name the defaults file"},
		{"peer packages without defaulter", defaulterOptions, func(o *Options) {
			o.DefaulterOnly = false
			o.DeepCopyOnly = true
			o.DefaulterExtraPeerPackages = []string{"example.com/p"}
		}, "--defaulter-extra-peer-dirs names packages for the defaulters"},
		{"peer directory", defaulterOptions, func(o *Options) { o.DefaulterExtraPeerPackages = []string{"./p"} }, `--defaulter-extra-peer-dirs: "./p" is not an import path`},
		{"defaulter only with an output package", defaulterOptions, func(o *Options) { o.OutputPkg = "example.com/x" }, "--output-pkg configures informers, listers or clients, which --defaulter-only does not generate"},
		{"both output files for conversion alone", deepCopyOptions, func(o *Options) {
			o.DeepCopyOnly = false
			o.ConversionOnly = true
			o.DeepCopyOutputFile = "x.go"
			o.ConversionOutputFile = "y.go"
		}, "--output-file and --conversion-output-file both name the conversion file"},
		{"--output-file in a directory for register alone", registerOptions, func(o *Options) { o.DeepCopyOutputFile = "sub/x.go" }, `--output-file "sub/x.go" is not the base name of a non-test Go file`},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := c.base()
			c.mutate(&o)
			_, err := Build(context.Background(), o)
			if err == nil || !IsInputError(err) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want an input error containing %q", err, c.want)
			}
		})
	}
}

// generatedFiles builds opts and returns the content of its files by their
// slash-separated path relative to dir.
func generatedFiles(t *testing.T, opts Options, dir string) map[string]string {
	t.Helper()
	res, err := Build(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, f := range res.Files {
		rel, _ := filepath.Rel(mustAbs(t, dir), f.Path)
		files[filepath.ToSlash(rel)] = string(f.Content)
	}
	return files
}

// expectInputError runs Generate with opts over the tree in dir and
// requires an InputError whose message starts with want and a tree left
// as it was.
func expectInputError(t *testing.T, dir string, opts Options, want string) {
	t.Helper()
	before := snapshot(t, dir)
	_, err := Generate(context.Background(), opts)
	if err == nil {
		t.Fatal("generate succeeded")
	}
	if !IsInputError(err) {
		t.Errorf("error %v is not an input error", err)
	}
	if msg := filepath.ToSlash(err.Error()); !strings.HasPrefix(msg, want) {
		t.Errorf("error:\n  %v\nwant prefix:\n  %s", err, want)
	}
	if d := diffSnapshots(before, snapshot(t, dir)); d != "" {
		t.Errorf("a failed run changed the tree: %s", d)
	}
}

// checkStaleRerunAndUserFile checks what follows a helper target's run of
// opts over its tree: the stale file it removed is gone, a second run finds
// the tree up to date, and a run over userPattern, whose package holds a
// file of the user's at the output path userFile, stops with an InputError
// naming it. Paths are slash-separated, relative to opts.WorkDir.
func checkStaleRerunAndUserFile(t *testing.T, opts Options, stale, userPattern, userFile string) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(opts.WorkDir, filepath.FromSlash(stale))); !os.IsNotExist(err) {
		t.Errorf("stale %s: %v", stale, err)
	}
	if again, err := Build(context.Background(), opts); err != nil || !again.UpToDate() {
		t.Errorf("second run: up to date %v, err %v", again != nil && again.UpToDate(), err)
	}
	opts.Patterns = []string{userPattern}
	if _, err := Build(context.Background(), opts); err == nil || !IsInputError(err) || !strings.Contains(filepath.ToSlash(err.Error()), userFile) {
		t.Errorf("user's file at the output path: %v", err)
	}
}
