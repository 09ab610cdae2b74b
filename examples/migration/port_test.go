package migration_test

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// controllerDiff returns git's diff of before/ and after/ controller.go.
func controllerDiff(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not found")
	}
	out, err := exec.Command("git", "diff", "--no-index", "--no-color", "before/controller.go", "after/controller.go").Output()
	// Exit status 1 means "differs", which is expected.
	var ee *exec.ExitError
	if err != nil && (!errors.As(err, &ee) || ee.ExitCode() != 1) {
		t.Fatalf("git diff: %v", err)
	}
	return strings.TrimRight(string(out), "\n")
}

// docs/migration.md shows the controller diff verbatim; regenerate the
// block when either controller.go changes.
func TestMigrationGuideShowsTheCurrentDiff(t *testing.T) {
	diff := controllerDiff(t)
	b, err := os.ReadFile("../../docs/migration.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	start := strings.Index(doc, "```diff\n")
	if start < 0 {
		t.Fatal("docs/migration.md has no ```diff block")
	}
	rest := doc[start+len("```diff\n"):]
	end := strings.Index(rest, "\n```")
	if end < 0 {
		t.Fatal("docs/migration.md: unterminated ```diff block")
	}
	if got := rest[:end]; got != diff {
		t.Fatalf("docs/migration.md's diff block is stale; replace it with the output of\n"+
			"  git diff --no-index before/controller.go after/controller.go\n(run in examples/migration):\n%s", diff)
	}
}

// The port of controller.go adds lines only in the import block or where a
// handler's parameters become typed; all other changes are deletions. The
// budget is today's count: a port that needs more edits fails here.
func TestControllerPortIsImportsTypesAndDeletions(t *testing.T) {
	var added, removed int
	inImports := false
	for _, line := range strings.Split(controllerDiff(t), "\n") {
		switch {
		case strings.HasPrefix(line, "+++") || strings.HasPrefix(line, "---"):
			continue
		case strings.HasPrefix(line, "@@"):
			inImports = strings.Contains(line, "import (")
			continue
		case strings.TrimSpace(strings.TrimLeft(line, "+- ")) == ")":
			inImports = false
		case strings.HasPrefix(strings.TrimSpace(line), "import ("):
			inImports = true
		}
		if inImports {
			continue
		}
		if strings.HasPrefix(line, "+") {
			added++
			if !strings.Contains(line, "*samplesv1alpha1.Foo") && !strings.Contains(line, "*corev1.ConfigMap") && !strings.Contains(line, "ResourceVersion") {
				t.Errorf("added line is neither a typed parameter nor a cast removal: %s", line)
			}
		}
		if strings.HasPrefix(line, "-") {
			removed++
		}
	}
	if added > 7 {
		t.Errorf("%d lines added outside the imports, want at most 7", added)
	}
	if removed < added {
		t.Errorf("%d removed, %d added: a port should mostly delete", removed, added)
	}
}
