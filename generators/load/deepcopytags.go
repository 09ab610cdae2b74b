package load

import (
	"path/filepath"
	"strings"

	"github.com/typedinformer/typedinformer/generators/internal/inputerr"
)

// This file reads deepcopy-gen's tags: +k8s:deepcopy-gen on a package's
// doc.go (=package, =false) or on a type (=true, =false), and on a type
// +k8s:deepcopy-gen:interfaces=<pkg>.<Interface>,… and
// +k8s:deepcopy-gen:nonpointer-interfaces=true.

// The tags deepcopy-gen reads.
const (
	DeepCopyTag           = "k8s:deepcopy-gen"
	DeepCopyInterfacesTag = DeepCopyTag + ":interfaces"
	DeepCopyNonPointerTag = DeepCopyTag + ":nonpointer-interfaces"
)

// deepCopyEnabled reads the one +k8s:deepcopy-gen tag of lines: its value
// before any ",register=…" parameter, "" without the tag.
func deepCopyEnabled(lines []CommentLine) (TagValue, error) {
	found := ExtractTags(lines)[DeepCopyTag]
	if len(found) == 0 {
		return TagValue{}, nil
	}
	if len(found) > 1 {
		return TagValue{}, inputerr.Errorf(found[1].Pos, "found %d %s tags", len(found), DeepCopyTag)
	}
	parts := strings.Split(found[0].Value, ",")
	for _, p := range parts[1:] {
		if k, _, _ := strings.Cut(p, "="); k != "register" {
			return TagValue{}, inputerr.Errorf(found[0].Pos, "unsupported %s param: %q", DeepCopyTag, p)
		}
	}
	if parts[0] == "" {
		return TagValue{}, inputerr.Errorf(found[0].Pos, "%s needs a value", DeepCopyTag)
	}
	return TagValue{Value: parts[0], Pos: found[0].Pos}, nil
}

// DeepCopyPackageTag is the package's +k8s:deepcopy-gen value: "package",
// "false" or "". As deepcopy-gen has it, only doc.go carries package tags
// (any comment in it).
func DeepCopyPackageTag(p *DeclPackage) (string, error) {
	hasDoc := false
	for _, f := range p.Files {
		hasDoc = hasDoc || filepath.Base(f) == "doc.go"
	}
	if !hasDoc {
		return "", nil
	}
	v, err := deepCopyEnabled(p.Tags)
	if err != nil {
		return "", err
	}
	if v.Value != "" && v.Value != "package" && v.Value != "false" {
		return "", inputerr.Errorf(v.Pos, "unsupported %s value %q on the package (want package or false)", DeepCopyTag, v.Value)
	}
	return v.Value, nil
}

// DeepCopyTypeTag is a type's +k8s:deepcopy-gen value: "true", "false" or
// "".
func DeepCopyTypeTag(d *TypeDecl) (string, error) {
	v, err := deepCopyEnabled(d.Tags)
	if err != nil {
		return "", err
	}
	if v.Value != "" && v.Value != "true" && v.Value != "false" {
		return "", inputerr.Errorf(d.Pos, "type %s: unsupported %s value %q", d.Name, DeepCopyTag, v.Value)
	}
	return v.Value, nil
}

// DeepCopyInterfaces reads a type's interfaces tags: the fully qualified
// interface names, in order (repeats kept), and whether the
// DeepCopy<Interface> methods take a value receiver.
func DeepCopyInterfaces(d *TypeDecl) (names []string, nonPointer bool, err error) {
	tags := ExtractTags(d.Tags)
	for _, v := range tags[DeepCopyInterfacesTag] {
		for _, name := range strings.Split(v.Value, ",") {
			if name != "" {
				names = append(names, name)
			}
		}
	}
	values := tags[DeepCopyNonPointerTag]
	nonPointer = len(values) > 0 && values[0].Value == "true"
	for _, v := range values {
		if (v.Value == "true") != nonPointer {
			return nil, false, inputerr.Errorf(v.Pos, "contradicting %s value %q found to previous value %v", DeepCopyNonPointerTag, v.Value, nonPointer)
		}
	}
	return names, nonPointer, nil
}
