// Command benchtable runs the side-by-side bench suite and writes its
// results as one markdown table.
//
//	benchtable run [-smoke] [-only PARTS] [-max-runs N] [-out FILE] [-ours-gen BIN -upstream-informer-gen BIN -upstream-lister-gen BIN] [-gen-dir DIR]
//	benchtable child sync|events|index|queue -side ours|client-go [sizes]
//
// `run` starts one `child` process per measurement (so each side gets a
// fresh heap), alternating the sides, and reports medians. hack/bench.sh
// builds the tools and calls `run`.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: benchtable run [flags] | benchtable child <scenario> [flags]")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "child":
		err = runChild(os.Args[2:])
	case "run":
		err = runSuite(os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q (want run or child)", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchtable:", err)
		os.Exit(1)
	}
}

func runSuite(args []string) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	smoke := fs.Bool("smoke", false, "run every scenario once on tiny inputs (numbers are meaningless)")
	out := fs.String("out", "", "write the markdown report to this file (default: stdout only)")
	oursGen := fs.String("ours-gen", "", "our informer-gen binary (empty: row 5 is reported missing)")
	upInformer := fs.String("upstream-informer-gen", "", "k8s.io/code-generator informer-gen binary")
	upLister := fs.String("upstream-lister-gen", "", "k8s.io/code-generator lister-gen binary")
	upClient := fs.String("upstream-client-gen", "", "k8s.io/code-generator client-gen binary (gen_client row)")
	upApply := fs.String("upstream-applyconfiguration-gen", "", "k8s.io/code-generator applyconfiguration-gen binary (gen_client row)")
	upDeepCopy := fs.String("upstream-deepcopy-gen", "", "k8s.io/code-generator deepcopy-gen binary (deepcopy + gen_client row)")
	genDir := fs.String("gen-dir", ".", "working directory of the generator runs: a module requiring k8s.io/api")
	genTmp := fs.String("gen-tmpdir", "", "directory for the generator runs' output and module copies (empty: the system's temporary directory); on a file system where creating files is slow, both sides' wall times include it")
	commit := fs.String("commit", "", "the project commit measured, for the report header")
	only := fs.String("only", "", "comma-separated parts to run ("+strings.Join(partNames, ",")+"); empty: all. A partial report is for looking into rows, not for docs/benchmarks.md")
	maxRuns := fs.Int("max-runs", 0, "at most this many runs per side and cell (0: the suite's own counts); the same measurements, fewer repetitions, so wider noise")
	if err := fs.Parse(args); err != nil {
		return err
	}
	cfg := fullConfig()
	if *smoke {
		cfg = smokeConfig()
	}
	if *maxRuns < 0 {
		return fmt.Errorf("-max-runs: want 0 or more, got %d", *maxRuns)
	}
	cfg = cfg.capRuns(*maxRuns)
	parts, err := parseParts(*only)
	if err != nil {
		return err
	}
	var tools genTools
	for _, p := range []struct {
		dst *string
		src string
	}{{&tools.Ours, *oursGen}, {&tools.UpstreamInformer, *upInformer}, {&tools.UpstreamLister, *upLister}, {&tools.UpstreamClient, *upClient}, {&tools.UpstreamApply, *upApply}, {&tools.UpstreamDeepCopy, *upDeepCopy}, {&tools.Dir, *genDir}, {&tools.TmpDir, *genTmp}} {
		if *p.dst, err = absPath(p.src); err != nil {
			return fmt.Errorf("resolve %q: %w", p.src, err)
		}
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	start := time.Now()
	loadStart := loadAverage()
	s := &suite{cfg: cfg, tools: tools, log: os.Stderr, parts: parts}
	s.run(ctx)
	s.logf("suite %q done in %s", cfg.Name, time.Since(start).Round(time.Second))

	m := thisMachine(start)
	m.Commit = *commit
	m.LoadStart, m.LoadEnd = loadStart, loadAverage()
	if s.ranAny("generator", "genclient", "genhelpers") {
		m.GenTmp = fileSystemOf(tools.TmpDir)
	}
	var charts []chart
	if *out != "" {
		// The charts go beside the report, which links them by file name.
		var err error
		if charts, err = writeCharts(filepath.Dir(*out), s.chart); err != nil {
			s.fail(err)
		}
	}
	report := renderReport(m, cfg, s, charts)
	fmt.Print(report)
	if *out != "" {
		if err := writeFileAtomic(*out, []byte(report)); err != nil {
			return err
		}
	}
	if len(s.errs) > 0 {
		return fmt.Errorf("%d measurement(s) failed; see the errors above", len(s.errs))
	}
	return nil
}

// writeFileAtomic writes data to a temporary file beside path and renames it
// into place.
func writeFileAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".benchmarks-*.md")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
