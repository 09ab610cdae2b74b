package generators

import (
	"github.com/typedinformer/typedinformer/generators/internal/inputerr"
	"github.com/typedinformer/typedinformer/generators/load"
)

// checkDefaulter checks the defaulter options: DefaulterOnly sets
// WithDefaulter and excludes the informer, lister and client targets;
// without a deepcopy target, --output-file names the defaults file, as it
// does to defaulter-gen; the output file is a Go file's base name.
func (o *Options) checkDefaulter() error {
	if o.DefaulterOnly {
		o.WithDefaulter = true
		if o.DeepCopyOutputFile != "" && !o.WithDeepCopy && !o.DeepCopyOnly {
			if o.DefaulterOutputFile != "" {
				return inputerr.Errorf("", "--output-file and --defaulter-output-file both name the defaults file")
			}
			o.DefaulterOutputFile, o.DeepCopyOutputFile = o.DeepCopyOutputFile, ""
		}
		if err := o.checkHelpersOnly("--defaulter-only"); err != nil {
			return err
		}
	}
	for _, p := range o.DefaulterExtraPeerPackages {
		if !o.WithDefaulter {
			return inputerr.Errorf("", "--defaulter-extra-peer-dirs names packages for the defaulters, which are generated only with --with-defaulter or --defaulter-only")
		}
		if !load.IsImportPath(p) {
			return inputerr.Errorf("", "--defaulter-extra-peer-dirs: %q is not an import path", p)
		}
	}
	if o.DefaulterOutputFile != "" {
		if !o.WithDefaulter {
			return inputerr.Errorf("", "--defaulter-output-file names the defaults file, which is generated only with --with-defaulter or --defaulter-only")
		}
		if !isGoFileName(o.DefaulterOutputFile) {
			return inputerr.Errorf("", "defaults file %q is not the base name of a non-test Go file", o.DefaulterOutputFile)
		}
	}
	return nil
}
