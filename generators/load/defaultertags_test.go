package load

import (
	"go/parser"
	"go/token"
	"slices"
	"testing"
)

// TestCommentBlocks: a type's doc comment and the block above it, split
// as gengo splits them, whichever of the two is there.
func TestCommentBlocks(t *testing.T) {
	for _, c := range []struct {
		name, src       string
		second, closest []string
	}{
		{"both", "package p\n\n// +k8s:defaulter-gen=true\n\n// T is one.\ntype T struct{}\n", []string{"+k8s:defaulter-gen=true"}, []string{"T is one."}},
		{"doc comment only", "package p\n\n// +k8s:defaulter-gen=true\n// T is one.\ntype T struct{}\n", nil, []string{"+k8s:defaulter-gen=true", "T is one."}},
		{"block above only", "package p\n\n// +k8s:defaulter-gen=false\n\ntype T struct{}\n", []string{"+k8s:defaulter-gen=false"}, nil},
		{"neither", "package p\n\ntype T struct{}\n", nil, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, "types.go", c.src, parser.ParseComments)
			if err != nil {
				t.Fatal(err)
			}
			d := typeDecls(fset, f)[0]
			second, closest := CommentBlocks(d)
			if got := textsOf(second); !slices.Equal(got, c.second) {
				t.Errorf("second %q, want %q", got, c.second)
			}
			if got := textsOf(closest); !slices.Equal(got, c.closest) {
				t.Errorf("closest %q, want %q", got, c.closest)
			}
		})
	}
}

func textsOf(lines []CommentLine) []string {
	var out []string
	for _, l := range lines {
		out = append(out, l.Text)
	}
	return out
}
