package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
)

// This file measures the helper generators beside gen_client:
//
//   - deepcopy and gen_client over k8s.io/api: ours is one informer-gen run
//     (--with-deepcopy with gen_client's arguments); upstream is deepcopy-gen
//     with the arguments kube_codegen.sh's gen_helpers gives it, then
//     gen_client's four generators, each its own process;
//   - k8s.io/sample-apiserver's gen_helpers (deepcopy, defaults and
//     conversions of pkg/apis): the shell library's
//     typedinformer::codegen::gen_helpers against kube_codegen.sh's
//     kube::codegen::gen_helpers, each in a copy of the module.
//
// The deepcopy, defaults and conversion files are written into the API
// packages themselves, so every side runs in a writable copy of the module
// of its own, which it regenerates in place run after run.

// deepCopyTag is the line kube_codegen.sh's gen_helpers looks for to pick
// deepcopy-gen's input packages.
var deepCopyTag = regexp.MustCompile(`^\s*//\s*\+k8s:deepcopy-gen=`)

// taggedPackages lists the import paths of the packages under the module
// at modDir (module path modPath) with a .go file holding a line tagged
// matches, sorted.
func taggedPackages(modDir, modPath string, matches func(line string) bool) ([]string, error) {
	seen := map[string]bool{}
	err := filepath.WalkDir(modDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || seen[filepath.Dir(path)] {
			return nil
		}
		tagged, err := fileHasLine(path, matches)
		if err != nil {
			return err
		}
		if tagged {
			seen[filepath.Dir(path)] = true
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("scan %s for tagged packages: %w", modDir, err)
	}
	pkgs := make([]string, 0, len(seen))
	for d := range seen {
		rel, err := filepath.Rel(modDir, d)
		if err != nil {
			return nil, err
		}
		pkgs = append(pkgs, strings.TrimSuffix(modPath+"/"+filepath.ToSlash(rel), "/."))
	}
	slices.Sort(pkgs)
	return pkgs, nil
}

func fileHasLine(path string, matches func(string) bool) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 1024*1024)
	for sc.Scan() {
		if matches(sc.Text()) {
			return true, nil
		}
	}
	return false, sc.Err()
}

// copyTree copies the regular files under src into dst (created), writable
// by the owner whatever their mode in src (the module cache is read-only).
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		in, err := os.Open(path)
		if err != nil {
			return err
		}
		defer in.Close()
		out, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
		if err != nil {
			return err
		}
		if _, err := io.Copy(out, in); err != nil {
			out.Close()
			return fmt.Errorf("copy %s: %w", path, err)
		}
		return out.Close()
	})
}

// moduleDir downloads module@version (a no-op when cached) and returns its
// directory in the module cache.
func moduleDir(ctx context.Context, dir, module string) (string, error) {
	cmd := exec.CommandContext(ctx, "go", "mod", "download", "-json", module)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go mod download %s: %w", module, err)
	}
	var mod struct{ Dir, Error string }
	if err := json.Unmarshal(out, &mod); err != nil || mod.Dir == "" {
		return "", fmt.Errorf("go mod download %s: no module directory: %v %s", module, err, mod.Error) //nolint:errorlint // err may be nil here
	}
	return mod.Dir, nil
}

// removeGenerated deletes every file named name under dir, as gen_helpers
// does before it runs the generator of that file.
func removeGenerated(dir, name string) error {
	return filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && d.Name() == name {
			return os.Remove(path)
		}
		return nil
	})
}

// runUpstreamDeepCopyClient runs deepcopy-gen over dcPkgs in apiCopy (after
// deleting the deepcopy files there, as gen_helpers does), then gen_client's
// four generators over clientPkgs.
func runUpstreamDeepCopyClient(ctx context.Context, t genTools, apiCopy, header string, dcPkgs, clientPkgs []string) (genRun, error) {
	if err := removeGenerated(apiCopy, "zz_generated.deepcopy.go"); err != nil {
		return genRun{}, err
	}
	dc, err := runProc(ctx, apiCopy, 10*time.Minute, t.UpstreamDeepCopy, append([]string{
		"-v", "0", "--output-file", "zz_generated.deepcopy.go", "--go-header-file", header,
	}, dcPkgs...)...)
	if err != nil {
		return genRun{}, fmt.Errorf("upstream deepcopy-gen: %w", err)
	}
	g, err := runUpstreamGenClient(ctx, genTools{
		UpstreamInformer: t.UpstreamInformer, UpstreamLister: t.UpstreamLister,
		UpstreamClient: t.UpstreamClient, UpstreamApply: t.UpstreamApply, Dir: apiCopy, TmpDir: t.TmpDir,
	}, header, apiCopy, clientPkgs)
	if err != nil {
		return genRun{}, err
	}
	g.Wall += dc.Wall
	g.MaxRSS = max(g.MaxRSS, dc.MaxRSS)
	g.SumRSS += dc.MaxRSS
	return g, nil
}

// runDeepCopyClient adds the rows of deepcopy and gen_client over k8s.io/api.
func (s *suite) runDeepCopyClient(ctx context.Context) {
	const num = "5d"
	bench := "deepcopy + gen_client over k8s.io/api v0.37.2: %d deepcopy packages, %d +genclient group-versions"
	missing := func(why string) {
		s.rows = append(s.rows,
			row{Num: num, Bench: "deepcopy + gen_client over k8s.io/api", Metric: "wall time", Ours: why, Anchor: "not run", Ratio: "—", Target: atMost(0.05).String(), Result: "not measured"},
			row{Num: num, Bench: "deepcopy + gen_client over k8s.io/api", Metric: "peak RSS", Ours: why, Anchor: "not run", Ratio: "—", Target: atMost(0.15).String(), Result: "not measured"})
	}
	if s.tools.Ours == "" {
		missing("not built")
		return
	}
	if slices.Contains([]string{s.tools.UpstreamDeepCopy, s.tools.UpstreamClient, s.tools.UpstreamApply, s.tools.UpstreamLister, s.tools.UpstreamInformer}, "") {
		missing("anchor not built")
		return
	}
	apiDir, err := apiModuleDir(ctx, s.tools.Dir)
	if err != nil {
		s.fail(err)
		return
	}
	dcPkgs, err := taggedPackages(apiDir, "k8s.io/api", deepCopyTag.MatchString)
	if err != nil {
		s.fail(err)
		return
	}
	clientPkgs, err := genClientPackages(ctx, s.tools.Dir)
	if err != nil {
		s.fail(err)
		return
	}
	if n := s.cfg.GenPackages; n > 0 {
		// The smallest run: the first group-versions that have both.
		clientPkgs = clientPkgs[:min(n, len(clientPkgs))]
		dcPkgs = slices.Clone(clientPkgs)
	}
	header, err := benchHeader()
	if err != nil {
		s.fail(err)
		return
	}
	defer os.Remove(header)
	copies := map[string]string{}
	for _, who := range []string{"ours", "upstream"} {
		dir, err := os.MkdirTemp(s.tools.TmpDir, "bench-k8s-api-"+who+"-")
		if err != nil {
			s.fail(err)
			return
		}
		defer os.RemoveAll(dir)
		if err := copyTree(apiDir, dir); err != nil {
			s.fail(fmt.Errorf("copy k8s.io/api: %w", err))
			return
		}
		copies[who] = dir
	}
	// Ours gets every package once: the deepcopy ones and the +genclient
	// ones (the same group-versions in k8s.io/api).
	oursPkgs := slices.Compact(slices.Sorted(slices.Values(append(slices.Clone(dcPkgs), clientPkgs...))))
	m := s.measureGen(ctx, "deepcopy+gen_client", 0, genSides{
		Ours: func(ctx context.Context) (genRun, error) {
			return runOursGenClientWith(ctx, genTools{Ours: s.tools.Ours, Dir: copies["ours"], TmpDir: s.tools.TmpDir}, header, oursPkgs, "--with-deepcopy")
		},
		Upstream: func(ctx context.Context) (genRun, error) {
			return runUpstreamDeepCopyClient(ctx, s.tools, copies["upstream"], header, dcPkgs, clientPkgs)
		},
	})
	b := fmt.Sprintf(bench, len(dcPkgs), len(clientPkgs))
	s.rows = append(s.rows,
		compareRow(num, b, "wall time (upstream: deepcopy-gen and gen_client's four generators, summed)", *m.Wall["ours"], *m.Wall["upstream"], fmtSecs, atMost(0.05)),
		compareRow(num, b, "peak RSS (upstream: the largest of its five processes)", *m.RSS["ours"], *m.RSS["upstream"], fmtMB, atMost(0.15)),
	)
	if m.SumRSS.ok() {
		s.notes = append(s.notes, fmt.Sprintf("deepcopy + gen_client over k8s.io/api: ours is one informer-gen run (--with-deepcopy and gen_client's arguments), upstream deepcopy-gen with gen_helpers' arguments, then gen_client's four generators, each process started directly (no kube_codegen.sh, no go install); upstream's five processes' peak RSS summed is %s; files written outside the API packages: ours %d, upstream %d.",
			fmtMB(m.SumRSS.median()), m.Files["ours"], m.Files["upstream"]))
	}
}

// sampleAPIServer is the module whose gen_helpers call is measured.
const sampleAPIServer = "k8s.io/sample-apiserver@v0.37.2"

// runSampleAPIServerHelpers adds the rows of k8s.io/sample-apiserver's
// gen_helpers: the shell library's against kube_codegen.sh's.
func (s *suite) runSampleAPIServerHelpers(ctx context.Context) {
	const num = "5e"
	const bench = "k8s.io/sample-apiserver v0.37.2's gen_helpers over pkg/apis (deepcopy + defaults + conversion)"
	missing := func(why, note string) {
		s.rows = append(s.rows,
			row{Num: num, Bench: bench, Metric: "wall time", Ours: why, Anchor: "not run", Ratio: "—", Target: atMost(0.05).String(), Result: "not measured"},
			row{Num: num, Bench: bench, Metric: "peak RSS", Ours: why, Anchor: "not run", Ratio: "—", Target: "—", Result: "not measured"})
		s.notes = append(s.notes, note)
	}
	if s.cfg.Name == "smoke" {
		missing("skipped in smoke", "sample-apiserver's gen_helpers is not run in the smoke pass: it downloads the module's dependencies and lets kube_codegen.sh go install three generators, which takes minutes on a cold cache; the corpus tests compare the same helpers' output with upstream's.")
		return
	}
	if s.tools.Ours == "" {
		missing("not built", "sample-apiserver's gen_helpers: cmd/informer-gen did not build.")
		return
	}
	lib := filepath.Join(s.tools.Dir, "..", "examples", "crd", "hack", "typedinformer-codegen.sh")
	if _, err := os.Stat(lib); err != nil {
		missing("not run", fmt.Sprintf("sample-apiserver's gen_helpers: no shell library beside the bench module (%v).", err))
		return
	}
	src, err := moduleDir(ctx, s.tools.Dir, sampleAPIServer)
	if err != nil {
		s.fail(err)
		return
	}
	copies := map[string]string{}
	for _, who := range []string{"ours", "upstream"} {
		dir, err := os.MkdirTemp(s.tools.TmpDir, "bench-sample-apiserver-"+who+"-")
		if err != nil {
			s.fail(err)
			return
		}
		defer os.RemoveAll(dir)
		if err := copyTree(src, dir); err != nil {
			s.fail(fmt.Errorf("copy %s: %w", sampleAPIServer, err))
			return
		}
		if _, err := runProc(ctx, dir, 10*time.Minute, "go", "mod", "download"); err != nil {
			s.fail(fmt.Errorf("%s: go mod download: %w", sampleAPIServer, err))
			return
		}
		copies[who] = dir
	}
	gobin, err := os.MkdirTemp("", "bench-kube-codegen-bin-")
	if err != nil {
		s.fail(err)
		return
	}
	defer os.RemoveAll(gobin)
	const args = `--boilerplate hack/boilerplate.go.txt ./pkg/apis`
	script := func(who string) []string {
		if who == "ours" {
			return []string{"env", "TYPEDINFORMER_INFORMER_GEN=" + s.tools.Ours, "bash", "-c",
				`set -euo pipefail; source "$1"; typedinformer::codegen::gen_helpers ` + args, "bash", lib}
		}
		return []string{"env", "GOBIN=" + gobin, "bash", "-c",
			`set -euo pipefail; source "$(go list -m -f '{{.Dir}}' k8s.io/code-generator)/kube_codegen.sh"; kube::codegen::gen_helpers ` + args}
	}
	run := func(who string) func(context.Context) (genRun, error) {
		return func(ctx context.Context) (genRun, error) {
			cmd := script(who)
			p, err := runProc(ctx, copies[who], 10*time.Minute, cmd[0], cmd[1:]...)
			if err != nil {
				return genRun{}, fmt.Errorf("sample-apiserver gen_helpers (%s): %w", who, err)
			}
			return genRun{Wall: p.Wall, MaxRSS: p.MaxRSS, SumRSS: p.MaxRSS, Files: countGeneratedHelpers(filepath.Join(copies[who], "pkg", "apis"))}, nil
		}
	}
	// One unmeasured run of each side first: kube_codegen.sh's go install
	// builds the generators on first use.
	m := s.measureGen(ctx, "sample-apiserver helpers", 1, genSides{Ours: run("ours"), Upstream: run("upstream")})
	s.rows = append(s.rows,
		compareRow(num, bench, "wall time (upstream: kube::codegen::gen_helpers: deepcopy-gen, defaulter-gen, conversion-gen)", *m.Wall["ours"], *m.Wall["upstream"], fmtSecs, atMost(0.05)),
		compareRow(num, bench, "peak RSS (largest process)", *m.RSS["ours"], *m.RSS["upstream"], fmtMB, nil),
	)
	if len(m.Files) == 2 {
		s.notes = append(s.notes, fmt.Sprintf("sample-apiserver's gen_helpers: ours is the shell library's typedinformer::codegen::gen_helpers (one informer-gen run writing deepcopy, defaults and conversions; the binary given directly), upstream kube_codegen.sh v0.37.2's kube::codegen::gen_helpers (its go install of the generators, warm, then deepcopy-gen, defaulter-gen, conversion-gen); generated helper files under pkg/apis after a run: ours %d, upstream %d.",
			m.Files["ours"], m.Files["upstream"]))
	}
}

// countGeneratedHelpers counts the deepcopy, defaults and conversion files
// under dir.
func countGeneratedHelpers(dir string) int {
	n := 0
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil || d.IsDir():
		case d.Name() == "zz_generated.deepcopy.go", d.Name() == "zz_generated.defaults.go", d.Name() == "zz_generated.conversion.go":
			n++
		}
		return nil
	})
	return n
}

// runGenHelpers adds the rows of the helper generators: deepcopy with
// gen_client over k8s.io/api, and sample-apiserver's gen_helpers.
func (s *suite) runGenHelpers(ctx context.Context) {
	s.runDeepCopyClient(ctx)
	s.runSampleAPIServerHelpers(ctx)
}
