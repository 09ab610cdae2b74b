package load

import (
	"go/parser"
	"go/token"
	"slices"
	"strings"
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

// TestPackageTagsOnOrFalse: register-gen's and defaulter-gen's package
// tags are read from packages with a doc.go only; "false" opts out,
// register-gen reading " false" as "false" and defaulter-gen as a member
// name; "false" beside another value is an error at the value that mixes
// them.
func TestPackageTagsOnOrFalse(t *testing.T) {
	line := func(n int, text string) CommentLine {
		return CommentLine{Text: text, Pos: "doc.go:" + string(rune('0'+n))}
	}
	for _, c := range []struct {
		name        string
		files       []string
		tags        []CommentLine
		register    bool
		members     []string
		wantErr     string
		registerPos string
	}{
		{"no doc.go", []string{"types.go"}, []CommentLine{line(1, "+k8s:register-gen=true"), line(2, "+k8s:defaulter-gen=TypeMeta")}, false, nil, "", ""},
		{"on", []string{"doc.go"}, []CommentLine{line(1, "+k8s:register-gen=true"), line(2, "+k8s:defaulter-gen=TypeMeta"), line(3, "+k8s:defaulter-gen=ObjectMeta")}, true, []string{"TypeMeta", "ObjectMeta"}, "", "doc.go:1"},
		{"false", []string{"doc.go"}, []CommentLine{line(1, "+k8s:register-gen=false"), line(2, "+k8s:defaulter-gen=false"), line(3, "+groupName=g")}, false, nil, "", ""},
		{"spaced false", []string{"doc.go"}, []CommentLine{line(1, "+k8s:register-gen= false"), line(2, "+k8s:defaulter-gen= false")}, false, []string{" false"}, "", ""},
		{"mixed", []string{"doc.go"}, []CommentLine{line(1, "+k8s:register-gen=false"), line(2, "+k8s:register-gen=true"), line(3, "+k8s:register-gen=x"), line(4, "+k8s:defaulter-gen=false"), line(5, "+k8s:defaulter-gen=TypeMeta"), line(6, "+k8s:defaulter-gen=x")},
			false, nil, `doc.go:2: +k8s:register-gen: cannot mix "false" with other values; got false, true, x|doc.go:5: +k8s:defaulter-gen: cannot mix "false" with other values; got false, TypeMeta, x`, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := &DeclPackage{InputPackage: InputPackage{Files: c.files}, Tags: c.tags}
			var errs []string
			r, err := RegisterPackageTags(p)
			if err != nil {
				errs = append(errs, err.Error())
			} else if r.Generate != c.register || r.Pos != c.registerPos {
				t.Errorf("register: generate %v at %q, want %v at %q", r.Generate, r.Pos, c.register, c.registerPos)
			}
			d, err := DefaulterPackageTags(p)
			if err != nil {
				errs = append(errs, err.Error())
			} else if !slices.Equal(d.MemberNames, c.members) || d.Enabled != (len(c.members) > 0) {
				t.Errorf("defaulter: enabled %v, member names %q, want %q", d.Enabled, d.MemberNames, c.members)
			}
			if got := strings.Join(errs, "|"); got != c.wantErr {
				t.Errorf("errors %q, want %q", got, c.wantErr)
			}
		})
	}
}
