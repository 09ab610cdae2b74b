package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// This file measures a CRD repository's whole code generation: examples/crd's
// hack/update-codegen.sh (every generated file, written by informer-gen)
// against the same script on upstream's generators,
// hack/update-codegen-upstream.sh (code-generator's kube_codegen.sh:
// gen_helpers, then gen_client with the same arguments), as a CRD repository
// runs them: through `go tool` and kube_codegen.sh's `go install`, each run in
// a fresh copy of examples/crd (hack/scratch-copy.sh) over the same API
// packages. The gen_client step alone is measured too.

// crdCodegenScripts are the commands of one side, run from the copy's root:
// the whole script and its gen_client step alone.
type crdCodegenScripts struct {
	Whole, Client []string
}

var (
	oursCRDCodegen = crdCodegenScripts{
		Whole:  []string{"hack/update-codegen.sh"},
		Client: []string{"bash", "-c", "set -euo pipefail; source hack/codegen-lib.sh; codegen::client generate"},
	}
	upstreamCRDCodegen = crdCodegenScripts{
		Whole:  []string{"hack/update-codegen-upstream.sh"},
		Client: []string{"hack/update-codegen-upstream.sh", "client"},
	}
)

// runCRDScript copies example into a fresh directory and runs command there
// with GOBIN set to gobin (where kube_codegen.sh installs the generators).
// Wall and MaxRSS are the command's (its largest process, the go commands
// included); Files counts the .go files under pkg/generated afterwards.
func runCRDScript(ctx context.Context, tmpDir, example, gobin string, command []string) (genRun, error) {
	scratch, err := os.MkdirTemp(tmpDir, "bench-crd-codegen-")
	if err != nil {
		return genRun{}, err
	}
	defer os.RemoveAll(scratch)
	if _, err := runProc(ctx, "", 2*time.Minute, filepath.Join(example, "hack", "scratch-copy.sh"), scratch); err != nil {
		return genRun{}, fmt.Errorf("copying %s: %w", example, err)
	}
	p, err := runProc(ctx, scratch, 10*time.Minute, "env", append([]string{"GOBIN=" + gobin}, command...)...)
	if err != nil {
		return genRun{}, fmt.Errorf("examples/crd %v: %w", command, err)
	}
	return genRun{Wall: p.Wall, MaxRSS: p.MaxRSS, SumRSS: p.MaxRSS, Files: countGoFiles(filepath.Join(scratch, "pkg", "generated"))}, nil
}

// runCRDCodegen adds rows 5c: examples/crd's update-codegen.sh, whole and its
// gen_client step, ours against upstream's generators.
func (s *suite) runCRDCodegen(ctx context.Context) {
	example := filepath.Join(s.tools.Dir, "..", "examples", "crd")
	const bench = "examples/crd's hack/update-codegen.sh (deepcopy + gen_client: clientset, fake, apply configurations, listers, informers)"
	if _, err := os.Stat(filepath.Join(example, "hack", "update-codegen-upstream.sh")); err != nil {
		for _, metric := range []string{"wall time", "peak RSS"} {
			s.rows = append(s.rows, row{Num: "5c", Bench: bench, Metric: metric, Ours: "not run", Anchor: "not run", Ratio: "—", Target: atMost(0.05).String(), Result: "not measured"})
		}
		s.notes = append(s.notes, fmt.Sprintf("Rows 5c are missing: no examples/crd beside the bench module (%v).", err))
		return
	}
	gobin, err := os.MkdirTemp("", "bench-kube-codegen-bin-")
	if err != nil {
		s.fail(err)
		return
	}
	defer os.RemoveAll(gobin)
	// One unmeasured run of each side first: go tool and kube_codegen.sh's
	// go install build the generators on first use, which a repository's
	// developer pays once, not per run.
	warmup := 1
	if s.cfg.Name == "smoke" {
		warmup = 0
	}
	type crdPart struct {
		label, metric string
		ours, up      []string
		wall, rss     *target
	}
	parts := []crdPart{
		{"update-codegen", "whole script", oursCRDCodegen.Whole, upstreamCRDCodegen.Whole, atMost(0.05), atMost(0.15)},
		{"update-codegen client", "gen_client step only", oursCRDCodegen.Client, upstreamCRDCodegen.Client, atMost(0.05), atMost(0.05)},
	}
	if s.cfg.Name == "smoke" {
		// The smoke run proves the row works; the corpus target already runs
		// upstream's gen_client on examples/crd, so one step is enough here.
		parts = parts[1:]
	}
	for _, part := range parts {
		m := s.measureGen(ctx, part.label, warmup, genSides{
			Ours: func(ctx context.Context) (genRun, error) {
				return runCRDScript(ctx, s.tools.TmpDir, example, gobin, part.ours)
			},
			Upstream: func(ctx context.Context) (genRun, error) {
				return runCRDScript(ctx, s.tools.TmpDir, example, gobin, part.up)
			},
		})
		s.rows = append(s.rows,
			compareRow("5c", bench, "wall time, "+part.metric, *m.Wall["ours"], *m.Wall["upstream"], fmtSecs, part.wall),
			compareRow("5c", bench, "peak RSS (largest process), "+part.metric, *m.RSS["ours"], *m.RSS["upstream"], fmtMB, part.rss),
		)
		if part.label == "update-codegen" && len(m.Files) == 2 {
			s.notes = append(s.notes, fmt.Sprintf("examples/crd's update-codegen.sh: ours runs informer-gen alone (through go tool), upstream kube_codegen.sh v0.37.2's gen_helpers (deepcopy-gen) and gen_client (its four generators, installed by its go install); files under pkg/generated after a run: ours %d, upstream %d.",
				m.Files["ours"], m.Files["upstream"]))
		}
	}
}
