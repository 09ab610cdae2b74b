package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// This file measures all of kube_codegen.sh's gen_client (--with-watch
// --with-applyconfig): the clientset and its fake, the apply
// configurations, the listers and the informers of the k8s.io/api packages
// with +genclient. Ours is one informer-gen run; upstream is gen_client's
// four generators (applyconfiguration-gen, client-gen, lister-gen,
// informer-gen) with the arguments gen_client gives them, one after the
// other, as the script runs them.

// genClientPlurals are the plural exceptions both sides are given.
const genClientPlurals = "Endpoints:Endpoints"

// apiModuleDir is the directory of k8s.io/api as resolved in dir: the
// --input-base gen_client gives client-gen is a directory.
func apiModuleDir(ctx context.Context, dir string) (string, error) {
	cmd := exec.CommandContext(ctx, "go", "list", "-m", "-json", "k8s.io/api")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go list -m k8s.io/api in %s: %w", dir, err)
	}
	var mod struct{ Dir string }
	if err := json.Unmarshal(out, &mod); err != nil || mod.Dir == "" {
		return "", fmt.Errorf("go list -m k8s.io/api in %s: no module directory (run go mod download): %v", dir, err) //nolint:errorlint // err may be nil here
	}
	return mod.Dir, nil
}

// runOursGenClient runs our informer-gen once, with the arguments
// typedinformer::codegen::gen_client gives it, into a fresh directory.
func runOursGenClient(ctx context.Context, t genTools, header string, pkgs []string) (genRun, error) {
	return runOursGenClientWith(ctx, t, header, pkgs)
}

// runOursGenClientWith is runOursGenClient with more flags given to
// informer-gen (--with-deepcopy).
func runOursGenClientWith(ctx context.Context, t genTools, header string, pkgs []string, flags ...string) (genRun, error) {
	out, err := os.MkdirTemp(t.TmpDir, "bench-genclient-ours-")
	if err != nil {
		return genRun{}, err
	}
	defer os.RemoveAll(out)
	args := append([]string{
		"-v", "0",
		"--go-header-file", header,
		"--with-applyconfig",
		"--apply-configuration-package", genOutputPkg + "/applyconfiguration",
		"--applyconfig-output-dir", filepath.Join(out, "applyconfiguration"),
		"--output-dir", filepath.Join(out, "informers"),
		"--output-pkg", genOutputPkg + "/informers",
		"--listers-package", genOutputPkg + "/listers",
		"--listers-output-dir", filepath.Join(out, "listers"),
		"--with-clientset",
		"--clientset-package", genOutputPkg + "/clientset",
		"--clientset-output-dir", filepath.Join(out, "clientset"),
		"--clientset-name", "versioned",
		"--replace-client-gen-output",
		"--plural-exceptions", genClientPlurals,
	}, flags...)
	args = append(args, pkgs...)
	p, err := runProc(ctx, t.Dir, 10*time.Minute, t.Ours, args...)
	if err != nil {
		return genRun{}, fmt.Errorf("our informer-gen (gen_client): %w", err)
	}
	return genRun{Wall: p.Wall, MaxRSS: p.MaxRSS, SumRSS: p.MaxRSS, Files: countGoFiles(out)}, nil
}

// runUpstreamGenClient runs gen_client's four upstream generators over pkgs,
// each in its own process, into a fresh directory.
func runUpstreamGenClient(ctx context.Context, t genTools, header, apiDir string, pkgs []string) (genRun, error) {
	out, err := os.MkdirTemp(t.TmpDir, "bench-genclient-upstream-")
	if err != nil {
		return genRun{}, err
	}
	defer os.RemoveAll(out)
	var inputs []string
	for _, p := range pkgs {
		inputs = append(inputs, "--input", strings.TrimPrefix(p, "k8s.io/api/"))
	}
	steps := []struct {
		name, bin string
		args      []string
	}{
		{"applyconfiguration-gen", t.UpstreamApply, append([]string{
			"-v", "0", "--go-header-file", header,
			"--output-dir", filepath.Join(out, "applyconfiguration"),
			"--output-pkg", genOutputPkg + "/applyconfiguration",
			"--external-applyconfigurations", "", "--openapi-schema", "",
		}, pkgs...)},
		{"client-gen", t.UpstreamClient, append([]string{
			"-v", "0", "--go-header-file", header,
			"--output-dir", filepath.Join(out, "clientset"),
			"--output-pkg", genOutputPkg + "/clientset",
			"--clientset-name", "versioned",
			"--apply-configuration-package", genOutputPkg + "/applyconfiguration",
			"--input-base", apiDir,
			"--plural-exceptions", genClientPlurals,
			"--prefers-protobuf=false",
		}, inputs...)},
		{"lister-gen", t.UpstreamLister, append([]string{
			"-v", "0", "--go-header-file", header,
			"--output-dir", filepath.Join(out, "listers"),
			"--output-pkg", genOutputPkg + "/listers",
			"--plural-exceptions", genClientPlurals,
		}, pkgs...)},
		{"informer-gen", t.UpstreamInformer, append([]string{
			"-v", "0", "--go-header-file", header,
			"--output-dir", filepath.Join(out, "informers"),
			"--output-pkg", genOutputPkg + "/informers",
			"--versioned-clientset-package", genOutputPkg + "/clientset/versioned",
			"--listers-package", genOutputPkg + "/listers",
			"--plural-exceptions", genClientPlurals,
		}, pkgs...)},
	}
	var g genRun
	for _, s := range steps {
		p, err := runProc(ctx, t.Dir, 10*time.Minute, s.bin, s.args...)
		if err != nil {
			return genRun{}, fmt.Errorf("upstream %s: %w", s.name, err)
		}
		g.Wall += p.Wall
		g.MaxRSS = max(g.MaxRSS, p.MaxRSS)
		g.SumRSS += p.MaxRSS
	}
	g.Files = countGoFiles(out)
	return g, nil
}

// runGenClient adds rows 5b: one gen_client, ours against upstream's; then
// rows 5c (runCRDCodegen).
func (s *suite) runGenClient(ctx context.Context) {
	defer s.runCRDCodegen(ctx)
	s.runKubeGenRow(ctx, kubeGenRow{
		Num: "5b", Label: "gen_client", Bench: "gen_client (clientset + fake + apply configurations + listers + informers), %d k8s.io/api group-versions",
		WallMetric: "wall time (upstream: its four generators, summed)", WallTarget: 0.05,
		RSSMetric: "peak RSS (upstream: the largest of its four processes)", RSSTarget: 0.05,
		Anchors: []string{s.tools.UpstreamInformer, s.tools.UpstreamLister, s.tools.UpstreamClient, s.tools.UpstreamApply},
		Note:    "gen_client: upstream's four processes' peak RSS summed is %s (the table uses the largest); files written: ours %d, upstream %d.",
		Sides: func(ctx context.Context, pkgs []string, header string) (genSides, error) {
			apiDir, err := apiModuleDir(ctx, s.tools.Dir)
			if err != nil {
				return genSides{}, err
			}
			return genSides{
				Ours: func(ctx context.Context) (genRun, error) { return runOursGenClient(ctx, s.tools, header, pkgs) },
				Upstream: func(ctx context.Context) (genRun, error) {
					return runUpstreamGenClient(ctx, s.tools, header, apiDir, pkgs)
				},
			}, nil
		},
	})
}
