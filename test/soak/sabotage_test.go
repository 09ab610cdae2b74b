package soak

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
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
		// faults are the only kinds injected, on group's replicas only:
		// enough to drive the sabotage.
		faults []string
		group  string
		// want is in at least one failure; every failure has want or one
		// of also (a consequence of the same sabotage). Any other failure
		// is another check firing, which fails the test too.
		want string
		also []string
		// duration and round of the run; settle bounds each quiescent
		// point's wait, which a sabotage that diverges waits out in full.
		duration, round, settle time.Duration
	}{
		// A goroutine per reconcile: the goroutine count grows.
		{tags: "soak_leak", faults: []string{FaultConnReset}, want: "leak: ",
			duration: 20 * time.Second, round: 10 * time.Second},
		// A leader paused past its Lease reconciles on resuming before its
		// elector notices: reconciles start without a valid Lease, and may
		// overlap the new leader's.
		{tags: "soak_nofence", faults: []string{FaultReplicaPause}, group: groupElected,
			want: "unfenced: ", also: []string{"double reconcile: "},
			duration: 30 * time.Second, round: 15 * time.Second},
		// Connections to the API server opened and never closed: no
		// goroutine reads them, only the connection count sees them.
		{tags: "soak_connleak", faults: []string{FaultConnReset}, want: "connections to the API server",
			duration: 20 * time.Second, round: 10 * time.Second},
		// The ConfigMap cache keeps an object deleted on the server; resets
		// resume the watches without the relist that would mend it.
		// The build reads without the write tracker too, so the object it
		// keeps is also a stale read of the controller's own delete. A
		// ConfigMap the cache keeps after someone else deleted it is never
		// recreated: its Foo has no ConfigMap and a status of an older
		// generation.
		{tags: "soak_dropdelete", faults: []string{FaultConnReset}, want: "not on the server in its scope",
			also:     []string{"stale read: ", ": no ConfigMap ", `status "Ready" for generation`},
			duration: 15 * time.Second, round: 15 * time.Second, settle: 10 * time.Second},
		// Reads without the write tracker: with the watch streams throttled,
		// reconciles that follow the controller's own writes read older
		// copies.
		{tags: "soak_notrack", faults: []string{FaultThrottle}, want: "stale read: ",
			duration: 20 * time.Second, round: 10 * time.Second},
	} {
		t.Run(tc.tags, func(t *testing.T) {
			work := t.TempDir()
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			rep, err := Run(ctx, Config{
				Duration: tc.duration, Round: tc.round, Settle: tc.settle, Seed: 1,
				Controller: buildController(t, root, tc.tags), Bins: bins, RepoRoot: root,
				WorkDir: work, FaultKinds: tc.faults, FaultGroup: tc.group, Log: testWriter{t},
			})
			if err != nil {
				t.Fatal(err)
			}
			var sb strings.Builder
			rep.Text(&sb)
			if rep.Passed {
				t.Fatalf("the soak passed on a controller built with -tags %s:\n%s", tc.tags, sb.String())
			}
			found := false
			for _, f := range rep.Failures {
				found = found || strings.Contains(f, tc.want)
				if !strings.Contains(f, tc.want) && !slices.ContainsFunc(tc.also, func(a string) bool { return strings.Contains(f, a) }) {
					t.Errorf("a failure other than %q: %s", tc.want, f)
				}
			}
			if !found {
				t.Errorf("no failure has %q", tc.want)
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
