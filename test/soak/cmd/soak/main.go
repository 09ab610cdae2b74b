// Command soak runs the soak (package soak) once and prints its report;
// it exits 1 when a check failed, 2 when the run could not be carried out.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/typedinformer/typedinformer/test/e2e/framework"
	"github.com/typedinformer/typedinformer/test/soak"
)

func main() {
	duration := flag.Duration("duration", time.Minute, "time under load and faults (quiescent points come on top)")
	seed := flag.Uint64("seed", 0, "seed of the fault schedule and the load; 0 picks one from the clock")
	controller := flag.String("controller", "", "the foo-controller binary (required)")
	workDir := flag.String("work-dir", "", "where logs, traces and the report go (default a new temp dir)")
	faults := flag.String("faults", "", "comma-separated fault kinds to inject instead of all of them (e.g. etcd-restart,slow-handler)")
	flag.Parse()
	var kinds []string
	if *faults != "" {
		kinds = strings.Split(*faults, ",")
	}
	passed, err := run(*duration, *seed, *controller, *workDir, kinds)
	if err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		os.Exit(2)
	}
	if !passed {
		os.Exit(1)
	}
}

// run soaks and reports whether every check held.
func run(duration time.Duration, seed uint64, controller, workDir string, faults []string) (bool, error) {
	if controller == "" {
		return false, fmt.Errorf("--controller is required")
	}
	if seed == 0 {
		seed = uint64(time.Now().UnixNano() % 1_000_000)
	}
	bins, err := framework.FindBinaries()
	if err != nil {
		return false, err
	}
	root, err := framework.RepoRoot()
	if err != nil {
		return false, err
	}
	if workDir == "" {
		if workDir, err = os.MkdirTemp("", "typedinformer-soak-"); err != nil {
			return false, err
		}
	}
	if workDir, err = filepath.Abs(workDir); err != nil {
		return false, err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	rep, err := soak.Run(ctx, soak.Config{
		Duration: duration, Seed: seed, Controller: controller, Bins: bins, RepoRoot: root,
		WorkDir: workDir, FaultKinds: faults, Log: os.Stderr,
	})
	if err != nil {
		return false, err
	}
	if err := rep.Write(workDir); err != nil {
		return false, err
	}
	rep.Text(os.Stdout)
	return rep.Passed, nil
}
