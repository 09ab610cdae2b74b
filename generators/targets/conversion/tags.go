package conversion

import (
	"path/filepath"
	"strings"

	"github.com/typedinformer/typedinformer/generators/internal/inputerr"
	"github.com/typedinformer/typedinformer/generators/load"
)

// The tags conversion-gen reads.
const (
	// Tag is +k8s:conversion-gen: on a package's doc.go the import path of
	// a peer package (repeatable), or false for a package that registers
	// only its hand-written conversions; on a type or member, false opts
	// it out.
	Tag = "k8s:conversion-gen"
	// ExternalTypesTag names the package the types to convert are declared
	// in, when it is not the package the functions are written into.
	ExternalTypesTag = "k8s:conversion-gen-external-types"
	// explicitFromTag on a type asks for a conversion from the type it
	// names (<package>.<Type>; only net/url.Values) to the tagged type.
	explicitFromTag = "k8s:conversion-gen:explicit-from"
	// fnTag on a hand-written conversion function: copy-only or drop.
	fnTag = "k8s:conversion-fn"
)

// packageTags is what a package's doc.go asks of conversion-gen.
type packageTags struct {
	// generate is set when the package gets a file.
	generate bool
	// explicitOnly (+k8s:conversion-gen=false): only the package's
	// hand-written functions are registered.
	explicitOnly bool
	// peers are the peer packages named, with the position of their tag.
	peers, peerPos []string
	// externalTypes is the package the types are declared in.
	externalTypes, externalPos string
}

// readPackageTags reads p's conversion-gen tags; as gengo has it, only
// doc.go carries package tags (any comment in it).
func readPackageTags(p *load.DeclPackage) (packageTags, error) {
	out := packageTags{externalTypes: p.ImportPath}
	hasDoc := false
	for _, f := range p.Files {
		hasDoc = hasDoc || filepath.Base(f) == "doc.go"
	}
	if !hasDoc {
		return out, nil
	}
	tags := load.ExtractTags(p.Tags)
	hasFalse, hasOther := false, false
	for _, v := range tags[Tag] {
		if v.Value == "false" {
			hasFalse = true
			continue
		}
		hasOther = true
		if err := checkImportPath(v); err != nil {
			return out, err
		}
		out.peers = append(out.peers, v.Value)
		out.peerPos = append(out.peerPos, v.Pos)
	}
	if hasFalse && hasOther {
		return out, inputerr.Errorf(tags[Tag][0].Pos, "+%s: cannot mix \"false\" with peer packages", Tag)
	}
	out.explicitOnly = hasFalse
	out.generate = hasFalse || hasOther
	switch ext := tags[ExternalTypesTag]; len(ext) {
	case 0:
	case 1:
		if err := checkImportPath(ext[0]); err != nil {
			return out, err
		}
		out.externalTypes, out.externalPos = ext[0].Value, ext[0].Pos
	default:
		return out, inputerr.Errorf(ext[1].Pos, "+%s: expected at most one value, found %d", ExternalTypesTag, len(ext))
	}
	return out, nil
}

// checkImportPath refuses a relative or empty package path in a tag.
func checkImportPath(v load.TagValue) error {
	switch {
	case v.Value == "":
		return inputerr.Errorf(v.Pos, "+%s needs a package import path", Tag)
	case strings.HasPrefix(v.Value, "./") || strings.HasPrefix(v.Value, "../"):
		return inputerr.Errorf(v.Pos, "relative path %q is not supported; use the full package import path", v.Value)
	}
	return nil
}

// optedOut reads the +k8s:conversion-gen tag of a type or member: whether
// it is false; another value is an error on a type (strict) and ignored on
// a member, as conversion-gen has it.
func optedOut(lines []load.CommentLine, what string, strict bool) (bool, error) {
	vals := load.ExtractTags(lines)[Tag]
	if len(vals) == 0 {
		return false, nil
	}
	if vals[0].Value != "false" {
		if strict {
			return false, inputerr.Errorf(vals[0].Pos, "%s: unsupported +%s value %q (only false is allowed on a type)", what, Tag, vals[0].Value)
		}
		return false, nil
	}
	return true, nil
}

// memberLines turns a member's doc lines into comment lines at its
// position.
func memberLines(m member) []load.CommentLine {
	out := make([]load.CommentLine, len(m.Doc))
	for i, d := range m.Doc {
		out[i] = load.CommentLine{Text: d, Pos: m.Pos}
	}
	return out
}
