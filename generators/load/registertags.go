package load

import (
	"strings"
)

// This file reads register-gen's package tags from doc.go: +k8s:register-gen
// (any value but "false" asks for the file, "false" opts out) and
// +groupName=, which asks for it too and names the group.

// RegisterTag is register-gen's activation tag.
const RegisterTag = "k8s:register-gen"

// RegisterTags is what a package's doc.go says to register-gen.
type RegisterTags struct {
	// Generate is set when the package gets a register file: tagged
	// +k8s:register-gen with a value other than "false", or, without that
	// tag, +groupName=.
	Generate bool
	// Group is +groupName's first value; HasGroup says the tag is there,
	// and GroupPos where.
	Group, GroupPos string
	HasGroup        bool
	// Pos is the position of the tag that asked for the file.
	Pos string
}

// RegisterPackageTags reads register-gen's tags of p. As register-gen has
// it, only doc.go carries package tags (any comment in it); mixing
// +k8s:register-gen=false with another value is an error.
func RegisterPackageTags(p *DeclPackage) (RegisterTags, error) {
	var out RegisterTags
	tags := docTags(p)
	if g := tags["groupName"]; len(g) > 0 {
		out.Group, out.GroupPos, out.HasGroup = strings.TrimSpace(g[0].Value), g[0].Pos, true
	}
	// register-gen reads " false" as "false".
	on, optedOut, err := onOrFalse(RegisterTag, tags[RegisterTag], func(v string) bool { return strings.TrimSpace(v) == "false" })
	if err != nil {
		return out, err
	}
	switch {
	case optedOut:
	case len(on) > 0:
		out.Generate, out.Pos = true, on[0].Pos
	case out.HasGroup:
		out.Generate, out.Pos = true, out.GroupPos
	}
	return out, nil
}
