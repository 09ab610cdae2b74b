package generators

import (
	"context"
	"strings"
	"testing"
)

// TestConversionOptions: the conversion flags are refused where they mean
// nothing or name no package.
func TestConversionOptions(t *testing.T) {
	for _, c := range []struct {
		name   string
		mutate func(*Options)
		want   string
	}{
		{"output file without conversion", func(o *Options) { o.ConversionOutputFile = "x.go" }, "--conversion-output-file configures the conversion functions, which are generated only with --with-conversion or --conversion-only"},
		{"extra peers without conversion", func(o *Options) { o.ExtraPeerDirs = []string{"example.com/x"} }, "--extra-peer-dirs configures the conversion functions"},
		{"skip-unsafe without conversion", func(o *Options) { o.SkipUnsafe = true }, "--skip-unsafe configures the conversion functions"},
		{"output file in a directory", func(o *Options) { o.ConversionOnly = true; o.ConversionOutputFile = "sub/x.go" }, `--conversion-output-file "sub/x.go" is not the base name of a non-test Go file`},
		{"output file of the deepcopy functions", func(o *Options) {
			o.ConversionOnly = true
			o.ConversionOutputFile = "zz.go"
			o.DeepCopyOutputFile = "zz.go"
		}, `--conversion-output-file and --output-file both name "zz.go"`},
		{"relative peer directory", func(o *Options) { o.ConversionOnly = true; o.ExtraPeerDirs = []string{"./apis/x"} }, `peer directory "./apis/x" is not a package import path`},
		{"conversion only with a clientset", func(o *Options) { o.DeepCopyOnly = false; o.ConversionOnly = true; o.WithClientset = true }, "--with-clientset configures informers, listers or clients, which --conversion-only does not generate"},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := deepCopyOptions()
			c.mutate(&o)
			_, err := Build(context.Background(), o)
			if err == nil || !IsInputError(err) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want an input error containing %q", err, c.want)
			}
		})
	}
}
