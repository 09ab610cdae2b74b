package load

import (
	"go/token"
	"os"
	"path/filepath"
	"testing"
)

func TestDeclaresGroupName(t *testing.T) {
	for src, want := range map[string]bool{
		`const GroupName = "apps"`:                       true,
		"const (\n\tGroupName\t= \"x\"\n)":               true,
		`const GroupName string = "x"`:                   true,
		`var PodGroupName = "x"`:                         false,
		`if x.GroupName == "y" {}`:                       false,
		`// the GroupName of this package`:               false,
		`Group: GroupName, Version: "v1"`:                false,
		"const SchedulingGroupName = \"x\"; GroupName=1": true,
	} {
		if got := declaresGroupName([]byte(src)); got != want {
			t.Errorf("declaresGroupName(%q) = %v, want %v", src, got, want)
		}
	}
}

func TestModulePath(t *testing.T) {
	for src, want := range map[string]string{
		"module example.com/x\n\ngo 1.26\n":           "example.com/x",
		"// comment\nmodule \"example.com/q\" // c\n": "example.com/q",
		"modulex foo\nmodule a.b/c\n":                 "a.b/c",
		"go 1.26\n":                                   "",
	} {
		if got := modulePath([]byte(src)); got != want {
			t.Errorf("modulePath(%q) = %q, want %q", src, got, want)
		}
	}
}

// TestTagsFromBothCommentBlocks checks client-gen's reading of a type's
// comments: the doc comment and the block one blank line above it, not
// blocks further away (Foo is not +genclient:nonNamespaced).
func TestTagsFromBothCommentBlocks(t *testing.T) {
	src := `package v1

// +genclient:nonNamespaced

// +genclient

// Foo's doc comment.
type Foo struct{}

// +genclient
type (
	// Bar is grouped.
	Bar struct{}
)
`
	p := filepath.Join(t.TempDir(), "types.go")
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := parseFile(token.NewFileSet(), p)
	if err != nil {
		t.Fatal(err)
	}
	// Like gengo, which counts lines, Bar's tag two lines above its doc
	// comment counts although "type (" stands between them.
	if len(f.Types) != 2 || f.Types[0].Name != "Foo" || f.Types[1].Name != "Bar" {
		t.Fatalf("types = %+v, want Foo and Bar", f.Types)
	}
	var tags []string
	for _, l := range f.Types[0].Tags {
		tags = append(tags, l.Text)
	}
	if len(tags) != 2 || tags[0] != "+genclient" || tags[1] != "Foo's doc comment." {
		t.Errorf("tags = %q, want the detached +genclient block then the doc comment", tags)
	}
}
