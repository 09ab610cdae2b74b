package load

import (
	"strconv"
	"strings"

	"github.com/typedinformer/typedinformer/generators/internal/inputerr"
)

// This file reads what defaulter-gen reads beside types: its package tags
// (+k8s:defaulter-gen=<member name>…, =false, +k8s:defaulter-gen-input=),
// the two comment blocks above a type, and the functions a package declares
// (its SetDefaults_<Type> and SetObjectDefaults_<Type> functions).

// The tags defaulter-gen reads.
const (
	DefaulterTag      = "k8s:defaulter-gen"
	DefaulterInputTag = DefaulterTag + "-input"
	DefaultTag        = "default"
)

// DefaulterPackage is what a package's doc.go tags say to defaulter-gen.
type DefaulterPackage struct {
	// Enabled is set when the package carries a +k8s:defaulter-gen tag
	// other than "false".
	Enabled bool
	// MemberNames are the tag's values: a type with a member of one of
	// these names gets an object defaulter.
	MemberNames []string
	// Input is +k8s:defaulter-gen-input's import path: the package whose
	// types are defaulted; "" means the package itself.
	Input string
	Pos   string
}

// DefaulterPackageTags reads p's defaulter-gen tags. As defaulter-gen has
// it, only doc.go carries package tags (any comment in it).
func DefaulterPackageTags(p *DeclPackage) (DefaulterPackage, error) {
	var out DefaulterPackage
	tags := docTags(p)
	if vs := tags[DefaulterTag]; len(vs) > 0 {
		out.Pos = vs[len(vs)-1].Pos
	}
	// defaulter-gen reads " false" as a member name.
	on, _, err := onOrFalse(DefaulterTag, tags[DefaulterTag], func(v string) bool { return v == "false" })
	if err != nil {
		return out, err
	}
	out.MemberNames = values(on)
	out.Enabled = len(on) > 0
	switch in := tags[DefaulterInputTag]; len(in) {
	case 0:
	case 1:
		v := in[0].Value
		if strings.HasPrefix(v, "./") || strings.HasPrefix(v, "../") {
			return out, inputerr.Errorf(in[0].Pos, "+%s: relative path %q is not supported; use the full package import path", DefaulterInputTag, v)
		}
		if v == "" || !IsImportPath(v) {
			return out, inputerr.Errorf(in[0].Pos, "+%s: %q is not an import path", DefaulterInputTag, v)
		}
		out.Input = v
	default:
		return out, inputerr.Errorf(in[1].Pos, "+%s: expected at most one value, got %s", DefaulterInputTag, strings.Join(values(in), ", "))
	}
	return out, nil
}

func values(tv []TagValue) []string {
	out := make([]string, len(tv))
	for i, v := range tv {
		out[i] = v.Value
	}
	return out
}

// CommentBlocks splits d's tag lines into gengo's two: the comment block
// ending on the line above the type's name (its doc comment, closest) and
// the one ending two lines above that (second).
func CommentBlocks(d *TypeDecl) (second, closest []CommentLine) {
	line := lineOf(d.Pos)
	i := len(d.Tags)
	for i > 0 && lineOf(d.Tags[i-1].Pos) == line-1 {
		line--
		i--
	}
	return d.Tags[:i], d.Tags[i:]
}

// lineOf is the line of a "file:line" position.
func lineOf(pos string) int {
	i := strings.LastIndexByte(pos, ':')
	n, err := strconv.Atoi(pos[i+1:])
	if err != nil {
		return -1
	}
	return n
}
