package generators

import (
	"errors"
	"go/build"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// Options configures one generator run. The zero value is not usable:
// Patterns, OutputDir, OutputPkg and (unless ListersOnly)
// VersionedClientsetPackage are required.
type Options struct {
	// Patterns name the API packages, as the go tool reads them
	// ("./apis/...", "example.com/repo/apis/foo/v1", "k8s.io/api/...").
	Patterns []string
	// WorkDir is where patterns and relative paths are resolved. Default
	// ("") the current directory.
	WorkDir string
	// OutputDir is the directory that receives informers/ and listers/ (or,
	// with SingleDirectory, the informers themselves). With
	// OutputDirIsInformers it is the informers directory itself.
	OutputDir string
	// OutputPkg is the import path of OutputDir.
	OutputPkg string
	// OutputDirIsInformers reads OutputDir and OutputPkg as upstream
	// informer-gen does: the informers go to OutputDir/externalversions (or
	// OutputDir with SingleDirectory) and ListersPackage is required. Without
	// it, an OutputDir named "informers" is refused rather than given an
	// informers/informers subtree, and with it an OutputDir that already holds
	// informers/externalversions generated the other way is refused.
	OutputDirIsInformers bool
	// ListersOnly reads OutputDir and OutputPkg as upstream lister-gen does:
	// they are the listers directory and package, and only the listers are
	// written (<OutputDir>/<group>/<version>). VersionedClientsetPackage,
	// ListersPackage, ListersDir and SingleDirectory must be unset. An
	// OutputDir that holds informers/externalversions or listers/ generated
	// by informer-gen, or is named informers, is refused: it is the other
	// reading's directory.
	ListersOnly bool
	// VersionedClientsetPackage is the import path of the client-gen
	// clientset the informers list and watch through.
	VersionedClientsetPackage string
	// ListersPackage is the import path the listers are generated into; ""
	// means <OutputPkg>/listers. Its directory is found relative to OutputDir
	// and OutputPkg, or through the go.mod above OutputDir.
	ListersPackage string
	// ListersDir is the directory of ListersPackage (or of the default
	// listers package); "" means it is derived as ListersPackage describes.
	ListersDir string
	// HeaderFile is a file whose text heads every generated file; "YEAR" in
	// it is replaced as described on Options.Now. "" means no header.
	HeaderFile string
	// PluralExceptions are "Type:PluralType" entries, applied after
	// DefaultPluralExceptions (so they may override them).
	PluralExceptions []string
	// SingleDirectory puts the informers directly into OutputDir instead of
	// OutputDir/informers/externalversions; listers still go to
	// OutputDir/listers unless ListersPackage says otherwise.
	SingleDirectory bool
	// BuildTags are extra build tags (as go build -tags takes them) for
	// deciding which files of the input packages and of the output
	// directories count, with the go tool's GOOS/GOARCH rules.
	BuildTags []string
	// Now supplies the year for "YEAR" in the header of a file that does not
	// exist yet. A file that exists and carries the same header keeps its
	// year, so regenerating never churns it. Default (nil) time.Now.
	Now func() time.Time
}

// withDefaults returns o with every unset field that has a default given it:
// WorkDir the current directory (see workDir) and Now time.Now. It is the
// only place those defaults are applied; Build calls it first.
func (o Options) withDefaults() Options {
	if o.WorkDir == "" {
		o.WorkDir = o.workDir()
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o
}

// layout is where the generated packages go.
type layout struct {
	informersDir, informersPkg string
	listersDir, listersPkg     string
}

// validate checks the options and resolves the output layout.
func (o *Options) validate() (layout, error) {
	var l layout
	required := []struct{ name, val string }{
		{"--output-dir", o.OutputDir},
		{"--output-pkg", o.OutputPkg},
	}
	if !o.ListersOnly {
		required = append(required, struct{ name, val string }{"--versioned-clientset-package", o.VersionedClientsetPackage})
	}
	for _, f := range required {
		if strings.TrimSpace(f.val) == "" {
			return l, inputErrorf("", "%s is required", f.name)
		}
	}
	for _, f := range []struct{ name, val string }{
		{"--output-pkg", o.OutputPkg},
		{"--versioned-clientset-package", o.VersionedClientsetPackage},
		{"--listers-package", o.ListersPackage},
	} {
		if f.val != "" && !isImportPath(f.val) {
			return l, inputErrorf("", "%s: %q is not a Go import path", f.name, f.val)
		}
	}
	outDir := o.OutputDir
	if !filepath.IsAbs(outDir) {
		outDir = filepath.Join(o.workDir(), outDir)
	}
	outDir = filepath.Clean(outDir)
	outPkg := path.Clean(o.OutputPkg)
	if o.ListersOnly {
		return o.validateListersOnly(outDir, outPkg)
	}
	if err := o.checkOutputMeaning(outDir, outPkg); err != nil {
		return l, err
	}
	switch {
	case o.SingleDirectory:
		l.informersDir, l.informersPkg = outDir, outPkg
	case o.OutputDirIsInformers:
		l.informersDir = filepath.Join(outDir, "externalversions")
		l.informersPkg = path.Join(outPkg, "externalversions")
	default:
		l.informersDir = filepath.Join(outDir, "informers", "externalversions")
		l.informersPkg = path.Join(outPkg, "informers", "externalversions")
	}
	l.listersDir, l.listersPkg = filepath.Join(outDir, "listers"), path.Join(outPkg, "listers")
	if o.ListersPackage != "" {
		l.listersPkg = path.Clean(o.ListersPackage)
	}
	if o.ListersDir != "" {
		l.listersDir = o.ListersDir
		if !filepath.IsAbs(l.listersDir) {
			l.listersDir = filepath.Join(o.workDir(), l.listersDir)
		}
		l.listersDir = filepath.Clean(l.listersDir)
	} else if o.ListersPackage != "" {
		dir, ok := locatePackage(l.listersPkg, outDir, outPkg)
		if !ok {
			return l, inputErrorf("", "--listers-package %s: cannot tell which directory it is: it is neither beside --output-pkg %s nor inside the module that holds --output-dir %s; say it with --listers-output-dir", o.ListersPackage, o.OutputPkg, o.OutputDir)
		}
		l.listersDir = dir
	}
	if l.listersDir == l.informersDir {
		return l, inputErrorf("", "--listers-package %s: the listers would share a directory with the informers", l.listersPkg)
	}
	if l.listersDir == outDir && !o.SingleDirectory {
		return l, inputErrorf("", "--listers-package %s: the listers would be written into --output-dir %s itself", l.listersPkg, o.OutputDir)
	}
	for _, d := range []struct{ flag, dir string }{{"--output-dir", l.informersDir}, {"--listers-package", l.listersDir}} {
		if err := checkDirectoryPath(d.flag, d.dir); err != nil {
			return l, err
		}
	}
	return l, o.checkBuildTags()
}

// checkBuildTags checks that every build tag is one.
func (o *Options) checkBuildTags() error {
	for _, tag := range o.BuildTags {
		if tag == "" || strings.ContainsAny(tag, " \t,\"'") {
			return inputErrorf("", "--build-tags: %q is not a build tag", tag)
		}
	}
	return nil
}

// validateListersOnly resolves the layout of a ListersOnly run: outDir is the
// listers directory and there are no informers. It refuses the options that
// only the informers need, and an outDir that is the parent of (or holds)
// informer-gen's informers/ and listers/, which upstream lister-gen's reading
// would fill with <group>/<version> directories beside them.
func (o *Options) validateListersOnly(outDir, outPkg string) (layout, error) {
	var l layout
	for _, f := range []struct {
		name string
		set  bool
	}{
		{"--versioned-clientset-package", o.VersionedClientsetPackage != ""},
		{"--listers-package", o.ListersPackage != ""},
		{"--listers-output-dir", o.ListersDir != ""},
		{"--single-directory", o.SingleDirectory},
		{"informers (OutputDirIsInformers)", o.OutputDirIsInformers},
	} {
		if f.set {
			return l, inputErrorf("", "%s cannot be used when only the listers are generated (upstream lister-gen's reading of --output-dir)", f.name)
		}
	}
	if filepath.Base(outDir) == "informers" || path.Base(outPkg) == "informers" {
		return l, inputErrorf("", "--output-dir %s --output-pkg %s name an informers directory, but without --versioned-clientset-package informer-gen reads them as lister-gen does, as the listers directory: add --versioned-clientset-package (and --listers-package <pkg>/listers, as upstream informer-gen takes it)", o.OutputDir, o.OutputPkg)
	}
	for _, sub := range []string{filepath.Join("informers", "externalversions", "factory.go"), "listers"} {
		if p := filepath.Join(outDir, sub); generatedByUs(p) || holdsGenerated(p) {
			return l, inputErrorf("", "--output-dir %s holds %s generated by informer-gen with --output-dir as the parent of informers/ and listers/, but without --versioned-clientset-package it is read as lister-gen reads it, as the listers directory itself: add --versioned-clientset-package to regenerate that tree", o.OutputDir, p)
		}
	}
	if err := checkDirectoryPath("--output-dir", outDir); err != nil {
		return l, err
	}
	l.listersDir, l.listersPkg = outDir, outPkg
	return l, o.checkBuildTags()
}

// holdsGenerated reports whether dir is a directory holding, at any depth,
// a .go file generated by informer-gen.
func holdsGenerated(dir string) bool {
	found := false
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || found {
			return fs.SkipAll
		}
		if !d.IsDir() && strings.HasSuffix(p, ".go") && generatedByUs(p) {
			found = true
			return fs.SkipAll
		}
		return nil
	})
	return found
}

// checkOutputMeaning refuses the two readings of --output-dir that would
// silently put the informers where no one imports them: our reading (the
// parent of informers/) of a directory named informers, which would give
// informers/informers/externalversions, and upstream's reading (the informers
// directory) of a directory that already holds informers/externalversions
// generated with our reading.
func (o *Options) checkOutputMeaning(outDir, outPkg string) error {
	if o.SingleDirectory {
		return nil // both readings put the informers into outDir itself
	}
	if !o.OutputDirIsInformers {
		if filepath.Base(outDir) == "informers" || path.Base(outPkg) == "informers" {
			return inputErrorf("", "--output-dir %s --output-pkg %s name an informers directory, which upstream informer-gen reads as where the informers go but which without --listers-package is the parent of informers/ and listers/: this would write %s; add --listers-package <pkg>/listers to read it as upstream does, or pass the parent directory and package", o.OutputDir, o.OutputPkg, filepath.Join(outDir, "informers", "externalversions"))
		}
		return nil
	}
	if o.ListersPackage == "" {
		return inputErrorf("", "--listers-package is required when --output-dir is the informers directory")
	}
	nested := filepath.Join(outDir, "informers", "externalversions")
	if generatedByUs(filepath.Join(nested, "factory.go")) {
		return inputErrorf("", "--output-dir %s: with --listers-package it is the informers directory (as upstream informer-gen reads it), so the informers go to %s, but %s holds informers generated with --output-dir as their parent: either drop --listers-package and keep --output-dir as the parent, or remove %s", o.OutputDir, filepath.Join(outDir, "externalversions"), nested, filepath.Join(outDir, "informers"))
	}
	return nil
}

// generatedByUs reports whether the file at p exists and carries
// GeneratedMarker before its package clause.
func generatedByUs(p string) bool {
	data, err := os.ReadFile(p)
	if err != nil {
		return false
	}
	return isGenerated(data)
}

// checkDirectoryPath checks that dir is a directory or can be created: the
// nearest existing path at or above it must be a directory.
func checkDirectoryPath(flag, dir string) error {
	for d := dir; ; d = filepath.Dir(d) {
		st, err := os.Stat(d)
		switch {
		case err == nil && st.IsDir():
			return nil
		case err == nil:
			return inputErrorf("", "%s: %s is a file, not a directory: output would go to %s", flag, d, dir)
		case !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR):
			return inputErrorf("", "%s: %v", flag, err)
		}
		if filepath.Dir(d) == d {
			return nil
		}
	}
}

// buildContext is the go tool's build context for this run: the
// environment's GOOS, GOARCH and cgo setting plus BuildTags.
func (o *Options) buildContext() *build.Context {
	c := build.Default
	c.BuildTags = append(append([]string{}, c.BuildTags...), o.BuildTags...)
	return &c
}

// workDir is WorkDir, or the current directory ("." if it cannot be read)
// when WorkDir is "".
func (o *Options) workDir() string {
	if o.WorkDir != "" {
		return o.WorkDir
	}
	wd, err := os.Getwd()
	if err != nil {
		return "."
	}
	return wd
}

// locatePackage finds the directory of import path pkg given that dir holds
// import path base: pkg may be under base, under an ancestor that the two
// share the trailing elements of (".../gen" ↔ "example.com/x/gen"), or
// anywhere in the module whose go.mod is above dir.
func locatePackage(pkg, dir, base string) (string, bool) {
	d, b := dir, base
	for {
		if rest, ok := underPath(pkg, b); ok {
			return filepath.Join(d, filepath.FromSlash(rest)), true
		}
		if path.Base(b) != filepath.Base(d) || path.Dir(b) == b || path.Dir(b) == "." {
			break
		}
		d, b = filepath.Dir(d), path.Dir(b)
	}
	// Fall back to the module holding dir (which may not exist yet).
	probe := dir
	for {
		if st, err := os.Stat(probe); err == nil && st.IsDir() {
			break
		}
		parent := filepath.Dir(probe)
		if parent == probe {
			return "", false
		}
		probe = parent
	}
	root, err := moduleCache{}.find(probe)
	if err != nil {
		return "", false
	}
	if rest, ok := underPath(pkg, root.path); ok {
		return filepath.Join(root.dir, filepath.FromSlash(rest)), true
	}
	return "", false
}

// underPath reports whether import path p is base or below it, and the rest.
func underPath(p, base string) (string, bool) {
	if p == base {
		return "", true
	}
	rest, ok := strings.CutPrefix(p, base+"/")
	return rest, ok
}

// isImportPath is a light check that s looks like an import path.
func isImportPath(s string) bool {
	if s == "" || strings.HasPrefix(s, "/") || strings.HasSuffix(s, "/") || strings.HasPrefix(s, ".") {
		return false
	}
	return !strings.ContainsAny(s, " \t\\\"'`:*?<>|")
}
