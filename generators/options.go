package generators

import (
	"errors"
	"go/build"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/typedinformer/typedinformer/generators/internal/inputerr"
	"github.com/typedinformer/typedinformer/generators/load"
	"github.com/typedinformer/typedinformer/generators/output"
	"github.com/typedinformer/typedinformer/generators/plan"
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
	// WithClientset also generates the versioned clientset and (unless
	// NoFakeClientset) its fake, as client-gen does, from the same model:
	// <ClientsetDir>/<ClientsetName>/{clientset.go,scheme,typed/<group>/<version>,fake}.
	// The informers then list and watch through it, so
	// VersionedClientsetPackage may be left empty (if given, it must name it).
	WithClientset bool
	// ClientsetOnly (with WithClientset) leaves the informers and listers
	// out, and their directories alone: kube_codegen.sh's gen_client without
	// --with-watch.
	ClientsetOnly bool
	// ClientsetName is the clientset's package directory (client-gen's
	// --clientset-name); "" means "versioned".
	ClientsetName string
	// ClientsetPackage and ClientsetDir are the import path and directory
	// that receive ClientsetName/ (client-gen's --output-pkg and
	// --output-dir). "" means <OutputPkg>/clientset and <OutputDir>/clientset
	// (beside the informers directory when OutputDirIsInformers); a
	// ClientsetPackage without ClientsetDir is located as ListersPackage is.
	ClientsetPackage, ClientsetDir string
	// ApplyConfigurationPackage is the import path of applyconfiguration-gen's
	// apply configurations (client-gen's --apply-configuration-package): with
	// it, the clients get Apply, ApplyStatus and the apply extension verbs,
	// and the fake clientset NewClientset. "" means none of them.
	ApplyConfigurationPackage string
	// PrefersProtobuf makes the typed clients ask for protobuf (client-gen's
	// --prefers-protobuf).
	PrefersProtobuf bool
	// NoFakeClientset leaves out the fake clientset (client-gen's
	// --fake-clientset=false).
	NoFakeClientset bool
	// ReplaceClientGenOutput lets the run overwrite, and remove when no
	// longer produced, files under the clientset directory that carry
	// client-gen's "Code generated by client-gen" marker. Without it such a
	// file at a generated path stops the run.
	ReplaceClientGenOutput bool
	// WithApplyConfig also generates the apply configurations, as
	// applyconfiguration-gen does, from the same input packages: a builder
	// for every struct reachable from a +genclient type with an apply verb,
	// the utils package (ForKind) and the internal package (the schema).
	// They go to ApplyConfigurationPackage, by default <OutputPkg>/<ApplyConfigName>
	// (beside the clientset), and the clients get Apply and ApplyStatus
	// over them. It needs WithClientset.
	WithApplyConfig bool
	// ApplyConfigName is the apply configurations' directory under the
	// output (kube_codegen.sh's --applyconfig-name); "" means
	// "applyconfiguration".
	ApplyConfigName string
	// ApplyConfigurationDir is the directory of ApplyConfigurationPackage;
	// "" means it is derived as ListersDir is.
	ApplyConfigurationDir string
	// ExternalApplyConfigurations are applyconfiguration-gen's
	// --external-applyconfigurations: "<type package>.<Type>:<apply
	// configuration package>" entries for referenced types whose apply
	// configurations are generated elsewhere. client-go's meta/v1 ones are
	// always known.
	ExternalApplyConfigurations []string
	// OpenAPISchema is applyconfiguration-gen's --openapi-schema: an
	// OpenAPI v2 document whose definitions of the applied types (and what
	// they reference) the internal package embeds, and which gives the
	// +genclient types their Extract functions. "" means neither.
	OpenAPISchema string
	// WithDeepCopy also generates deepcopy-gen's functions, into
	// DeepCopyOutputFile in each input package whose +k8s:deepcopy-gen
	// tags ask for them. A file deepcopy-gen wrote at that path is replaced.
	WithDeepCopy bool
	// DeepCopyOnly (which implies WithDeepCopy) generates only the deepcopy
	// functions: no output directory, package or clientset is needed, and
	// the input needs no +genclient type.
	DeepCopyOnly bool
	// DeepCopyOutputFile is deepcopy-gen's --output-file: the file's base
	// name; "" means "zz_generated.deepcopy.go".
	DeepCopyOutputFile string
	// WithConversion also generates conversion-gen's functions, into
	// ConversionOutputFile in each input package whose doc.go carries
	// +k8s:conversion-gen. A file conversion-gen wrote at that path is
	// replaced.
	WithConversion bool
	// ConversionOnly (which implies WithConversion) generates only the
	// per-package files asked for (conversion, and deepcopy with
	// WithDeepCopy): no output directory, package or clientset is needed,
	// and the input needs no +genclient type.
	ConversionOnly bool
	// ConversionOutputFile is conversion-gen's --output-file: the file's
	// base name; "" means "zz_generated.conversion.go".
	ConversionOutputFile string
	// BasePeerDirs (nil: apimachinery's meta/v1, conversion and runtime)
	// and ExtraPeerDirs are conversion-gen's --base-peer-dirs and
	// --extra-peer-dirs: import paths searched, after a package's tagged
	// peers, for peer types and hand-written conversion functions.
	BasePeerDirs, ExtraPeerDirs []string
	// SkipUnsafe is conversion-gen's --skip-unsafe: no unsafe pointer
	// casts between types of equal memory layout.
	SkipUnsafe bool
	// WithDefaulter also generates defaulter-gen's defaulters, into
	// DefaulterOutputFile in each input package tagged
	// +k8s:defaulter-gen. A file defaulter-gen wrote at that path is
	// replaced.
	WithDefaulter bool
	// DefaulterOnly (which implies WithDefaulter) generates only the
	// defaulters (and the deepcopy functions with DeepCopyOnly or
	// WithDeepCopy): no output directory, package or clientset is needed,
	// and the input needs no +genclient type.
	DefaulterOnly bool
	// DefaulterOutputFile is defaulter-gen's --output-file; "" means
	// "zz_generated.defaults.go".
	DefaulterOutputFile string
	// DefaulterExtraPeerPackages is defaulter-gen's --extra-peer-dirs:
	// import paths of packages whose SetDefaults_ functions the defaulters
	// call too.
	DefaulterExtraPeerPackages []string
	// WithRegister also generates register-gen's file, into
	// RegisterOutputFile in each input package whose doc.go asks for it
	// (+groupName=, +k8s:register-gen). A file register-gen wrote at that
	// path is replaced.
	WithRegister bool
	// RegisterOnly (which implies WithRegister) generates only the files
	// of the package-local targets (register, and deepcopy with
	// WithDeepCopy): no output directory, package or clientset is needed,
	// and the input needs no +genclient type.
	RegisterOnly bool
	// RegisterOutputFile is register-gen's --output-file: the file's base
	// name; "" means "zz_generated.register.go". With RegisterOnly and
	// neither WithDeepCopy nor DeepCopyOnly, DeepCopyOutputFile (the
	// --output-file flag) names it instead, as on register-gen's command
	// line.
	RegisterOutputFile string
	// HelperPatterns are more input packages (package patterns, as
	// Patterns) read only by the package-local targets (deepcopy,
	// register): one run can write those files for a repository's every
	// API package while the informers, listers, clientset and apply
	// configurations come from Patterns alone.
	HelperPatterns []string
	// InputBase and Inputs are client-gen's way of naming the API packages:
	// each Inputs entry ("apps/v1", "example.com/apis/foo/v1") joined to
	// InputBase (an import path or a directory) is added to Patterns.
	// InputBase defaults to client-gen's "k8s.io/kubernetes/pkg/apis".
	InputBase string
	Inputs    []string
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

// DefaultClientsetName is client-gen's --clientset-name as kube_codegen.sh
// passes it.
const DefaultClientsetName = "versioned"

// DefaultInputBase is client-gen's default --input-base.
const DefaultInputBase = "k8s.io/kubernetes/pkg/apis"

// inputPatterns turns client-gen's --input-base and --input into patterns.
func (o *Options) inputPatterns() []string {
	base := o.InputBase
	if base == "" {
		base = DefaultInputBase
	}
	var out []string
	for _, in := range o.Inputs {
		in = strings.TrimSpace(in)
		if in == "" {
			continue
		}
		if filepath.IsAbs(base) || strings.HasPrefix(base, ".") {
			out = append(out, filepath.Join(base, filepath.FromSlash(in)))
		} else {
			out = append(out, path.Join(base, in))
		}
	}
	return out
}

// validate checks the options and resolves the output layout.
func (o *Options) validate() (plan.Layout, error) {
	var l plan.Layout
	if err := o.checkRegister(); err != nil {
		return l, err
	}
	if err := o.checkDefaulter(); err != nil {
		return l, err
	}
	if err := o.checkConversion(); err != nil {
		return l, err
	}
	if err := o.checkDeepCopy(); err != nil {
		return l, err
	}
	if len(o.HelperPatterns) > 0 && !o.WithDeepCopy && !o.WithRegister && !o.WithDefaulter && !o.WithConversion {
		return l, inputerr.Errorf("", "--helper-packages are read only by the targets that write into the input packages (deepcopy, register, defaulter, conversion): add one of their --with- flags")
	}
	if o.packagesOnly() {
		return l, o.checkBuildTags()
	}
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
		for _, f := range []struct {
			name string
			set  bool
		}{
			{"--applyconfig-name", o.ApplyConfigName != ""},
			{"--applyconfig-output-dir", o.ApplyConfigurationDir != ""},
			{"--external-applyconfigurations", len(o.ExternalApplyConfigurations) > 0},
			{"--openapi-schema", o.OpenAPISchema != ""},
		} {
			if f.set {
				return inputerr.Errorf("", "%s configures the apply configurations, which are generated only with --with-applyconfig", f.name)
			}
		}
	} else if !o.WithClientset {
		return inputerr.Errorf("", "--with-applyconfig needs --with-clientset: the apply configurations are generated with the clientset whose Apply takes them")
	}
	if !o.WithClientset {
		for _, f := range []struct {
			name string
			set  bool
		}{
			{"--clientset-only", o.ClientsetOnly},
			{"--clientset-name", o.ClientsetName != ""},
			{"--clientset-package", o.ClientsetPackage != ""},
			{"--clientset-output-dir", o.ClientsetDir != ""},
			{"--apply-configuration-package", o.ApplyConfigurationPackage != ""},
			{"--prefers-protobuf", o.PrefersProtobuf},
			{"--fake-clientset=false", o.NoFakeClientset},
			{"--replace-client-gen-output", o.ReplaceClientGenOutput},
		} {
			if f.set {
				return inputerr.Errorf("", "%s configures the clientset, which is generated only with --with-clientset", f.name)
			}
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

// checkDeepCopy checks the deepcopy options: DeepCopyOnly sets
// WithDeepCopy and excludes the other targets; the output file is a Go
// file's base name.
func (o *Options) checkDeepCopy() error {
	if o.DeepCopyOutputFile != "" {
		if !o.WithDeepCopy && !o.DeepCopyOnly {
			return inputerr.Errorf("", "--output-file names the deepcopy file, which is generated only with --with-deepcopy or --deepcopy-only")
		}
		if !isGoFileName(o.DeepCopyOutputFile) {
			return inputerr.Errorf("", "--output-file %q is not the base name of a non-test Go file", o.DeepCopyOutputFile)
		}
	}
	if !o.DeepCopyOnly {
		return nil
	}
	o.WithDeepCopy = true
	return o.checkHelpersOnly("--deepcopy-only")
}

// packagesOnly reports whether the run writes only files inside the input
// packages (--deepcopy-only, --register-only, --defaulter-only,
// --conversion-only): no informers, listers or clients.
func (o *Options) packagesOnly() bool {
	return o.DeepCopyOnly || o.RegisterOnly || o.DefaulterOnly || o.ConversionOnly
}

// checkRegister checks the register options: RegisterOnly sets
// WithRegister and excludes the informer, lister and client targets, and
// alone takes --output-file as the register file's name; the output file is
// a Go file's base name.
func (o *Options) checkRegister() error {
	if o.RegisterOnly {
		o.WithRegister = true
		if o.DeepCopyOutputFile != "" && !o.WithDeepCopy && !o.DeepCopyOnly {
			if o.RegisterOutputFile != "" {
				return inputerr.Errorf("", "--output-file and --register-output-file both name the register file")
			}
			o.RegisterOutputFile, o.DeepCopyOutputFile = o.DeepCopyOutputFile, ""
		}
		if err := o.checkHelpersOnly("--register-only"); err != nil {
			return err
		}
	}
	if o.RegisterOutputFile != "" {
		if !o.WithRegister {
			return inputerr.Errorf("", "--register-output-file names the register file, which is generated only with --with-register or --register-only")
		}
		if !isGoFileName(o.RegisterOutputFile) {
			return inputerr.Errorf("", "--register-output-file %q is not the base name of a non-test Go file", o.RegisterOutputFile)
		}
	}
	return nil
}

// checkConversion checks the conversion options as checkDeepCopy does the
// deepcopy ones; with ConversionOnly alone, --output-file names the
// conversion file, as it does to conversion-gen.
func (o *Options) checkConversion() error {
	if o.ConversionOnly && o.DeepCopyOutputFile != "" && !o.WithDeepCopy && !o.DeepCopyOnly {
		if o.ConversionOutputFile != "" {
			return inputerr.Errorf("", "--output-file and --conversion-output-file both name the conversion file")
		}
		o.ConversionOutputFile, o.DeepCopyOutputFile = o.DeepCopyOutputFile, ""
	}
	with := o.WithConversion || o.ConversionOnly
	if !with {
		for _, f := range []struct {
			name string
			set  bool
		}{
			{"--conversion-output-file", o.ConversionOutputFile != ""},
			{"--extra-peer-dirs", len(o.ExtraPeerDirs) > 0},
			{"--base-peer-dirs", o.BasePeerDirs != nil},
			{"--skip-unsafe", o.SkipUnsafe},
		} {
			if f.set {
				return inputerr.Errorf("", "%s configures the conversion functions, which are generated only with --with-conversion or --conversion-only", f.name)
			}
		}
	}
	if f := o.ConversionOutputFile; f != "" && !isGoFileName(f) {
		return inputerr.Errorf("", "--conversion-output-file %q is not the base name of a non-test Go file", f)
	}
	if f := o.ConversionOutputFile; f != "" && f == o.DeepCopyOutputFile && (o.WithDeepCopy || o.DeepCopyOnly) {
		return inputerr.Errorf("", "--conversion-output-file and --output-file both name %q", f)
	}
	for _, d := range append(append([]string{}, o.BasePeerDirs...), o.ExtraPeerDirs...) {
		if d == "" || strings.HasPrefix(d, ".") || filepath.IsAbs(d) {
			return inputerr.Errorf("", "peer directory %q is not a package import path", d)
		}
	}
	if !o.ConversionOnly {
		return nil
	}
	o.WithConversion = true
	return o.checkHelpersOnly("--conversion-only")
}

// checkHelpersOnly refuses the options of the informer, lister and client
// targets, which flag (an only-mode) does not generate.
func (o *Options) checkHelpersOnly(flag string) error {
	for _, f := range []struct {
		name string
		set  bool
	}{
		{"--output-dir", o.OutputDir != ""},
		{"--output-pkg", o.OutputPkg != ""},
		{"--versioned-clientset-package", o.VersionedClientsetPackage != ""},
		{"--listers-package", o.ListersPackage != ""},
		{"--with-clientset", o.WithClientset},
		{"--with-applyconfig", o.WithApplyConfig},
	} {
		if f.set {
			return inputerr.Errorf("", "%s configures informers, listers or clients, which %s does not generate", f.name, flag)
		}
	}
	return nil
}

// isGoFileName reports whether name is the base name of a non-test Go file.
func isGoFileName(name string) bool {
	return !strings.ContainsAny(name, "/\\") && strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go")
}

// checkBuildTags checks that every build tag is one.
func (o *Options) checkBuildTags() error {
	for _, tag := range o.BuildTags {
		if tag == "" || strings.ContainsAny(tag, " \t,\"'") {
			return inputerr.Errorf("", "--build-tags: %q is not a build tag", tag)
		}
	}
	return nil
}

// validateListersOnly resolves the layout of a ListersOnly run: outDir is the
// listers directory and there are no informers. It refuses the options that
// only the informers need, and an outDir that is the parent of (or holds)
// informer-gen's informers/ and listers/, which upstream lister-gen's reading
// would fill with <group>/<version> directories beside them.
func (o *Options) validateListersOnly(outDir, outPkg string) (plan.Layout, error) {
	var l plan.Layout
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
			return l, inputerr.Errorf("", "%s cannot be used when only the listers are generated (upstream lister-gen's reading of --output-dir)", f.name)
		}
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

// DefaultPluralExceptions are always applied, before the caller's own
// exceptions (an entry for the same type replaces the default). k8s.io/api's
// Endpoints type is already plural and its clientset says Endpoints(ns), not
// Endpointses(ns).
var DefaultPluralExceptions = []string{"Endpoints:Endpoints"}

// DefaultApplyConfigName is kube_codegen.sh's --applyconfig-name.
const DefaultApplyConfigName = "applyconfiguration"
