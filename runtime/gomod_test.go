package runtime_test

import (
	"os"
	"strings"
	"testing"
)

// oldestMinor is the oldest Kubernetes minor (k8s.io/apimachinery v0.N) the
// module supports: the three newest minors are v0.35 to v0.37. go.mod must
// require exactly this minor, so that adding typedinformer never raises a
// user's Kubernetes libraries. Raising it is a deliberate decision (for
// example metav1.ListOptions.ShardSelector needs v0.36): change this
// constant and go.mod together, and say so in the release notes.
const oldestMinor = "v0.35."

// TestGoModRequiresOldestSupportedKubernetes fails when go.mod requires a
// newer k8s.io/apimachinery or k8s.io/api than oldestMinor, which is what
// an unqualified `go get k8s.io/api@latest` would silently do. It reads
// the committed go.mod even when the tests run with -modfile.
func TestGoModRequiresOldestSupportedKubernetes(t *testing.T) {
	b, err := os.ReadFile("../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(strings.TrimPrefix(strings.TrimSpace(line), "require "))
		if len(f) >= 2 && (f[0] == "k8s.io/apimachinery" || f[0] == "k8s.io/api") {
			found[f[0]] = f[1]
		}
	}
	for _, mod := range []string{"k8s.io/apimachinery", "k8s.io/api"} {
		v, ok := found[mod]
		if !ok {
			t.Errorf("go.mod does not require %s", mod)
			continue
		}
		if !strings.HasPrefix(v, oldestMinor) {
			t.Errorf("go.mod requires %s %s; want the oldest supported minor %sx (see oldestMinor)", mod, v, oldestMinor)
		}
	}
}
