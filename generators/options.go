package generators

import (
	"go/build"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/typedinformer/typedinformer/generators/internal/inputerr"
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

// DefaultApplyConfigName is kube_codegen.sh's --applyconfig-name.
const DefaultApplyConfigName = "applyconfiguration"

// DefaultPluralExceptions are always applied, before the caller's own
// exceptions (an entry for the same type replaces the default). k8s.io/api's
// Endpoints type is already plural and its clientset says Endpoints(ns), not
// Endpointses(ns).
var DefaultPluralExceptions = []string{"Endpoints:Endpoints"}

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
	return o.clientLayout()
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

// flagGroup is a set of options that only mean something to some targets,
// for the error naming the first one set where they mean nothing.
type flagGroup uint

const (
	// clientTargetFlags configure informers, listers or clients: an
	// only-mode refuses them.
	clientTargetFlags flagGroup = 1 << iota
	// notListersOnlyFlags are refused when only the listers are generated.
	notListersOnlyFlags
	// clientsetFlags configure the clientset.
	clientsetFlags
	// applyFlags configure the apply configurations.
	applyFlags
	// conversionFlags configure the conversion functions.
	conversionFlags
)

// firstSet returns the command-line name of the first option of group g
// that is set, "" when none is. The options are listed once, each with
// every group it belongs to.
func (o *Options) firstSet(g flagGroup) string {
	for _, f := range []struct {
		groups flagGroup
		name   string
		set    bool
	}{
		{clientTargetFlags, "--output-dir", o.OutputDir != ""},
		{clientTargetFlags, "--output-pkg", o.OutputPkg != ""},
		{clientTargetFlags | notListersOnlyFlags, "--versioned-clientset-package", o.VersionedClientsetPackage != ""},
		{clientTargetFlags | notListersOnlyFlags, "--listers-package", o.ListersPackage != ""},
		{notListersOnlyFlags, "--listers-output-dir", o.ListersDir != ""},
		{notListersOnlyFlags, "--single-directory", o.SingleDirectory},
		{notListersOnlyFlags, "informers (OutputDirIsInformers)", o.OutputDirIsInformers},
		{clientTargetFlags, "--with-clientset", o.WithClientset},
		{clientTargetFlags, "--with-applyconfig", o.WithApplyConfig},
		{clientsetFlags, "--clientset-only", o.ClientsetOnly},
		{clientsetFlags, "--clientset-name", o.ClientsetName != ""},
		{clientsetFlags, "--clientset-package", o.ClientsetPackage != ""},
		{clientsetFlags, "--clientset-output-dir", o.ClientsetDir != ""},
		{clientsetFlags, "--apply-configuration-package", o.ApplyConfigurationPackage != ""},
		{clientsetFlags, "--prefers-protobuf", o.PrefersProtobuf},
		{clientsetFlags, "--fake-clientset=false", o.NoFakeClientset},
		{clientsetFlags, "--replace-client-gen-output", o.ReplaceClientGenOutput},
		{applyFlags, "--applyconfig-name", o.ApplyConfigName != ""},
		{applyFlags, "--applyconfig-output-dir", o.ApplyConfigurationDir != ""},
		{applyFlags, "--external-applyconfigurations", len(o.ExternalApplyConfigurations) > 0},
		{applyFlags, "--openapi-schema", o.OpenAPISchema != ""},
		{conversionFlags, "--conversion-output-file", o.ConversionOutputFile != ""},
		{conversionFlags, "--extra-peer-dirs", len(o.ExtraPeerDirs) > 0},
		{conversionFlags, "--base-peer-dirs", o.BasePeerDirs != nil},
		{conversionFlags, "--skip-unsafe", o.SkipUnsafe},
	} {
		if f.groups&g != 0 && f.set {
			return f.name
		}
	}
	return ""
}
