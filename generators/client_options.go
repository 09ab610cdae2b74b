package generators

// This file checks the options of the targets that write into the output
// directories (informers, listers, clientset, apply configurations) and
// resolves their layout.

import (
	"errors"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/typedinformer/typedinformer/generators/internal/inputerr"
	"github.com/typedinformer/typedinformer/generators/load"
	"github.com/typedinformer/typedinformer/generators/output"
	"github.com/typedinformer/typedinformer/generators/plan"
)

// clientLayout checks the options of the informer, lister, clientset and
// apply configuration targets and resolves where their files go.
func (o *Options) clientLayout() (plan.Layout, error) {
	var l plan.Layout
	required := []struct{ name, val string }{
		{"--output-dir", o.OutputDir},
		{"--output-pkg", o.OutputPkg},
	}
	if !o.ListersOnly && !o.WithClientset {
		required = append(required, struct{ name, val string }{"--versioned-clientset-package", o.VersionedClientsetPackage})
	}
	for _, f := range required {
		if strings.TrimSpace(f.val) == "" {
			return l, inputerr.Errorf("", "%s is required", f.name)
		}
	}
	for _, f := range []struct{ name, val string }{
		{"--output-pkg", o.OutputPkg},
		{"--versioned-clientset-package", o.VersionedClientsetPackage},
		{"--listers-package", o.ListersPackage},
		{"--clientset-package", o.ClientsetPackage},
		{"--apply-configuration-package", o.ApplyConfigurationPackage},
	} {
		if f.val != "" && !load.IsImportPath(f.val) {
			return l, inputerr.Errorf("", "%s: %q is not a Go import path", f.name, f.val)
		}
	}
	outDir := o.OutputDir
	if !filepath.IsAbs(outDir) {
		outDir = filepath.Join(o.workDir(), outDir)
	}
	outDir = filepath.Clean(outDir)
	outPkg := path.Clean(o.OutputPkg)
	if o.ListersOnly {
		if o.WithClientset {
			return l, inputerr.Errorf("", "--with-clientset cannot be used when only the listers are generated (upstream lister-gen's reading of --output-dir)")
		}
		return o.validateListersOnly(outDir, outPkg)
	}
	if err := o.checkOutputMeaning(outDir, outPkg); err != nil {
		return l, err
	}
	switch {
	case o.SingleDirectory:
		l.InformersDir, l.InformersPkg = outDir, outPkg
	case o.OutputDirIsInformers:
		l.InformersDir = filepath.Join(outDir, "externalversions")
		l.InformersPkg = path.Join(outPkg, "externalversions")
	default:
		l.InformersDir = filepath.Join(outDir, "informers", "externalversions")
		l.InformersPkg = path.Join(outPkg, "informers", "externalversions")
	}
	l.ListersDir, l.ListersPkg = filepath.Join(outDir, "listers"), path.Join(outPkg, "listers")
	if o.ListersPackage != "" {
		l.ListersPkg = path.Clean(o.ListersPackage)
	}
	if o.ListersDir != "" {
		l.ListersDir = o.ListersDir
		if !filepath.IsAbs(l.ListersDir) {
			l.ListersDir = filepath.Join(o.workDir(), l.ListersDir)
		}
		l.ListersDir = filepath.Clean(l.ListersDir)
	} else if o.ListersPackage != "" {
		dir, ok := load.LocatePackage(l.ListersPkg, outDir, outPkg)
		if !ok {
			return l, inputerr.Errorf("", "--listers-package %s: cannot tell which directory it is: it is neither beside --output-pkg %s nor inside the module that holds --output-dir %s; say it with --listers-output-dir", o.ListersPackage, o.OutputPkg, o.OutputDir)
		}
		l.ListersDir = dir
	}
	if l.ListersDir == l.InformersDir {
		return l, inputerr.Errorf("", "--listers-package %s: the listers would share a directory with the informers", l.ListersPkg)
	}
	if l.ListersDir == outDir && !o.SingleDirectory {
		return l, inputerr.Errorf("", "--listers-package %s: the listers would be written into --output-dir %s itself", l.ListersPkg, o.OutputDir)
	}
	for _, d := range []struct{ flag, dir string }{{"--output-dir", l.InformersDir}, {"--listers-package", l.ListersDir}} {
		if err := checkDirectoryPath(d.flag, d.dir); err != nil {
			return l, err
		}
	}
	if err := o.clientsetLayout(&l, outDir, outPkg); err != nil {
		return l, err
	}
	return l, o.checkBuildTags()
}

// clientsetLayout resolves where the clientset goes, when it is generated,
// and checks the flags that only mean something with it.
func (o *Options) clientsetLayout(l *plan.Layout, outDir, outPkg string) error {
	if !o.WithApplyConfig {
		if name := o.firstSet(applyFlags); name != "" {
			return inputerr.Errorf("", "%s configures the apply configurations, which are generated only with --with-applyconfig", name)
		}
	} else if !o.WithClientset {
		return inputerr.Errorf("", "--with-applyconfig needs --with-clientset: the apply configurations are generated with the clientset whose Apply takes them")
	}
	if !o.WithClientset {
		if name := o.firstSet(clientsetFlags); name != "" {
			return inputerr.Errorf("", "%s configures the clientset, which is generated only with --with-clientset", name)
		}
		return nil
	}
	name := o.ClientsetName
	if name == "" {
		name = DefaultClientsetName
	}
	if !load.IsIdentifier(name) || token.IsKeyword(name) {
		return inputerr.Errorf("", "--clientset-name %q is not a usable Go package name", name)
	}
	baseDir, basePkg := filepath.Join(outDir, "clientset"), path.Join(outPkg, "clientset")
	if o.OutputDirIsInformers {
		baseDir, basePkg = filepath.Join(filepath.Dir(outDir), "clientset"), path.Join(path.Dir(outPkg), "clientset")
	}
	switch {
	case o.ClientsetPackage != "" && o.ClientsetDir != "":
		basePkg, baseDir = path.Clean(o.ClientsetPackage), o.ClientsetDir
		if !filepath.IsAbs(baseDir) {
			baseDir = filepath.Join(o.workDir(), baseDir)
		}
		baseDir = filepath.Clean(baseDir)
	case o.ClientsetPackage != "":
		basePkg = path.Clean(o.ClientsetPackage)
		dir, ok := load.LocatePackage(basePkg, outDir, outPkg)
		if !ok {
			return inputerr.Errorf("", "--clientset-package %s: cannot tell which directory it is: it is neither beside --output-pkg %s nor inside the module that holds --output-dir %s; say it with --clientset-output-dir", o.ClientsetPackage, o.OutputPkg, o.OutputDir)
		}
		baseDir = dir
	case o.ClientsetDir != "":
		return inputerr.Errorf("", "--clientset-output-dir needs --clientset-package, its import path")
	}
	l.ClientsetDir, l.ClientsetPkg = filepath.Join(baseDir, name), path.Join(basePkg, name)
	if o.VersionedClientsetPackage != "" && path.Clean(o.VersionedClientsetPackage) != l.ClientsetPkg {
		return inputerr.Errorf("", "--versioned-clientset-package %s: with --with-clientset the informers use the generated clientset, %s: drop the flag or make it name that package", o.VersionedClientsetPackage, l.ClientsetPkg)
	}
	for _, other := range []string{l.InformersDir, l.ListersDir} {
		if other == l.ClientsetDir || strings.HasPrefix(other, l.ClientsetDir+string(filepath.Separator)) || strings.HasPrefix(l.ClientsetDir, other+string(filepath.Separator)) {
			return inputerr.Errorf("", "the clientset directory %s and %s would overlap: move one of them (--clientset-output-dir, --clientset-package)", l.ClientsetDir, other)
		}
	}
	if err := checkDirectoryPath("--clientset-output-dir", l.ClientsetDir); err != nil {
		return err
	}
	return o.applyLayout(l, outDir, outPkg)
}

// applyLayout resolves where the apply configurations go, when they are
// generated, and makes ApplyConfigurationPackage name them for the clients.
func (o *Options) applyLayout(l *plan.Layout, outDir, outPkg string) error {
	if !o.WithApplyConfig {
		return nil
	}
	name := o.ApplyConfigName
	if name == "" {
		name = DefaultApplyConfigName
	}
	if strings.ContainsAny(name, "/\\ ") || name == "." || name == ".." {
		return inputerr.Errorf("", "--applyconfig-name %q is not a directory name", name)
	}
	baseDir, basePkg := outDir, outPkg
	if o.OutputDirIsInformers {
		baseDir, basePkg = filepath.Dir(outDir), path.Dir(outPkg)
	}
	l.ApplyDir, l.ApplyPkg = filepath.Join(baseDir, name), path.Join(basePkg, name)
	switch {
	case o.ApplyConfigurationPackage != "" && o.ApplyConfigurationDir != "":
		l.ApplyPkg, l.ApplyDir = path.Clean(o.ApplyConfigurationPackage), o.ApplyConfigurationDir
		if !filepath.IsAbs(l.ApplyDir) {
			l.ApplyDir = filepath.Join(o.workDir(), l.ApplyDir)
		}
		l.ApplyDir = filepath.Clean(l.ApplyDir)
	case o.ApplyConfigurationPackage != "":
		l.ApplyPkg = path.Clean(o.ApplyConfigurationPackage)
		dir, ok := load.LocatePackage(l.ApplyPkg, outDir, outPkg)
		if !ok {
			return inputerr.Errorf("", "--apply-configuration-package %s: cannot tell which directory it is: it is neither beside --output-pkg %s nor inside the module that holds --output-dir %s; say it with --applyconfig-output-dir", o.ApplyConfigurationPackage, o.OutputPkg, o.OutputDir)
		}
		l.ApplyDir = dir
	case o.ApplyConfigurationDir != "":
		return inputerr.Errorf("", "--applyconfig-output-dir needs --apply-configuration-package, its import path")
	}
	o.ApplyConfigurationPackage = l.ApplyPkg
	for _, other := range []string{l.InformersDir, l.ListersDir, l.ClientsetDir} {
		if other == l.ApplyDir || strings.HasPrefix(other, l.ApplyDir+string(filepath.Separator)) || strings.HasPrefix(l.ApplyDir, other+string(filepath.Separator)) {
			return inputerr.Errorf("", "the apply configurations directory %s and %s would overlap: move one of them (--applyconfig-name, --apply-configuration-package)", l.ApplyDir, other)
		}
	}
	return checkDirectoryPath("--applyconfig-output-dir", l.ApplyDir)
}

// validateListersOnly resolves the layout of a ListersOnly run: outDir is the
// listers directory and there are no informers. It refuses the options that
// only the informers need, and an outDir that is the parent of (or holds)
// informer-gen's informers/ and listers/, which upstream lister-gen's reading
// would fill with <group>/<version> directories beside them.
func (o *Options) validateListersOnly(outDir, outPkg string) (plan.Layout, error) {
	var l plan.Layout
	if name := o.firstSet(notListersOnlyFlags); name != "" {
		return l, inputerr.Errorf("", "%s cannot be used when only the listers are generated (upstream lister-gen's reading of --output-dir)", name)
	}
	if filepath.Base(outDir) == "informers" || path.Base(outPkg) == "informers" {
		return l, inputerr.Errorf("", "--output-dir %s --output-pkg %s name an informers directory, but without --versioned-clientset-package informer-gen reads them as lister-gen does, as the listers directory: add --versioned-clientset-package (and --listers-package <pkg>/listers, as upstream informer-gen takes it)", o.OutputDir, o.OutputPkg)
	}
	for _, sub := range []string{filepath.Join("informers", "externalversions", "factory.go"), "listers"} {
		if p := filepath.Join(outDir, sub); generatedByUs(p) || holdsGenerated(p) {
			return l, inputerr.Errorf("", "--output-dir %s holds %s generated by informer-gen with --output-dir as the parent of informers/ and listers/, but without --versioned-clientset-package it is read as lister-gen reads it, as the listers directory itself: add --versioned-clientset-package to regenerate that tree", o.OutputDir, p)
		}
	}
	if err := checkDirectoryPath("--output-dir", outDir); err != nil {
		return l, err
	}
	l.ListersDir, l.ListersPkg = outDir, outPkg
	return l, o.checkBuildTags()
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
			return inputerr.Errorf("", "--output-dir %s --output-pkg %s name an informers directory, which upstream informer-gen reads as where the informers go but which without --listers-package is the parent of informers/ and listers/: this would write %s; add --listers-package <pkg>/listers to read it as upstream does, or pass the parent directory and package", o.OutputDir, o.OutputPkg, filepath.Join(outDir, "informers", "externalversions"))
		}
		return nil
	}
	if o.ListersPackage == "" {
		return inputerr.Errorf("", "--listers-package is required when --output-dir is the informers directory")
	}
	nested := filepath.Join(outDir, "informers", "externalversions")
	if generatedByUs(filepath.Join(nested, "factory.go")) {
		return inputerr.Errorf("", "--output-dir %s: with --listers-package it is the informers directory (as upstream informer-gen reads it), so the informers go to %s, but %s holds informers generated with --output-dir as their parent: either drop --listers-package and keep --output-dir as the parent, or remove %s", o.OutputDir, filepath.Join(outDir, "externalversions"), nested, filepath.Join(outDir, "informers"))
	}
	return nil
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

// generatedByUs reports whether the file at p exists and carries
// GeneratedMarker before its package clause.
func generatedByUs(p string) bool {
	data, err := os.ReadFile(p)
	if err != nil {
		return false
	}
	return output.IsGenerated(data)
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
			return inputerr.Errorf("", "%s: %s is a file, not a directory: output would go to %s", flag, d, dir)
		case !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR):
			return inputerr.Errorf("", "%s: %v", flag, err)
		}
		if filepath.Dir(d) == d {
			return nil
		}
	}
}
