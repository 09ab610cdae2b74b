package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// genTools are the generator binaries under comparison.
type genTools struct {
	Ours             string // our informer-gen (informers and listers in one run)
	UpstreamInformer string // k8s.io/code-generator/cmd/informer-gen
	UpstreamLister   string // k8s.io/code-generator/cmd/lister-gen
	UpstreamClient   string // k8s.io/code-generator/cmd/client-gen
	UpstreamApply    string // k8s.io/code-generator/cmd/applyconfiguration-gen
	UpstreamDeepCopy string // k8s.io/code-generator/cmd/deepcopy-gen
	// Dir is the working directory of every run: a module that requires
	// k8s.io/api, so that both loaders resolve the same packages.
	Dir string
	// TmpDir holds every run's output and the module copies the runs write
	// into (empty: the system's temporary directory). Where it is decides
	// what creating the output's files costs both sides.
	TmpDir string
}

// genRun is one measured generator run. For upstream, Wall is the sum of
// informer-gen's and lister-gen's wall times and MaxRSS the larger of their
// two peaks (SumRSS is their sum, reported in the notes).
type genRun struct {
	Wall   time.Duration
	MaxRSS int64
	SumRSS int64
	Files  int
}

const genOutputPkg = "bench.example/generated"

// genClientPackages lists the import paths of the k8s.io/api packages (as
// resolved in dir) that carry a `// +genclient` tag, sorted.
func genClientPackages(ctx context.Context, dir string) ([]string, error) {
	cmd := exec.CommandContext(ctx, "go", "list", "-m", "-json", "k8s.io/api")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list -m k8s.io/api in %s: %w", dir, err)
	}
	var mod struct{ Path, Version, Dir string }
	if err := json.Unmarshal(out, &mod); err != nil || mod.Dir == "" {
		return nil, fmt.Errorf("go list -m k8s.io/api in %s: no module directory (run go mod download): %v", dir, err) //nolint:errorlint // err may be nil here
	}
	seen := map[string]bool{}
	err = filepath.WalkDir(mod.Dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		pkgDir := filepath.Dir(path)
		if seen[pkgDir] {
			return nil
		}
		tagged, err := hasGenClientTag(path)
		if err != nil {
			return err
		}
		if tagged {
			seen[pkgDir] = true
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("scan %s for +genclient: %w", mod.Dir, err)
	}
	pkgs := make([]string, 0, len(seen))
	for d := range seen {
		rel, err := filepath.Rel(mod.Dir, d)
		if err != nil {
			return nil, err
		}
		pkgs = append(pkgs, mod.Path+"/"+filepath.ToSlash(rel))
	}
	slices.Sort(pkgs)
	return pkgs, nil
}

func hasGenClientTag(path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 1024*1024)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "// +genclient" {
			return true, nil
		}
	}
	return false, sc.Err()
}

// runOursGen runs our informer-gen once over pkgs into a fresh directory.
func runOursGen(ctx context.Context, t genTools, header string, pkgs []string) (genRun, error) {
	out, err := os.MkdirTemp(t.TmpDir, "bench-gen-ours-")
	if err != nil {
		return genRun{}, err
	}
	defer os.RemoveAll(out)
	args := append([]string{
		"--output-dir", out,
		"--output-pkg", genOutputPkg,
		"--versioned-clientset-package", "k8s.io/client-go/kubernetes",
		"--go-header-file", header,
	}, pkgs...)
	p, err := runProc(ctx, t.Dir, 10*time.Minute, t.Ours, args...)
	if err != nil {
		return genRun{}, fmt.Errorf("our informer-gen: %w", err)
	}
	return genRun{Wall: p.Wall, MaxRSS: p.MaxRSS, SumRSS: p.MaxRSS, Files: countGoFiles(out)}, nil
}

// runUpstreamGen runs upstream informer-gen and then lister-gen over pkgs,
// each in its own process, into a fresh directory.
func runUpstreamGen(ctx context.Context, t genTools, header string, pkgs []string) (genRun, error) {
	out, err := os.MkdirTemp(t.TmpDir, "bench-gen-upstream-")
	if err != nil {
		return genRun{}, err
	}
	defer os.RemoveAll(out)
	common := []string{"--go-header-file", header, "--plural-exceptions", "Endpoints:Endpoints"}
	inf, err := runProc(ctx, t.Dir, 10*time.Minute, t.UpstreamInformer, append(append([]string{
		"--output-dir", filepath.Join(out, "informers"),
		"--output-pkg", genOutputPkg + "/informers",
		"--versioned-clientset-package", "k8s.io/client-go/kubernetes",
		"--listers-package", genOutputPkg + "/listers",
	}, common...), pkgs...)...)
	if err != nil {
		return genRun{}, fmt.Errorf("upstream informer-gen: %w", err)
	}
	lis, err := runProc(ctx, t.Dir, 10*time.Minute, t.UpstreamLister, append(append([]string{
		"--output-dir", filepath.Join(out, "listers"),
		"--output-pkg", genOutputPkg + "/listers",
	}, common...), pkgs...)...)
	if err != nil {
		return genRun{}, fmt.Errorf("upstream lister-gen: %w", err)
	}
	return genRun{
		Wall:   inf.Wall + lis.Wall,
		MaxRSS: max(inf.MaxRSS, lis.MaxRSS),
		SumRSS: inf.MaxRSS + lis.MaxRSS,
		Files:  countGoFiles(out),
	}, nil
}

func countGoFiles(dir string) int {
	n := 0
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".go") {
			n++
		}
		return nil
	})
	return n
}

// genSides are the two sides of a generator row: each function makes one
// measured run into a fresh directory of its own.
type genSides struct {
	Ours, Upstream func(context.Context) (genRun, error)
}

// genMeasured are a generator row's measurements per side ("ours",
// "upstream"): wall seconds, peak RSS bytes, upstream's summed RSS and the
// files each side wrote in its last run.
type genMeasured struct {
	Wall, RSS map[string]*series
	SumRSS    series
	Files     map[string]int
}

// measureGen runs both sides s.cfg.GenRuns times, alternating which goes
// first, after warmup unmeasured runs of each (which build or install what
// the sides' scripts build on first use). A failed run is reported and left
// out; label names the row in the log.
func (s *suite) measureGen(ctx context.Context, label string, warmup int, sides genSides) genMeasured {
	m := genMeasured{
		Wall:  map[string]*series{"ours": {}, "upstream": {}},
		RSS:   map[string]*series{"ours": {}, "upstream": {}},
		Files: map[string]int{},
	}
	run := map[string]func(context.Context) (genRun, error){"ours": sides.Ours, "upstream": sides.Upstream}
	for i := 0; i < warmup; i++ {
		for _, who := range []string{"ours", "upstream"} {
			if _, err := run[who](ctx); err != nil {
				s.fail(fmt.Errorf("%s %s warm-up: %w", label, who, err))
				return m
			}
		}
	}
	for i := 0; i < s.cfg.GenRuns; i++ {
		order := []string{"ours", "upstream"}
		if i%2 == 1 {
			order = []string{"upstream", "ours"}
		}
		for _, who := range order {
			g, err := run[who](ctx)
			if err != nil {
				s.fail(err)
				continue
			}
			m.Wall[who].add(g.Wall.Seconds())
			m.RSS[who].add(float64(g.MaxRSS))
			if who == "upstream" {
				m.SumRSS.add(float64(g.SumRSS))
			}
			m.Files[who] = g.Files
			s.logf("%s %-8s run %d/%d: %.2fs, peak rss %.0f MB, %d files", label, who, i+1, s.cfg.GenRuns, g.Wall.Seconds(), float64(g.MaxRSS)/1e6, g.Files)
		}
	}
	return m
}

// benchHeader creates an empty boilerplate file for the generators' header;
// the caller removes it.
func benchHeader() (string, error) {
	header, err := os.CreateTemp("", "bench-boilerplate-*.txt")
	if err != nil {
		return "", err
	}
	return header.Name(), header.Close()
}

// kubeGenRow describes a row pair over the k8s.io/api +genclient packages.
type kubeGenRow struct {
	Num   string
	Label string // names the row in the log
	Bench string // with one %d: the number of group-versions
	// WallMetric and RSSMetric name the rows; their targets are upper bounds
	// of ours/upstream.
	WallMetric, RSSMetric string
	WallTarget, RSSTarget float64
	// Anchors are the upstream binaries the row runs.
	Anchors []string
	// Note is printed with upstream's processes' peak RSS summed, then the
	// files ours and upstream wrote.
	Note string
	// Sides makes the two sides' runs over pkgs with the header file.
	Sides func(ctx context.Context, pkgs []string, header string) (genSides, error)
}

// runKubeGenRow measures r: our informer-gen against upstream's generators
// over the +genclient packages of k8s.io/api (the first s.cfg.GenPackages).
func (s *suite) runKubeGenRow(ctx context.Context, r kubeGenRow) {
	pkgs, err := genClientPackages(ctx, s.tools.Dir)
	if err != nil {
		s.fail(err)
		return
	}
	if s.cfg.GenPackages > 0 && len(pkgs) > s.cfg.GenPackages {
		pkgs = pkgs[:s.cfg.GenPackages]
	}
	bench := fmt.Sprintf(r.Bench, len(pkgs))
	missing := func(why string) {
		s.rows = append(s.rows,
			row{Num: r.Num, Bench: bench, Metric: "wall time", Ours: why, Anchor: "not run", Ratio: "—", Target: atMost(r.WallTarget).String(), Result: "not measured"},
			row{Num: r.Num, Bench: bench, Metric: "peak RSS", Ours: why, Anchor: "not run", Ratio: "—", Target: atMost(r.RSSTarget).String(), Result: "not measured"})
	}
	if s.tools.Ours == "" {
		missing("not built")
		s.notes = append(s.notes, fmt.Sprintf("Row %s is missing: cmd/informer-gen did not build, so there was nothing to compare.", r.Num))
		return
	}
	if slices.Contains(r.Anchors, "") {
		missing("anchor not built")
		return
	}
	header, err := benchHeader()
	if err != nil {
		s.fail(err)
		return
	}
	defer os.Remove(header)
	sides, err := r.Sides(ctx, pkgs, header)
	if err != nil {
		s.fail(err)
		return
	}
	m := s.measureGen(ctx, r.Label, 0, sides)
	s.rows = append(s.rows,
		compareRow(r.Num, bench, r.WallMetric, *m.Wall["ours"], *m.Wall["upstream"], fmtSecs, atMost(r.WallTarget)),
		compareRow(r.Num, bench, r.RSSMetric, *m.RSS["ours"], *m.RSS["upstream"], fmtMB, atMost(r.RSSTarget)),
	)
	if m.SumRSS.ok() {
		s.notes = append(s.notes, fmt.Sprintf(r.Note, fmtMB(m.SumRSS.median()), m.Files["ours"], m.Files["upstream"]))
	}
}

// runGenerator adds rows 5: informers and listers, our one informer-gen run
// against upstream's informer-gen and lister-gen.
func (s *suite) runGenerator(ctx context.Context) {
	s.runKubeGenRow(ctx, kubeGenRow{
		Num: "5", Label: "generator", Bench: "generator, %d k8s.io/api group-versions",
		WallMetric: "wall time (upstream: informer-gen + lister-gen, summed)", WallTarget: 0.10,
		RSSMetric: "peak RSS (upstream: the larger of its two processes)", RSSTarget: 0.15,
		Anchors: []string{s.tools.UpstreamInformer, s.tools.UpstreamLister},
		Note:    "Generator: upstream's two processes' peak RSS summed is %s (the table uses the larger one); files written: ours %d, upstream %d.",
		Sides: func(_ context.Context, pkgs []string, header string) (genSides, error) {
			return genSides{
				Ours:     func(ctx context.Context) (genRun, error) { return runOursGen(ctx, s.tools, header, pkgs) },
				Upstream: func(ctx context.Context) (genRun, error) { return runUpstreamGen(ctx, s.tools, header, pkgs) },
			}, nil
		},
	})
}
