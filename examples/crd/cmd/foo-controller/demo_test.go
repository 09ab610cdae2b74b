package main

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"

	kubefake "k8s.io/client-go/kubernetes/fake"

	samplesfake "github.com/typedinformer/typedinformer/examples/crd/pkg/generated/clientset/versioned/fake"
)

// TestDemoStepsSettle runs the demo several times and checks that it reads
// as a story: every reconcile line is printed under the header of the step
// that caused it (never under the next step's), each step shows the
// reconcile it is about, no reconcile fails on a stale read of a write of
// the program, and the summary counts the steps.
func TestDemoStepsSettle(t *testing.T) {
	plan := (&script{ctx: context.Background(), kube: kubefake.NewClientset(), samples: samplesfake.NewSimpleClientset()}).plan()
	for run := range 5 {
		var buf bytes.Buffer
		if err := demo(context.Background(), &buf, 2); err != nil {
			t.Fatalf("run %d: %v\n%s", run, err, buf.String())
		}
		out := buf.String()
		sections := strings.Split(out, "== demo: ")[1:]
		if len(sections) != len(plan)+1 {
			t.Fatalf("run %d: %d headers, want %d steps and the summary:\n%s", run, len(sections), len(plan), out)
		}
		for i, st := range plan {
			lines := strings.Split(strings.TrimSpace(sections[i]), "\n")
			if header := "== demo: " + lines[0]; header != st.say {
				t.Fatalf("run %d: step %d header %q, want %q", run, i, header, st.say)
			}
			sawWant := st.want == ""
			for _, line := range lines[1:] {
				key, ok := reconcileKey(line)
				if !ok {
					continue
				}
				if !slices.Contains(st.keys, key) {
					t.Fatalf("run %d: reconcile of %s under step %q, which does not touch it (a previous step's, printed late?):\n%s", run, key, st.say, out)
				}
				sawWant = sawWant || strings.Contains(line, st.want)
			}
			if !sawWant {
				t.Fatalf("run %d: no %q under step %q:\n%s", run, st.want, st.say, out)
			}
		}
		// The controller reads its own writes back from its listers, so
		// the happy path has no conflict from a stale read: no status
		// update of an older Foo than it just wrote, no create of a
		// ConfigMap it (or the script) already created.
		for _, stale := range []string{"the object has been modified", "already exists"} {
			if strings.Contains(out, stale) {
				t.Fatalf("run %d: a reconcile acted on a stale cached copy (%q):\n%s", run, stale, out)
			}
		}
		summary := sections[len(plan)]
		if !strings.HasPrefix(summary, "done: 9 steps, ") || !strings.Contains(summary, " errors) in ") {
			t.Fatalf("run %d: summary %q", run, summary)
		}
	}
}

// reconcileKey returns the namespace/name of a "reconcile ..." line.
func reconcileKey(line string) (string, bool) {
	rest, ok := strings.CutPrefix(line, "reconcile ")
	if !ok {
		return "", false
	}
	return strings.Fields(rest)[0], true
}
