package conversion

import (
	"strings"

	"github.com/typedinformer/typedinformer/generators/targets/universe"
)

// Types are read as conversion-gen reads them (package universe, gengo's
// model): each type is one *typ for the whole run, so that two types are
// the same type exactly when their pointers are equal, and a Go alias
// (type A = B) is the type it names; a type with no kind is kOther.
var typeRules = universe.Options{Tool: "conversion-gen", Verb: "converts", OnePerSpelling: true, ResolveAliasesWhenNamed: true}

type (
	typ    = universe.Type
	member = universe.Member
)

// isPrivate reports whether a Go name is unexported as gengo tells it: its
// first character is unchanged by lower-casing.
func isPrivate(name string) bool {
	return name == "" || strings.ToLower(name[:1]) == name[:1]
}
