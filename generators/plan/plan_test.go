package plan

import (
	"strings"
	"testing"

	"github.com/typedinformer/typedinformer/generators/internal/inputerr"
)

func TestCheckSortsAndRefusesOnePathTwice(t *testing.T) {
	files := []File{{Path: "/out/b.go"}, {Path: "/out/a.go"}, {Path: "/out/c.go"}}
	if err := Check(files); err != nil {
		t.Fatal(err)
	}
	if files[0].Path != "/out/a.go" || files[1].Path != "/out/b.go" || files[2].Path != "/out/c.go" {
		t.Errorf("files not sorted by path: %v", files)
	}
	err := Check([]File{{Path: "/out/a.go"}, {Path: "/out/b.go"}, {Path: "/out/a.go"}})
	if !inputerr.Is(err) || !strings.Contains(err.Error(), "/out/a.go") {
		t.Errorf("Check = %v, want an InputError naming /out/a.go", err)
	}
}

func TestImportSetNamesAreUnique(t *testing.T) {
	s := NewImportSet([]string{"v1"})
	if got := s.Add("k8s.io/api/core/v1", "v1"); got != "v12" {
		t.Errorf("a reserved name: got %s, want v12", got)
	}
	if got := s.Add("k8s.io/api/apps/v1", "v1"); got != "v13" {
		t.Errorf("a taken name: got %s, want v13", got)
	}
	if got := s.Add("k8s.io/api/core/v1", "other"); got != "v12" {
		t.Errorf("a package added again: got %s, want its first name v12", got)
	}
	if got := s.Fixed("k8s.io/apimachinery/pkg/runtime", "runtime"); got != "runtime" {
		t.Errorf("Fixed = %s, want runtime", got)
	}
	want := []ImportLine{{"v12", "k8s.io/api/core/v1"}, {"v13", "k8s.io/api/apps/v1"}, {"runtime", "k8s.io/apimachinery/pkg/runtime"}}
	if len(s.Imports) != len(want) {
		t.Fatalf("Imports = %v, want %v", s.Imports, want)
	}
	for i := range want {
		if s.Imports[i] != want[i] {
			t.Errorf("Imports[%d] = %v, want %v", i, s.Imports[i], want[i])
		}
	}
}
