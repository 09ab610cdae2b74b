package soak

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/typedinformer/typedinformer/test/e2e/framework"
)

// buildController builds examples/crd's foo-controller with tags.
func buildController(t *testing.T, root, tags string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "foo-controller")
	cmd := exec.Command("go", "build", "-tags", tags, "-o", bin, "./cmd/foo-controller")
	cmd.Dir = filepath.Join(root, "examples", "crd")
	cmd.Env = append(os.Environ(), "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building foo-controller -tags %q: %v\n%s", tags, err, out)
	}
	return bin
}

// TestSabotagedControllerFailsTheSoak runs a short soak on a controller
// built with a sabotage tag and requires the check meant to catch it to
// fail the run, and no other check.
func TestSabotagedControllerFailsTheSoak(t *testing.T) {
	if testing.Short() {
		t.Skip("starts kube-apiserver and etcd")
	}
	bins, err := framework.FindBinaries()
	if err != nil {
		t.Fatal(err)
	}
	root, err := framework.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		tags string
		// faults are the only kinds injected: enough to drive the sabotage.
		faults []string
		// want is in every failure; a failure without it is another
		// check firing, which fails the test too.
		want string
	}{
		{tags: "soak_leak", faults: []string{FaultConnReset}, want: "leak: "},
	} {
		t.Run(tc.tags, func(t *testing.T) {
			work := t.TempDir()
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			rep, err := Run(ctx, Config{
				Duration: 20 * time.Second, Round: 10 * time.Second, Seed: 1,
				Controller: buildController(t, root, tc.tags), Bins: bins, RepoRoot: root,
				WorkDir: work, FaultKinds: tc.faults, Log: testWriter{t},
			})
			if err != nil {
				t.Fatal(err)
			}
			var sb strings.Builder
			rep.Text(&sb)
			if rep.Passed {
				t.Fatalf("the soak passed on a controller built with -tags %s:\n%s", tc.tags, sb.String())
			}
			for _, f := range rep.Failures {
				if !strings.Contains(f, tc.want) {
					t.Errorf("a failure other than %q: %s", tc.want, f)
				}
			}
			t.Logf("report:\n%s", sb.String())
		})
	}
}

// testWriter sends progress lines to the test log.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSuffix(string(p), "\n"))
	return len(p), nil
}
