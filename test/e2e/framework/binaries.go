package framework

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// Binaries are the paths of the control-plane executables.
type Binaries struct {
	Etcd          string
	KubeAPIServer string
}

// Env variables that override where the binaries come from.
const (
	// EtcdEnv and KubeAPIServerEnv name ready binaries to use as they are.
	EtcdEnv          = "E2E_ETCD"
	KubeAPIServerEnv = "E2E_KUBE_APISERVER"
	// RepoRootEnv points at the repository root (where hack/kube/build.sh
	// lives) when the source tree is not where this file was compiled.
	RepoRootEnv = "E2E_REPO_ROOT"
)

// FindBinaries returns the etcd and kube-apiserver to run: the paths in
// $E2E_ETCD and $E2E_KUBE_APISERVER when both are set, otherwise what
// hack/kube/build.sh prints, which reuses the versioned binary cache and
// builds what is missing (about 11 minutes for a cold kube-apiserver).
func FindBinaries() (Binaries, error) {
	b := Binaries{Etcd: os.Getenv(EtcdEnv), KubeAPIServer: os.Getenv(KubeAPIServerEnv)}
	if b.Etcd != "" && b.KubeAPIServer != "" {
		return b, nil
	}
	root, err := RepoRoot()
	if err != nil {
		return b, err
	}
	script := filepath.Join(root, "hack", "kube", "build.sh")
	cmd := exec.Command(script, "all")
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return b, fmt.Errorf("%s: %w", script, err)
	}
	sc := bufio.NewScanner(&out)
	for sc.Scan() {
		name, path, ok := strings.Cut(sc.Text(), "=")
		if !ok {
			continue
		}
		switch {
		case name == "etcd" && b.Etcd == "":
			b.Etcd = path
		case name == "kube-apiserver" && b.KubeAPIServer == "":
			b.KubeAPIServer = path
		}
	}
	if b.Etcd == "" || b.KubeAPIServer == "" {
		return b, fmt.Errorf("%s printed no etcd or kube-apiserver path: %q", script, out.String())
	}
	return b, nil
}

// RepoRoot returns the repository root: $E2E_REPO_ROOT, or found from this
// source file or the working directory (the directory holding
// hack/kube/build.sh).
func RepoRoot() (string, error) {
	if r := os.Getenv(RepoRootEnv); r != "" {
		return r, nil
	}
	var candidates []string
	// This file is <root>/test/e2e/framework/binaries.go (unless built with -trimpath).
	if _, file, _, ok := runtime.Caller(0); ok && filepath.IsAbs(file) {
		candidates = append(candidates, filepath.Join(filepath.Dir(file), "..", "..", ".."))
	}
	// go test runs in the package directory: <root>/test/e2e or below.
	if wd, err := os.Getwd(); err == nil {
		candidates = append(candidates, filepath.Join(wd, "..", ".."), filepath.Join(wd, "..", "..", ".."))
	}
	for _, c := range candidates {
		c = filepath.Clean(c)
		if _, err := os.Stat(filepath.Join(c, "hack", "kube", "build.sh")); err == nil {
			return c, nil
		}
	}
	return "", fmt.Errorf("cannot find hack/kube/build.sh in %q; set %s to the repository root", candidates, RepoRootEnv)
}
