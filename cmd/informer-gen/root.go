package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/klog/v2"
	"k8s.io/klog/v2/textlogger"

	"github.com/typedinformer/typedinformer/generators"
)

// Exit codes.
const (
	exitOK        = 0
	exitOutOfDate = 1 // verify: the generated code is not current
	exitBadInput  = 2 // bad flags, patterns, tags or API packages
	exitFailure   = 3 // anything else: I/O errors, go list could not run
)

// errOutOfDate is returned by verify when the tree needs regenerating.
var errOutOfDate = errors.New("generated code is out of date")

const example = `  # Generate informers and listers for every API package under ./apis into
  # ./pkg/generated/{informers/externalversions,listers}:
  informer-gen ./apis/... \
    --output-dir ./pkg/generated \
    --output-pkg example.com/widgets/pkg/generated \
    --versioned-clientset-package example.com/widgets/pkg/generated/clientset/versioned \
    --go-header-file ./hack/boilerplate.go.txt

  # In CI: print a diff and exit 1 if that output is not current.
  informer-gen verify ./apis/... \
    --output-dir ./pkg/generated \
    --output-pkg example.com/widgets/pkg/generated \
    --versioned-clientset-package example.com/widgets/pkg/generated/clientset/versioned \
    --go-header-file ./hack/boilerplate.go.txt

  # kube_codegen.sh's lister-gen arguments write the listers alone, as
  # lister-gen would (--output-dir is the listers directory):
  informer-gen -v 0 --go-header-file ./hack/boilerplate.go.txt \
    --output-dir ./pkg/generated/listers \
    --output-pkg example.com/widgets/pkg/generated/listers \
    --plural-exceptions "" example.com/widgets/apis/foo/v1

  # kube_codegen.sh's informer-gen arguments work unchanged (upstream's
  # meaning: --output-dir is the informers directory; the listers go to
  # ./pkg/generated/listers in the same run):
  informer-gen -v 0 --go-header-file ./hack/boilerplate.go.txt \
    --output-dir ./pkg/generated/informers \
    --output-pkg example.com/widgets/pkg/generated/informers \
    --versioned-clientset-package example.com/widgets/pkg/generated/clientset/versioned \
    --listers-package example.com/widgets/pkg/generated/listers \
    --plural-exceptions "" example.com/widgets/apis/foo/v1`

// flags are the options shared by generate and verify.
type flags struct {
	opts              generators.Options
	verbosity         int
	vmodule           string
	internalClientset string
	lintRules         []string
	fakeClientset     bool
	clientsetAPIPath  string
	klogIgnored       klogIgnored
}

// run executes the command line and returns the process exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cmd := newRootCommand(stdout, stderr)
	cmd.SetArgs(normalizeVerbosity(cmd, args))
	err := cmd.ExecuteContext(ctx)
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, errOutOfDate):
		fmt.Fprintf(stderr, "informer-gen: %v\n", err)
		return exitOutOfDate
	case generators.IsInputError(err), isUsageError(err):
		fmt.Fprintf(stderr, "informer-gen: %v\n", err)
		return exitBadInput
	default:
		fmt.Fprintf(stderr, "informer-gen: %v\n", err)
		return exitFailure
	}
}

// usageError marks command-line mistakes cobra reports (unknown flag, bad value).
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() + " (see informer-gen --help)" }
func (e usageError) Unwrap() error { return e.err }

func isUsageError(err error) bool {
	var u usageError
	return errors.As(err, &u)
}

func newRootCommand(stdout, stderr io.Writer) *cobra.Command {
	f := &flags{}
	root := &cobra.Command{
		Use:   "informer-gen [generate|verify|version] PATTERNS... [flags]",
		Short: "Generate typed shared informers, listers and an informer factory for Kubernetes API packages",
		Long: `informer-gen reads the Go API packages named by PATTERNS (as the go tool reads
them: ./apis/..., example.com/repo/apis/foo/v1; also hack/../apis/... or
apis/..., which the go tool would take for import paths) and writes, in one run:

  <output-dir>/informers/externalversions/   factory.go, generic.go (ForResource),
                                             internalinterfaces/, <group>/<version>/
  <output-dir>/listers/<group>/<version>/    one lister per type, expansion_generated.go

With --listers-package, which upstream informer-gen requires, --output-dir
and --output-pkg mean what they mean upstream: the informers directory, so
kube_codegen.sh's values (--output-dir <out>/informers --output-pkg
<pkg>/informers --listers-package <pkg>/listers) write

  <output-dir>/externalversions/             the informers, as above
  <listers-output-dir>/<group>/<version>/    the listers; the directory defaults
                                             to --listers-package's, found beside
                                             --output-pkg (<out>/listers) or in
                                             the module holding --output-dir

Without --versioned-clientset-package (nor --listers-package,
--listers-output-dir or --single-directory) the command line is upstream
lister-gen's: --output-dir and --output-pkg are the listers directory and
only the listers are written, as lister-gen writes them:

  <output-dir>/<group>/<version>/            one lister per type, expansion_generated.go

An --output-dir named informers without --listers-package, and an
--output-dir holding informers/externalversions from the other reading with
it, are refused (exit 2) rather than written to informers/informers. Every
flag of upstream informer-gen and lister-gen is accepted: -v N, -v=N, --v=N
and --vmodule set the log verbosity (-v alone means 1); klog's other flags
(--logtostderr, --alsologtostderr, --log_dir, --log_file, --log_file_max_size,
--stderrthreshold, --skip_headers, ...) are accepted and ignored, the log
always going to stderr; --internal-clientset-package and --lint-rules are
accepted and ignored. Informers and listers for one API come from this one
run: drop --with-watch from kube::codegen::gen_client, whose lister-gen and
informer-gen would otherwise replace (its cleanup deletes) these files.

With --with-clientset the run also writes client-gen's versioned clientset,
scheme, typed clients and fakes into <clientset-output-dir>/<clientset-name>
(default <output-dir>/clientset/versioned), and the informers use it. The
clientset flags (--clientset-name, --clientset-package, --clientset-output-dir,
--apply-configuration-package, --prefers-protobuf, --fake-clientset,
--input-base, --input) mean what they mean to client-gen; files client-gen
wrote are replaced only with --replace-client-gen-output.

With --with-applyconfig (and --with-clientset) the run also writes
applyconfiguration-gen's apply configurations into
<output-dir>/<applyconfig-name> (default applyconfiguration, or
--apply-configuration-package with --applyconfig-output-dir): a builder for
every struct reachable from a +genclient type with an apply verb, the utils
package (ForKind) and the internal package; the clients get Apply and
ApplyStatus. --external-applyconfigurations and --openapi-schema mean what
they mean to applyconfiguration-gen; files it wrote are replaced only with
--replace-client-gen-output.

With --with-deepcopy the run also writes deepcopy-gen's functions into
--output-file (default zz_generated.deepcopy.go) in every input package whose
+k8s:deepcopy-gen tags ask for them, replacing deepcopy-gen's file there;
--deepcopy-only writes only those, and then needs no --output-dir,
--output-pkg or +genclient type.

With --with-register the run also writes register-gen's file into
--register-output-file (default zz_generated.register.go) in every input
package whose doc.go has +groupName= or +k8s:register-gen (not =false) and
no register.go, registering each type that embeds TypeMeta; --register-only
writes only those (and the deepcopy files with --with-deepcopy), needs no
--output-dir, --output-pkg or +genclient type, and alone takes
--output-file as register-gen does.

With --with-conversion the run also writes conversion-gen's functions into
--conversion-output-file (default zz_generated.conversion.go) in every input
package whose doc.go carries +k8s:conversion-gen=<peer package>, replacing
conversion-gen's file there; --extra-peer-dirs, --base-peer-dirs and
--skip-unsafe mean what they mean to conversion-gen. --conversion-only writes
only those (and the deepcopy files with --with-deepcopy). Where conversion-gen
would write code that does not compile (a member that requires manual
conversion and no hand-written Convert_ function), the run stops at the
member's file:line instead.

With --with-defaulter the run also writes defaulter-gen's defaulters
(SetObjectDefaults_<Type> calling the SetDefaults_ functions and +default
values, and RegisterDefaults) into --defaulter-output-file (default
zz_generated.defaults.go) in every input package tagged +k8s:defaulter-gen,
replacing defaulter-gen's file there; --defaulter-only writes only those (and
the deepcopy files with --with-deepcopy), and then --output-file names the
defaults file, as it does to defaulter-gen.

One run can write every target: --with-deepcopy, --with-register,
--with-defaulter and --with-conversion beside the client flags, with
--helper-packages naming the packages only those four read.

Types are selected with client-gen's tags: +genclient, +genclient:nonNamespaced,
:noVerbs, :onlyVerbs=, :skipVerbs=, :readonly; a type gets an informer when it
has the list and watch verbs and a lister when it has list and get (an
informer without a lister has no Lister method).
+k8s:informer-gen=false and +k8s:lister-gen=false (in doc.go or on a type) opt
out; +resourceName= overrides the REST resource. The group comes from
+groupName= in doc.go (or the package's GroupName constant), its Go name from
+groupGoName= or the group's first DNS label, as client-gen names it.

Only the syntax and comments of the API packages are read; nothing is
type-checked. A +genclient type that is a definition or alias of another
named type (type Foo Bar, type Foo = v1.Bar) is followed to the struct it
names, in the same package, another package or another module (located with
go list -find); only packages whose types syntax cannot settle (an instance
of a generic type) are type-checked. Files are rendered and gofmt'ed in memory and written only when
all of them are ready, through temporary files renamed into place; unchanged
files are not touched and generated files that are no longer produced are
removed. A file informer-gen did not generate (no "Code generated by
informer-gen" line) is never overwritten or removed: the run fails instead.
A run killed while writing can leave temporary files (.informer-gen-tmp.*)
and a mix of old and new files; the next generate removes the former and
rewrites the latter. The header's YEAR is kept from the existing file, so regenerating
does not churn it; a new file gets the current year ($SOURCE_DATE_EPOCH's if
set).

Exit codes: 0 success; 1 verify found the output out of date; 2 bad input
(flags, patterns, tags, API packages: the message names file:line); 3 any
other failure.`,
		Example:       example,
		Args:          cobra.ArbitraryArgs,
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runGenerate(cmd.Context(), f, args, stderr)
		},
	}
	root.CompletionOptions.DisableDefaultCmd = true
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })

	pf := root.PersistentFlags()
	pf.StringVar(&f.opts.OutputDir, "output-dir", "", "without --listers-package: the directory that receives informers/externalversions/ and listers/; with --listers-package, as upstream informer-gen reads it: the informers directory, which receives externalversions/ (required)")
	pf.StringVar(&f.opts.OutputPkg, "output-pkg", "", "Go import path of --output-dir (required)")
	pf.StringVar(&f.opts.VersionedClientsetPackage, "versioned-clientset-package", "", "Go import path of the client-gen clientset the informers list and watch through; without it (and without --listers-package) only the listers are written, into --output-dir, as upstream lister-gen does")
	pf.StringVar(&f.opts.ListersPackage, "listers-package", "", "Go import path to generate the listers into (default <output-pkg>/listers); giving it makes --output-dir the informers directory, as upstream informer-gen reads it")
	pf.StringVar(&f.opts.ListersDir, "listers-output-dir", "", "directory of the listers package (default: found from --listers-package beside --output-pkg, else in the module holding --output-dir)")
	pf.StringVar(&f.opts.HeaderFile, "go-header-file", "", "file whose text heads every generated file; \"YEAR\" in it becomes the year of the existing file, else the current year")
	pf.StringSliceVar(&f.opts.PluralExceptions, "plural-exceptions", generators.DefaultPluralExceptions, "comma-separated Type:PluralType entries for plurals client-gen was told about; Endpoints:Endpoints always applies unless an entry for Endpoints replaces it")
	pf.BoolVar(&f.opts.SingleDirectory, "single-directory", false, "put the informers directly into --output-dir, without informers/externalversions/ (or externalversions/)")
	pf.StringSliceVar(&f.opts.BuildTags, "build-tags", nil, "comma-separated build tags, as go build -tags takes them, for choosing which files of the API packages and of the output directories count (GOOS and GOARCH come from the environment, as for go list)")
	pf.BoolVar(&f.opts.WithClientset, "with-clientset", false, "also generate the versioned clientset and its fake, as client-gen does, into --clientset-output-dir/<clientset-name>; the informers then use it, so --versioned-clientset-package may be left out")
	pf.StringVarP(&f.opts.ClientsetName, "clientset-name", "n", "", "with --with-clientset: the clientset's package directory, as client-gen's --clientset-name (default \""+generators.DefaultClientsetName+"\")")
	pf.StringVar(&f.opts.ClientsetPackage, "clientset-package", "", "with --with-clientset: Go import path that receives <clientset-name>/, client-gen's --output-pkg (default <output-pkg>/clientset, beside the informers directory when --listers-package is given)")
	pf.StringVar(&f.opts.ClientsetDir, "clientset-output-dir", "", "with --with-clientset: directory of --clientset-package, client-gen's --output-dir (default: found from --clientset-package beside --output-pkg, else in the module holding --output-dir)")
	pf.StringVar(&f.opts.ApplyConfigurationPackage, "apply-configuration-package", "", "with --with-clientset: Go import path of applyconfiguration-gen's apply configurations, as client-gen takes it; the clients then get Apply, ApplyStatus and apply extension verbs, the fake NewClientset")
	pf.BoolVar(&f.opts.PrefersProtobuf, "prefers-protobuf", false, "with --with-clientset: typed clients ask for protobuf, as client-gen's --prefers-protobuf")
	pf.BoolVar(&f.fakeClientset, "fake-clientset", true, "with --with-clientset: also generate the fake clientset (client-gen's --fake-clientset)")
	pf.BoolVar(&f.opts.ReplaceClientGenOutput, "replace-client-gen-output", false, "with --with-clientset: overwrite files under the clientset directory that upstream client-gen wrote (\"Code generated by client-gen\"), and remove those this run does not produce; without it such a file stops the run")
	pf.BoolVar(&f.opts.ClientsetOnly, "clientset-only", false, "with --with-clientset: generate no informers and listers and leave their directories alone, as kube_codegen.sh's gen_client without --with-watch")
	pf.BoolVar(&f.opts.WithApplyConfig, "with-applyconfig", false, "with --with-clientset: also generate the apply configurations, as applyconfiguration-gen does, into <output-dir>/<applyconfig-name> (or --apply-configuration-package), and give the clients Apply and ApplyStatus over them")
	pf.BoolVar(&f.opts.WithDeepCopy, "with-deepcopy", false, "also generate deepcopy-gen's DeepCopy functions into --output-file in each input package tagged +k8s:deepcopy-gen")
	pf.BoolVar(&f.opts.DeepCopyOnly, "deepcopy-only", false, "generate only deepcopy-gen's DeepCopy functions (no informers, listers or clients; --output-dir and --output-pkg are not used)")
	pf.BoolVar(&f.opts.WithRegister, "with-register", false, "also generate register-gen's registration (GroupName, SchemeGroupVersion, AddToScheme, addKnownTypes) into --register-output-file in each input package with +groupName or +k8s:register-gen in doc.go and no register.go")
	pf.BoolVar(&f.opts.RegisterOnly, "register-only", false, "generate only register-gen's files (and the deepcopy files with --with-deepcopy; no informers, listers or clients; --output-dir and --output-pkg are not used)")
	pf.StringVar(&f.opts.RegisterOutputFile, "register-output-file", "", "with --with-register or --register-only: register-gen's --output-file, the generated file's name in each package (default \"zz_generated.register.go\")")
	pf.StringSliceVar(&f.opts.HelperPatterns, "helper-packages", nil, "with --with-deepcopy, --with-register, --with-defaulter or --with-conversion: comma-separated package patterns read only by those targets, beside the positional packages (so one run writes every package's deepcopy, register, defaults and conversion files while informers, listers and clients come from the positional packages alone)")
	pf.BoolVar(&f.opts.WithDefaulter, "with-defaulter", false, "also generate defaulter-gen's defaulters and RegisterDefaults into --defaulter-output-file in each input package tagged +k8s:defaulter-gen")
	pf.BoolVar(&f.opts.DefaulterOnly, "defaulter-only", false, "generate only defaulter-gen's defaulters (no informers, listers or clients; --output-dir and --output-pkg are not used); --output-file then names the defaults file")
	pf.StringVar(&f.opts.DefaulterOutputFile, "defaulter-output-file", "", "with --with-defaulter or --defaulter-only: defaulter-gen's --output-file, the generated file's name in each package (default \"zz_generated.defaults.go\")")
	pf.StringSliceVar(&f.opts.DefaulterExtraPeerPackages, "defaulter-extra-peer-dirs", nil, "with --with-defaulter or --defaulter-only: defaulter-gen's --extra-peer-dirs, comma-separated import paths of packages whose SetDefaults_ functions the defaulters call too")
	pf.BoolVar(&f.opts.WithConversion, "with-conversion", false, "also generate conversion-gen's Convert functions and RegisterConversions into --conversion-output-file in each input package tagged +k8s:conversion-gen")
	pf.BoolVar(&f.opts.ConversionOnly, "conversion-only", false, "generate only conversion-gen's functions (and deepcopy-gen's with --with-deepcopy): no informers, listers or clients; --output-dir and --output-pkg are not used")
	pf.StringVar(&f.opts.ConversionOutputFile, "conversion-output-file", "", "with --with-conversion or --conversion-only: conversion-gen's --output-file, the generated file's name in each package (default \"zz_generated.conversion.go\")")
	pf.StringSliceVar(&f.opts.ExtraPeerDirs, "extra-peer-dirs", nil, "with --with-conversion: conversion-gen's comma-separated import paths searched, after the tagged peers and --base-peer-dirs, for peer types and hand-written conversion functions")
	pf.StringSliceVar(&f.opts.BasePeerDirs, "base-peer-dirs", nil, "with --with-conversion: conversion-gen's --base-peer-dirs (default apimachinery's pkg/apis/meta/v1, pkg/conversion and pkg/runtime)")
	pf.BoolVar(&f.opts.SkipUnsafe, "skip-unsafe", false, "with --with-conversion: conversion-gen's --skip-unsafe: convert member by member where memory layouts are equal, without unsafe pointer casts")
	pf.StringVar(&f.opts.DeepCopyOutputFile, "output-file", "", "with --with-deepcopy or --deepcopy-only: deepcopy-gen's --output-file, the generated file's name in each package (default \"zz_generated.deepcopy.go\"); with --register-only, --defaulter-only or --conversion-only alone: that tool's")
	pf.StringVar(&f.opts.ApplyConfigName, "applyconfig-name", "", "with --with-applyconfig: the apply configurations' directory under --output-dir, as kube_codegen.sh's --applyconfig-name (default \""+generators.DefaultApplyConfigName+"\")")
	pf.StringVar(&f.opts.ApplyConfigurationDir, "applyconfig-output-dir", "", "with --with-applyconfig: directory of --apply-configuration-package, applyconfiguration-gen's --output-dir (default: found from --apply-configuration-package beside --output-pkg, else in the module holding --output-dir)")
	pf.StringSliceVar(&f.opts.ExternalApplyConfigurations, "external-applyconfigurations", nil, "with --with-applyconfig: comma-separated <type package>.<Type>:<apply configuration package> entries for referenced types whose apply configurations live elsewhere, as applyconfiguration-gen takes them (client-go's meta/v1 ones are always known)")
	pf.StringVar(&f.opts.OpenAPISchema, "openapi-schema", "", "with --with-applyconfig: OpenAPI v2 document of the API types, as applyconfiguration-gen's --openapi-schema: the internal package embeds the applied types' schema and the +genclient types get Extract functions")
	pf.StringVar(&f.opts.InputBase, "input-base", "", "client-gen's base of --input: an import path or a directory (default \""+generators.DefaultInputBase+"\")")
	pf.StringSliceVar(&f.opts.Inputs, "input", nil, "client-gen's comma-separated group/version packages under --input-base, added to PATTERNS")
	pf.StringVar(&f.clientsetAPIPath, "clientset-api-path", "/apis", "accepted for client-gen compatibility: only \"/apis\" (the default) is supported; the core group uses /api")
	pf.StringVar(&f.internalClientset, "internal-clientset-package", "", "accepted for upstream compatibility and ignored: typedinformer generates no informers for internal API versions")
	pf.StringSliceVar(&f.lintRules, "lint-rules", nil, "accepted for upstream compatibility and ignored: tags are always checked, and an unknown or misspelt tag is an error")
	addLogFlags(pf, f)

	root.AddCommand(
		&cobra.Command{
			Use:           "generate PATTERNS... [flags]",
			Short:         "Generate informers and listers (the default command)",
			Example:       example,
			Args:          cobra.ArbitraryArgs,
			SilenceUsage:  true,
			SilenceErrors: true,
			RunE: func(cmd *cobra.Command, args []string) error {
				return runGenerate(cmd.Context(), f, args, stderr)
			},
		},
		&cobra.Command{
			Use:   "verify PATTERNS... [flags]",
			Short: "Check that the generated code is current; writes nothing",
			Long: `verify renders everything generate would, compares it with the files on disk
and prints a unified diff on stdout for every file that would change, every
file that is missing, and every stale file (a file carrying the
"Code generated by informer-gen" marker that would no longer be produced),
and lists the temporary files (.informer-gen-tmp.*) a killed run left behind.
It exits 1 when there is any difference and 0 when the tree is current.`,
			Example:       example,
			Args:          cobra.ArbitraryArgs,
			SilenceUsage:  true,
			SilenceErrors: true,
			RunE: func(cmd *cobra.Command, args []string) error {
				return runVerify(cmd.Context(), f, args, stdout, stderr)
			},
		},
		&cobra.Command{
			Use:   "version",
			Short: "Print the version of informer-gen",
			Args:  cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				_, err := fmt.Fprintln(stdout, "informer-gen", version())
				return err
			},
		},
	)
	return root
}

// setup fills in the options common to generate and verify and returns a
// context carrying the logger.
func setup(ctx context.Context, f *flags, args []string, stderr io.Writer) (context.Context, generators.Options, error) {
	opts := f.opts
	opts.Patterns = args
	now, err := clock()
	if err != nil {
		return ctx, opts, err
	}
	opts.Now = now
	opts.NoFakeClientset = !f.fakeClientset
	if f.clientsetAPIPath != "/apis" {
		return ctx, opts, usageError{fmt.Errorf("--clientset-api-path %q: only /apis is supported", f.clientsetAPIPath)}
	}
	// As upstream informer-gen does, a --listers-package makes --output-dir
	// the informers directory; upstream refuses a command line without it.
	opts.OutputDirIsInformers = opts.ListersPackage != ""
	// Without a clientset there are no informers to write: the command line
	// is upstream lister-gen's, whose --output-dir is the listers directory.
	opts.ListersOnly = opts.VersionedClientsetPackage == "" && opts.ListersPackage == "" &&
		opts.ListersDir == "" && !opts.SingleDirectory && !opts.WithClientset
	cfg := textlogger.NewConfig(textlogger.Verbosity(f.verbosity), textlogger.Output(stderr))
	if err := cfg.VModule().Set(f.vmodule); err != nil {
		return ctx, opts, usageError{fmt.Errorf("--vmodule %q: %w", f.vmodule, err)}
	}
	return klog.NewContext(ctx, textlogger.NewLogger(cfg)), opts, nil
}

// clock honours SOURCE_DATE_EPOCH (reproducible builds) for the year of new files.
func clock() (func() time.Time, error) {
	v := strings.TrimSpace(os.Getenv("SOURCE_DATE_EPOCH"))
	if v == "" {
		return time.Now, nil
	}
	secs, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return nil, usageError{fmt.Errorf("SOURCE_DATE_EPOCH=%q is not a number of seconds", v)}
	}
	t := time.Unix(secs, 0).UTC()
	return func() time.Time { return t }, nil
}

func runGenerate(ctx context.Context, f *flags, args []string, stderr io.Writer) error {
	ctx, opts, err := setup(ctx, f, args, stderr)
	if err != nil {
		return err
	}
	res, err := generators.Build(ctx, opts)
	if err != nil {
		return err
	}
	warn(stderr, res)
	if err := res.Write(); err != nil {
		return err
	}
	klog.FromContext(ctx).V(1).Info("Done", "files", len(res.Files), "written", res.ChangedCount(), "removed", len(res.Stale))
	return nil
}

func runVerify(ctx context.Context, f *flags, args []string, stdout, stderr io.Writer) error {
	ctx, opts, err := setup(ctx, f, args, stderr)
	if err != nil {
		return err
	}
	res, err := generators.Build(ctx, opts)
	if err != nil {
		return err
	}
	warn(stderr, res)
	if res.UpToDate() {
		klog.FromContext(ctx).V(1).Info("Up to date", "files", len(res.Files))
		return nil
	}
	if err := res.Diff(stdout); err != nil {
		return fmt.Errorf("writing diff: %w", err)
	}
	missing := 0
	for _, file := range res.Files {
		if file.Changed && !exists(file.Path) {
			missing++
		}
	}
	leftovers := ""
	if n := len(res.Leftovers); n > 0 {
		leftovers = fmt.Sprintf(", %d temporary files left by an interrupted run", n)
	}
	return fmt.Errorf("%w: %d changed, %d missing, %d stale%s; run informer-gen generate with the same arguments",
		errOutOfDate, res.ChangedCount()-missing, missing, len(res.Stale), leftovers)
}

// warn prints the run's warnings to stderr, one line each.
func warn(stderr io.Writer, res *generators.Result) {
	for _, w := range res.Warnings {
		fmt.Fprintf(stderr, "informer-gen: %s\n", w)
	}
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
