package load

import (
	"path/filepath"
	"strings"

	"github.com/typedinformer/typedinformer/generators/internal/inputerr"
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
	hasDoc := false
	for _, f := range p.Files {
		hasDoc = hasDoc || filepath.Base(f) == "doc.go"
	}
	if !hasDoc {
		return out, nil
	}
	tags := ExtractTags(p.Tags)
	if g := tags["groupName"]; len(g) > 0 {
		out.Group, out.GroupPos, out.HasGroup = strings.TrimSpace(g[0].Value), g[0].Pos, true
	}
	optedOut, enabled := false, false
	for _, v := range tags[RegisterTag] {
		if strings.TrimSpace(v.Value) == "false" {
			optedOut = true
		} else {
			enabled = true
			if out.Pos == "" {
				out.Pos = v.Pos
			}
		}
		if optedOut && enabled {
			return out, inputerr.Errorf(v.Pos, "+%s: cannot mix \"false\" with other values", RegisterTag)
		}
	}
	switch {
	case optedOut:
	case enabled:
		out.Generate = true
	case out.HasGroup:
		out.Generate, out.Pos = true, out.GroupPos
	}
	return out, nil
}
