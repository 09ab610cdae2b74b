package deepcopy

import (
	"path/filepath"
	"strings"

	"github.com/typedinformer/typedinformer/generators/internal/inputerr"
	"github.com/typedinformer/typedinformer/generators/load"
)

// The tags deepcopy-gen reads.
const (
	enabledTag    = "k8s:deepcopy-gen"
	interfacesTag = enabledTag + ":interfaces"
	nonPointerTag = enabledTag + ":nonpointer-interfaces"
)

// tagValues returns the values of the tag name on lines ("+name=value",
// "" for "+name"), in order.
func tagValues(lines []load.CommentLine, name string) []string {
	var out []string
	for _, l := range lines {
		v, ok := tagValue(l.Text, name)
		if ok {
			out = append(out, v)
		}
	}
	return out
}

func tagValue(line, name string) (string, bool) {
	body, ok := strings.CutPrefix(strings.TrimSpace(line), "+")
	if !ok {
		return "", false
	}
	key, value, _ := strings.Cut(body, "=")
	return value, key == name
}

// enabled reads the one +k8s:deepcopy-gen tag of lines: its value before
// any ",register=…" parameter, "" without the tag.
func enabled(lines []load.CommentLine) (string, error) {
	var found []load.CommentLine
	for _, l := range lines {
		if _, ok := tagValue(l.Text, enabledTag); ok {
			found = append(found, l)
		}
	}
	if len(found) == 0 {
		return "", nil
	}
	if len(found) > 1 {
		return "", inputerr.Errorf(found[1].Pos, "found %d %s tags", len(found), enabledTag)
	}
	v, _ := tagValue(found[0].Text, enabledTag)
	parts := strings.Split(v, ",")
	for _, p := range parts[1:] {
		if k, _, _ := strings.Cut(p, "="); k != "register" {
			return "", inputerr.Errorf(found[0].Pos, "unsupported %s param: %q", enabledTag, p)
		}
	}
	if parts[0] == "" {
		return "", inputerr.Errorf(found[0].Pos, "%s needs a value", enabledTag)
	}
	return parts[0], nil
}

// packageTag is the package's tag value: "package", "false" or "". As
// deepcopy-gen has it, only a doc.go carries package tags (any comment in
// it).
func packageTag(p *load.DeclPackage) (string, error) {
	hasDoc := false
	for _, f := range p.Files {
		hasDoc = hasDoc || filepath.Base(f) == "doc.go"
	}
	if !hasDoc {
		return "", nil
	}
	v, err := enabled(p.Tags)
	if err != nil {
		return "", err
	}
	if v != "" && v != "package" && v != "false" {
		return "", inputerr.Errorf(p.PackagePos, "unsupported %s value %q on the package (want package)", enabledTag, v)
	}
	return v, nil
}

// typeTag is a type's tag value: "true", "false" or "".
func typeTag(d *load.TypeDecl) (string, error) {
	v, err := enabled(d.Tags)
	if err != nil {
		return "", err
	}
	if v != "" && v != "true" && v != "false" {
		return "", inputerr.Errorf(d.Pos, "type %s: unsupported %s value %q", d.Name, enabledTag, v)
	}
	return v, nil
}
