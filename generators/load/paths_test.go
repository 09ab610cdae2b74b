package load

import (
	"path/filepath"
	"testing"
)

func TestListersPackageLocation(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"go.mod": "module example.com/widgets\n\ngo 1.26\n"})
	out := filepath.Join(root, "pkg", "generated", "informers")
	for _, c := range []struct {
		pkg, want string
	}{
		{"example.com/widgets/pkg/generated/informers/listers", filepath.Join(out, "listers")},
		{"example.com/widgets/pkg/generated/listers", filepath.Join(root, "pkg", "generated", "listers")},
		{"example.com/widgets/other/listers", filepath.Join(root, "other", "listers")},
	} {
		got, ok := LocatePackage(c.pkg, out, "example.com/widgets/pkg/generated/informers")
		if !ok || got != c.want {
			t.Errorf("locatePackage(%s) = %s, %v; want %s", c.pkg, got, ok, c.want)
		}
	}
	if got, ok := LocatePackage("elsewhere.io/listers", out, "example.com/widgets/pkg/generated/informers"); ok {
		t.Errorf("locatePackage found %s for a package outside the module", got)
	}
}
