package generators

import (
	"bytes"
	"context"
	"fmt"
	"go/build"
	"io"
	"path/filepath"
	"strings"
	"time"

	"k8s.io/klog/v2"

	"github.com/typedinformer/typedinformer/generators/internal/inputerr"
	"github.com/typedinformer/typedinformer/generators/load"
	"github.com/typedinformer/typedinformer/generators/model"
	"github.com/typedinformer/typedinformer/generators/output"
	"github.com/typedinformer/typedinformer/generators/plan"
	"github.com/typedinformer/typedinformer/generators/targets/applyconfig"
)

// Result is a complete run held in memory: nothing is on disk until Write.
type Result struct {
	// Model is the API surface the files were generated from.
	Model *model.Model
	// Files are the generated files, sorted by path.
	Files []output.File
	// Stale are files under the output directories that carry the generated
	// marker but are no longer produced, sorted.
	Stale []string
	// Leftovers are temporary files an interrupted run left under the output
	// directories (see TempFilePrefix), sorted. Write removes them.
	Leftovers []string
	// Packages counts the packages the patterns matched; GenclientPackages
	// those of them that declare +genclient types.
	Packages, GenclientPackages int
	// Warnings are problems that do not stop the run: in an only-mode run
	// (DeepCopyOnly, RegisterOnly, DefaulterOnly, ConversionOnly), one for
	// each target asked for that found no package carrying its tag and so
	// writes nothing, as the upstream tool silently does. Each names the
	// patterns and the tag.
	Warnings []string

	tree    *output.Tree
	roots   []string
	workDir string
}

// Build resolves and parses the input packages, builds the model and renders
// every file in memory. It writes nothing. Problems with the input are
// reported as *InputError naming file:line where there is one.
func Build(ctx context.Context, opts Options) (*Result, error) {
	logger := klog.FromContext(ctx)
	start := time.Now()
	opts = opts.withDefaults()
	opts.Patterns = append(append([]string{}, opts.Patterns...), opts.inputPatterns()...)
	lay, err := opts.validate()
	if err != nil {
		return nil, err
	}
	n, err := model.NewNamers(pluralExceptions(opts.PluralExceptions))
	if err != nil {
		return nil, err
	}
	hdr, err := output.LoadHeader(opts.HeaderFile)
	if err != nil {
		return nil, err
	}
	workDir := opts.workDir()
	bctx := opts.buildContext()

	// The output tree is read while the inputs are resolved and parsed.
	type scanResult struct {
		tree *output.Tree
		err  error
	}
	scanned := make(chan scanResult, 1)
	var roots []string
	if !opts.ClientsetOnly && !opts.packagesOnly() {
		// Without informers and listers their directories are left alone.
		roots = append(roots, lay.ListersDir)
		if lay.InformersDir != "" {
			roots = append([]string{lay.InformersDir}, roots...)
		}
	}
	if lay.ClientsetDir != "" {
		roots = append(roots, lay.ClientsetDir)
	}
	if lay.ApplyDir != "" {
		roots = append(roots, lay.ApplyDir)
	}
	var schema *applyconfig.OpenAPIDoc
	if opts.OpenAPISchema != "" {
		file := opts.OpenAPISchema
		if !filepath.IsAbs(file) {
			file = filepath.Join(workDir, file)
		}
		if schema, err = applyconfig.ReadOpenAPI(file); err != nil {
			return nil, relativize(err, workDir)
		}
	}
	var applyFiles []plan.File
	helpers := opts.helperTargets()
	helperFiles := make([][]plan.File, len(helpers))
	helperPaths := make([][]string, len(helpers))
	go func() {
		t, err := output.Scan(bctx, roots...)
		scanned <- scanResult{t, err}
	}()
	result, err := func() (*Result, error) {
		pkgs, err := load.ResolvePatterns(ctx, bctx, workDir, opts.Patterns)
		if err != nil {
			return nil, err
		}
		logger.V(1).Info("Resolved packages", "count", len(pkgs), "elapsed", time.Since(start))
		parsed, declared, err := load.ReadInputs(ctx, pkgs, lay.ApplyDir != "")
		if err != nil {
			return nil, err
		}
		logger.V(1).Info("Parsed packages", "withGenclient", len(parsed), "elapsed", time.Since(start))
		loader := load.NewLoader(ctx, bctx, workDir, pkgs, declared)
		helperPkgs, err := withHelperPackages(ctx, bctx, workDir, pkgs, opts.HelperPatterns)
		if err != nil {
			return nil, err
		}
		for i, t := range helpers {
			if helperFiles[i], err = t.plan(loader, helperPkgs); err != nil {
				return nil, err
			}
			helperPaths[i] = t.paths(helperPkgs)
			logger.V(1).Info("Planned "+t.what, "files", len(helperFiles[i]), "elapsed", time.Since(start))
		}
		if opts.packagesOnly() {
			return &Result{Model: &model.Model{}, Packages: len(pkgs), roots: roots, workDir: workDir}, nil
		}
		load.FollowDefinitions(ctx, loader, parsed)
		m, err := model.Build(parsed, n, reservedGroupPackages(lay), opts.ListersOnly, opts.WithClientset, opts.ClientsetOnly)
		if err != nil {
			return nil, err
		}
		// Packages whose +genclient types all lack list/watch/get (noVerbs,
		// onlyVerbs=create) are valid input with nothing to generate, as
		// upstream has it: the run succeeds, and output from earlier runs
		// becomes stale.
		if len(m.Groups) == 0 && m.ClientPackages == 0 {
			return nil, inputerr.Errorf("", "no +genclient type with list and watch or list and get verbs in %s (%d packages)", strings.Join(opts.Patterns, " "), len(pkgs))
		}
		if lay.ApplyDir != "" {
			applyFiles, err = applyconfig.Plan(loader, declared, opts.ExternalApplyConfigurations, lay, schema)
			if err != nil {
				return nil, err
			}
			logger.V(1).Info("Planned apply configurations", "files", len(applyFiles), "elapsed", time.Since(start))
		}
		for _, g := range m.Groups {
			for _, v := range g.Versions {
				logger.V(2).Info("Group version", "group", g.DisplayName(), "version", v.Name, "package", v.APIPackage,
					"informers", len(v.InformerTypes()), "listers", len(v.ListerTypes()))
			}
		}
		return &Result{Model: m, Packages: len(pkgs), GenclientPackages: len(parsed), roots: roots, workDir: workDir}, nil
	}()
	scan := <-scanned
	if err != nil {
		return nil, relativize(err, workDir)
	}
	if scan.err != nil {
		return nil, scan.err
	}
	result.tree = scan.tree
	// The targets that write into the input packages: the tree reads their
	// files by path and adopts the upstream tool's own file at each planned
	// path.
	planned := append([]plan.File{}, applyFiles...)
	for i, t := range helpers {
		if err := result.tree.ReadFiles(helperPaths[i]); err != nil {
			return nil, err
		}
		for _, f := range helperFiles[i] {
			result.tree.AdoptFile(f.Path, t.marker)
		}
		planned = append(planned, helperFiles[i]...)
		if len(helperFiles[i]) == 0 && opts.packagesOnly() {
			result.Warnings = append(result.Warnings, opts.nothingToDo(t))
		}
	}
	planned, err = planFiles(result.Model, lay, &opts, result.tree, planned)
	if err != nil {
		return nil, relativize(err, workDir)
	}
	if opts.ReplaceClientGenOutput {
		result.tree.AdoptGenerated(lay.ClientsetDir, output.ClientGenMarker)
		result.tree.AdoptGenerated(lay.ApplyDir, output.ApplyConfigGenMarker)
	}
	if err := result.tree.CheckOwned(planned, workDir); err != nil {
		return nil, err
	}
	rendered, err := output.Render(ctx, planned, hdr, result.tree.Content, opts.Now().Year())
	if err != nil {
		return nil, err
	}
	keep := make(map[string]bool, len(planned))
	result.Files = make([]output.File, len(planned))
	for i, p := range planned {
		keep[p.Path] = true
		old := result.tree.Content(p.Path)
		result.Files[i] = output.File{Path: p.Path, Content: rendered[i], Changed: old == nil || !bytes.Equal(old, rendered[i])}
	}
	result.Stale = result.tree.Stale(keep)
	result.Leftovers = result.tree.Leftovers
	logger.V(1).Info("Rendered files", "files", len(result.Files), "changed", result.ChangedCount(), "stale", len(result.Stale), "elapsed", time.Since(start))
	return result, nil
}

// withHelperPackages returns pkgs and, after them, the packages patterns
// resolve to that pkgs does not hold: the inputs of the package-local
// targets.
func withHelperPackages(ctx context.Context, bctx *build.Context, workDir string, pkgs []load.InputPackage, patterns []string) ([]load.InputPackage, error) {
	if len(patterns) == 0 {
		return pkgs, nil
	}
	more, err := load.ResolvePatterns(ctx, bctx, workDir, patterns)
	if err != nil {
		return nil, err
	}
	seen := make(map[string]bool, len(pkgs))
	out := append([]load.InputPackage{}, pkgs...)
	for _, p := range pkgs {
		seen[p.ImportPath] = true
	}
	for _, p := range more {
		if !seen[p.ImportPath] {
			seen[p.ImportPath] = true
			out = append(out, p)
		}
	}
	return out, nil
}

// pluralExceptions puts the defaults before the caller's exceptions, which
// therefore win for the same type.
func pluralExceptions(given []string) []string {
	return append(append([]string{}, DefaultPluralExceptions...), given...)
}

// reservedGroupPackages are the directory names a group may not take in the
// informers root: the generator's own, and the listers directory when it
// lives there.
func reservedGroupPackages(l plan.Layout) []string {
	if l.InformersDir == "" {
		return nil
	}
	reserved := []string{"internalinterfaces"}
	if filepath.Dir(l.ListersDir) == l.InformersDir {
		reserved = append(reserved, filepath.Base(l.ListersDir))
	}
	return reserved
}

// ChangedCount counts the files that Write would create or overwrite.
func (r *Result) ChangedCount() int {
	n := 0
	for _, f := range r.Files {
		if f.Changed {
			n++
		}
	}
	return n
}

// UpToDate reports whether the tree already holds exactly the result.
func (r *Result) UpToDate() bool {
	return r.ChangedCount() == 0 && len(r.Stale) == 0 && len(r.Leftovers) == 0
}

// Write puts the result on disk: changed files are written atomically (all
// written to temporary files first, then renamed into place), unchanged
// files are left alone, and stale generated files are removed.
func (r *Result) Write() error {
	return output.Write(r.Files, r.Stale, r.Leftovers, r.roots)
}

// Diff writes a unified diff from the tree on disk to the result: changed
// and missing files, and stale files as deletions. Paths are relative to
// the working directory when they are inside it.
func (r *Result) Diff(w io.Writer) error {
	for _, f := range r.Files {
		if !f.Changed {
			continue
		}
		old := r.tree.Content(f.Path)
		a := "a/" + r.rel(f.Path)
		if old == nil {
			a = "/dev/null"
		}
		if err := output.UnifiedDiff(w, a, "b/"+r.rel(f.Path), old, f.Content); err != nil {
			return err
		}
	}
	for _, p := range r.Stale {
		if err := output.UnifiedDiff(w, "a/"+r.rel(p), "/dev/null", r.tree.Content(p), nil); err != nil {
			return err
		}
	}
	for _, p := range r.Leftovers {
		if _, err := fmt.Fprintf(w, "Only in %s: %s (temporary file left by an interrupted run; generate removes it)\n", filepath.ToSlash(filepath.Dir(r.rel(p))), filepath.Base(p)); err != nil {
			return err
		}
	}
	return nil
}

// rel makes an absolute path relative to the working directory if it is inside.
func (r *Result) rel(p string) string {
	if rel, err := filepath.Rel(r.workDir, p); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return filepath.ToSlash(p)
}

// Generate builds the result and writes it.
func Generate(ctx context.Context, opts Options) (*Result, error) {
	r, err := Build(ctx, opts)
	if err != nil {
		return nil, err
	}
	return r, r.Write()
}

// relativize rewrites the positions of an InputError relative to workDir.
func relativize(err error, workDir string) error {
	ie, ok := err.(*inputerr.InputError) //nolint:errorlint // only an unwrapped InputError is rewritten: rebuilding a wrapped one would drop its wrapper
	if !ok {
		return err
	}
	cp := *ie
	// Positions quoted in the message (the other party of a collision).
	cp.Msg = strings.ReplaceAll(cp.Msg, workDir+string(filepath.Separator), "")
	if cp.Pos != "" && filepath.IsAbs(cp.Pos) {
		if rel, rerr := filepath.Rel(workDir, cp.Pos); rerr == nil && !strings.HasPrefix(rel, "..") {
			cp.Pos = rel
		}
	}
	return &cp
}
