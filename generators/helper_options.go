package generators

// This file checks the options of the targets that write into the input
// packages (deepcopy, register, defaulter, conversion) and of the runs that
// generate only them.

import (
	"path/filepath"
	"strings"

	"github.com/typedinformer/typedinformer/generators/internal/inputerr"
	"github.com/typedinformer/typedinformer/generators/load"
)

// packagesOnly reports whether the run writes only files inside the input
// packages (--deepcopy-only, --register-only, --defaulter-only,
// --conversion-only): no informers, listers or clients.
func (o *Options) packagesOnly() bool {
	return o.DeepCopyOnly || o.RegisterOnly || o.DefaulterOnly || o.ConversionOnly
}

// checkHelpersOnly refuses the options of the informer, lister and client
// targets, which flag (an only-mode) does not generate.
func (o *Options) checkHelpersOnly(flag string) error {
	if name := o.firstSet(clientTargetFlags); name != "" {
		return inputerr.Errorf("", "%s configures informers, listers or clients, which %s does not generate", name, flag)
	}
	return nil
}

// checkDeepCopy checks the deepcopy options: DeepCopyOnly sets
// WithDeepCopy and excludes the other targets; the output file is a Go
// file's base name.
func (o *Options) checkDeepCopy() error {
	if err := checkOutputFile(o.DeepCopyOutputFile, "--output-file", "deepcopy file", o.WithDeepCopy || o.DeepCopyOnly, "--with-deepcopy or --deepcopy-only"); err != nil {
		return err
	}
	return o.onlyMode(o.DeepCopyOnly, "--deepcopy-only", &o.WithDeepCopy, nil, "", "")
}

// checkRegister checks the register options: RegisterOnly sets
// WithRegister and excludes the informer, lister and client targets, and
// alone takes --output-file as the register file's name; the output file is
// a Go file's base name.
func (o *Options) checkRegister() error {
	if err := o.onlyMode(o.RegisterOnly, "--register-only", &o.WithRegister, &o.RegisterOutputFile, "--register-output-file", "register file"); err != nil {
		return err
	}
	return checkOutputFile(o.RegisterOutputFile, "--register-output-file", "register file", o.WithRegister, "--with-register or --register-only")
}

// checkConversion checks the conversion options as checkDeepCopy does the
// deepcopy ones; with ConversionOnly alone, --output-file names the
// conversion file, as it does to conversion-gen.
func (o *Options) checkConversion() error {
	if err := o.onlyMode(o.ConversionOnly, "--conversion-only", &o.WithConversion, &o.ConversionOutputFile, "--conversion-output-file", "conversion file"); err != nil {
		return err
	}
	if !o.WithConversion {
		if name := o.firstSet(conversionFlags); name != "" {
			return inputerr.Errorf("", "%s configures the conversion functions, which are generated only with --with-conversion or --conversion-only", name)
		}
	}
	if err := checkOutputFile(o.ConversionOutputFile, "--conversion-output-file", "conversion file", true, ""); err != nil {
		return err
	}
	if f := o.ConversionOutputFile; f != "" && f == o.DeepCopyOutputFile && (o.WithDeepCopy || o.DeepCopyOnly) {
		return inputerr.Errorf("", "--conversion-output-file and --output-file both name %q", f)
	}
	for _, d := range append(append([]string{}, o.BasePeerDirs...), o.ExtraPeerDirs...) {
		if d == "" || strings.HasPrefix(d, ".") || filepath.IsAbs(d) {
			return inputerr.Errorf("", "peer directory %q is not a package import path", d)
		}
	}
	return nil
}

// onlyMode sets up the target of an only-mode flag when only is set: the
// target is generated (*with), it takes --output-file as its file's name
// (see takeOutputFile; file is nil for the deepcopy target, whose name
// --output-file is), and the informer, lister and client targets' options
// are refused.
func (o *Options) onlyMode(only bool, flag string, with *bool, file *string, fileFlag, what string) error {
	if !only {
		return nil
	}
	*with = true
	if file != nil {
		if err := o.takeOutputFile(file, fileFlag, what); err != nil {
			return err
		}
	}
	return o.checkHelpersOnly(flag)
}

// takeOutputFile gives --output-file (DeepCopyOutputFile) to the file of an
// only-mode's target, *file, when no deepcopy file is generated: the
// upstream tool's --output-file names its own file. flag is the target's
// own flag for that file and what the file, for the error when both are
// given.
func (o *Options) takeOutputFile(file *string, flag, what string) error {
	if o.DeepCopyOutputFile == "" || o.WithDeepCopy || o.DeepCopyOnly {
		return nil
	}
	if !isGoFileName(o.DeepCopyOutputFile) {
		return inputerr.Errorf("", "--output-file %q is not the base name of a non-test Go file", o.DeepCopyOutputFile)
	}
	if *file != "" {
		return inputerr.Errorf("", "--output-file and %s both name the %s", flag, what)
	}
	*file, o.DeepCopyOutputFile = o.DeepCopyOutputFile, ""
	return nil
}

// checkOutputFile refuses a target's output file, named by flag, where the
// target is not generated (with unset; withFlags are the flags that
// generate it) and where it is not the base name of a non-test Go file.
func checkOutputFile(file, flag, what string, with bool, withFlags string) error {
	switch {
	case file == "":
	case !with:
		return inputerr.Errorf("", "%s names the %s, which is generated only with %s", flag, what, withFlags)
	case !isGoFileName(file):
		return inputerr.Errorf("", "%s %q is not the base name of a non-test Go file", flag, file)
	}
	return nil
}

// isGoFileName reports whether name is the base name of a non-test Go file.
func isGoFileName(name string) bool {
	return !strings.ContainsAny(name, "/\\") && strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go")
}

// checkDefaulter checks the defaulter options: DefaulterOnly sets
// WithDefaulter and excludes the informer, lister and client targets;
// without a deepcopy target, --output-file names the defaults file, as it
// does to defaulter-gen; the output file is a Go file's base name.
func (o *Options) checkDefaulter() error {
	if err := o.onlyMode(o.DefaulterOnly, "--defaulter-only", &o.WithDefaulter, &o.DefaulterOutputFile, "--defaulter-output-file", "defaults file"); err != nil {
		return err
	}
	for _, p := range o.DefaulterExtraPeerPackages {
		if !o.WithDefaulter {
			return inputerr.Errorf("", "--defaulter-extra-peer-dirs names packages for the defaulters, which are generated only with --with-defaulter or --defaulter-only")
		}
		if !load.IsImportPath(p) {
			return inputerr.Errorf("", "--defaulter-extra-peer-dirs: %q is not an import path", p)
		}
	}
	return checkOutputFile(o.DefaulterOutputFile, "--defaulter-output-file", "defaults file", o.WithDefaulter, "--with-defaulter or --defaulter-only")
}
