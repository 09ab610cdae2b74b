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
    --go-header-file ./hack/boilerplate.go.txt`

// flags are the options shared by generate and verify.
type flags struct {
	opts      generators.Options
	verbosity int
}

// run executes the command line and returns the process exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cmd := newRootCommand(stdout, stderr)
	cmd.SetArgs(args)
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
them: ./apis/..., example.com/repo/apis/foo/v1) and writes, in one run:

  <output-dir>/informers/externalversions/   factory.go, generic.go (ForResource),
                                             internalinterfaces/, <group>/<version>/
  <output-dir>/listers/<group>/<version>/    one lister per type, expansion_generated.go

Types are selected with client-gen's tags: +genclient, +genclient:nonNamespaced,
:noVerbs, :onlyVerbs=, :skipVerbs=, :readonly; a type gets an informer when it
has the list and watch verbs and a lister when it has list and get (an
informer without a lister has no Lister method).
+k8s:informer-gen=false and +k8s:lister-gen=false (in doc.go or on a type) opt
out; +resourceName= overrides the REST resource. The group comes from
+groupName= in doc.go (or the package's GroupName constant), its Go name from
+groupGoName= or the group's first DNS label, as client-gen names it.

Only the syntax and comments of the API packages are read; nothing is
type-checked. Files are rendered and gofmt'ed in memory and written only when
all of them are ready, through temporary files renamed into place; unchanged
files are not touched and generated files that are no longer produced are
removed. The header's YEAR is kept from the existing file, so regenerating
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
	pf.StringVar(&f.opts.OutputDir, "output-dir", "", "directory that receives informers/externalversions/ and listers/ (required)")
	pf.StringVar(&f.opts.OutputPkg, "output-pkg", "", "Go import path of --output-dir (required)")
	pf.StringVar(&f.opts.VersionedClientsetPackage, "versioned-clientset-package", "", "Go import path of the client-gen clientset the informers list and watch through (required)")
	pf.StringVar(&f.opts.ListersPackage, "listers-package", "", "Go import path to generate the listers into (default <output-pkg>/listers)")
	pf.StringVar(&f.opts.HeaderFile, "go-header-file", "", "file whose text heads every generated file; \"YEAR\" in it becomes the year of the existing file, else the current year")
	pf.StringSliceVar(&f.opts.PluralExceptions, "plural-exceptions", generators.DefaultPluralExceptions, "comma-separated Type:PluralType entries for plurals client-gen was told about; Endpoints:Endpoints always applies unless an entry for Endpoints replaces it")
	pf.BoolVar(&f.opts.SingleDirectory, "single-directory", false, "put the informers directly into --output-dir, without informers/externalversions/")
	pf.StringSliceVar(&f.opts.BuildTags, "build-tags", nil, "comma-separated build tags, as go build -tags takes them, for choosing which files of the API packages and of the output directories count (GOOS and GOARCH come from the environment, as for go list)")
	pf.IntVarP(&f.verbosity, "verbose", "v", 0, "log progress on stderr: -v for steps, -v=2 for every group-version")
	pf.Lookup("verbose").NoOptDefVal = "1"

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
"Code generated by informer-gen" marker that would no longer be produced).
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
	cfg := textlogger.NewConfig(textlogger.Verbosity(f.verbosity), textlogger.Output(stderr))
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
	return fmt.Errorf("%w: %d changed, %d missing, %d stale; run informer-gen generate with the same arguments",
		errOutOfDate, res.ChangedCount()-missing, missing, len(res.Stale))
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
